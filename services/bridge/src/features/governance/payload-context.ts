// Decision F43: what a reader needs beside a proposal's payload to read it in words
// (@domdao/proposal-text): the display names of the principals it names, the ratified price now,
// and, for an executed payout, what the treasury paid (its TreasuryPayoutPaid event, decision N22).
import type { CanisterClients } from '@domdao/canisters';
import { payloadPrincipals } from '@domdao/proposal-text';
import type { Db } from '../../core/db/schema.ts';
import type { DisplayNames } from '../../core/identity/display-names.ts';
import { proposalView } from './views.ts';

type Proposal = NonNullable<Awaited<ReturnType<CanisterClients['governance']['get_proposal']>>>;

export interface ContextSources {
  governance: Pick<CanisterClients['governance'], 'get_dom_price'>;
  names: DisplayNames;
  db: Db;
}

/** The proposals' views, each with its `payload_context`: one names read, one price read, one events read. */
export async function readableViews(o: ContextSources, items: Proposal[]) {
  const paidIds = items
    .filter((p) => p.status === 'Executed' && p.payload !== undefined && 'TreasuryPayout' in p.payload)
    .map((p) => `payout:${p.id}`);
  const [names, tick, paid] = await Promise.all([
    o.names(items.flatMap((p) => [p.proposed_by, ...payloadPrincipals(p.payload)])),
    items.some((p) => p.payload !== undefined) ? o.governance.get_dom_price() : undefined,
    paidIds.length
      ? o.db
          .selectFrom('bridge_events')
          .select(['source_id', 'data'])
          .where('source', '=', 'treasury')
          .where('source_id', 'in', paidIds)
          .execute()
      : Promise.resolve<{ source_id: string; data: unknown }[]>([]),
  ]);
  const paidE8s = new Map(paid.map((r) => [r.source_id, (r.data as { amount_e8s?: string }).amount_e8s ?? null]));
  return items.map((p) =>
    proposalView(p, names, {
      ratified_price_usd: tick?.price_usd ?? null,
      paid_e8s: paidE8s.get(`payout:${p.id}`) ?? null,
    }),
  );
}
