// Decision B109: the fingerprints of the secrets the database's rows are bound to for their life
// (MEMBER_IDENTITY_SECRET: every member's principal; BLIND_INDEX_KEY: every email lookup), recorded
// beside the canister set at the first start (or the first start of this release) and compared at
// every later one, so a bridge given other secrets is refused instead of writing for other principals.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('bridge_canister_set').addColumn('key_fingerprints', 'jsonb').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('bridge_canister_set').dropColumn('key_fingerprints').execute();
}
