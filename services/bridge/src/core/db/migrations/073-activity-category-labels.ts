// Activity items name a proposal's category as members read it (decision N31): "A proposal was
// submitted (Treasury payout)", not the variant "A TreasuryPayout proposal was submitted". Rows written
// before are rewritten. The labels are copied here, not imported: a migration never changes with the code.
import { sql, type Kysely } from 'kysely';

const LABELS: [string, string][] = [
  ['General', 'General'],
  ['TreasuryPayout', 'Treasury payout'],
  ['SetDomPrice', 'DOM price'],
  ['MembershipPolicy', 'Membership policy'],
  ['ConstitutionalAmendment', 'Constitutional amendment'],
  ['EmergencyAction', 'Emergency action'],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [variant, label] of LABELS) {
    await sql`update activity_items
      set body = replace(body, ${`A ${variant} proposal was submitted;`}, ${`A proposal was submitted (${label});`})
      where strpos(body, ${`A ${variant} proposal was submitted;`}) > 0`.execute(db);
  }
}

export async function down(): Promise<void> {
  // The old wording is not brought back: it named an internal variant.
}
