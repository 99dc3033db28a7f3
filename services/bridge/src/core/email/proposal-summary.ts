// What a proposal does, in the sentence its page's list row shows (decision F43, @domdao/proposal-text),
// for the inbox's activity items and the member emails (which may not import each other, decision S1):
// names from the members' display names, the ratified price and the rules in force from governance.
import type { CanisterClients } from '@domdao/canisters';
import { describePayload, payloadPrincipals } from '@domdao/proposal-text';
import type { Db } from '../db/schema.ts';
import { displayNames } from '../identity/display-names.ts';

type Governance = Pick<CanisterClients['governance'], 'get_dom_price' | 'get_settings'>;
type Proposal = NonNullable<Awaited<ReturnType<CanisterClients['governance']['get_proposal']>>>;

/** The proposal's one-line summary, ending with a full stop; a context read that fails leaves that part out. */
export async function proposalSummary(db: Db, governance: Governance, p: Proposal): Promise<string> {
  const payload = p.payload ?? null;
  const [names, tick, settings] = await Promise.all([
    displayNames(db, payloadPrincipals(payload)),
    governance.get_dom_price().catch(() => undefined),
    p.category === 'ConstitutionalAmendment' || p.category === 'EmergencyAction'
      ? governance.get_settings().catch(() => undefined)
      : undefined,
  ]);
  const { summary } = describePayload(p.category, payload, {
    names: Object.fromEntries(names),
    ratified_price_usd: tick?.price_usd ?? null,
    rules_now: settings ?? null,
    rules_before: p.rules_before ?? null,
    status: p.status,
  });
  return `${summary}.`;
}
