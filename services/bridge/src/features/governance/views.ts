// Proposals as JSON for front ends: nat64 ids and counts as decimal strings, ns times as ISO-8601 (V12).
import type { CanisterClients } from '@domdao/canisters';
import { payloadPrincipals, type RulesNow } from '@domdao/proposal-text';

type Proposal = NonNullable<Awaited<ReturnType<CanisterClients['governance']['get_proposal']>>>;

const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();

export function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/** What a reader needs beside the payload to read it in words (decision F43, payload-context.ts). */
export interface PayloadContextParts {
  ratified_price_usd: number | null;
  paid_e8s: string | null;
}

/** `names`: principal → display name (decision F22); a principal without one shows `proposed_by_name: null`. */
export function proposalView(
  p: Proposal,
  names: ReadonlyMap<string, string> = new Map(),
  context?: PayloadContextParts,
) {
  return {
    id: p.id.toString(),
    title: p.title,
    body: p.body,
    category: p.category,
    proposed_by: p.proposed_by,
    proposed_by_name: names.get(p.proposed_by) ?? null,
    status: p.status,
    created_at: iso(p.created_at),
    voting_opens: iso(p.voting_opens),
    voting_closes: iso(p.voting_closes),
    payload: p.payload === undefined ? null : plain(p.payload),
    tally: p.tally === undefined ? null : plain(p.tally),
    // Decision G52: an executed amendment's rules just before it applied, so its result reads before → after.
    rules_before: p.rules_before === undefined ? null : (plain(p.rules_before) as RulesNow),
    payload_context: {
      names: Object.fromEntries(
        payloadPrincipals(p.payload).flatMap((x) => (names.has(x) ? [[x, names.get(x)!]] : [])),
      ),
      ratified_price_usd: context?.ratified_price_usd ?? null,
      paid_e8s: context?.paid_e8s ?? null,
    },
  };
}

type Tick = NonNullable<Awaited<ReturnType<CanisterClients['governance']['get_dom_price']>>>;

/** A ratified price: `effective_at` ISO-8601 (the tick's timestamp, when it took effect). */
export function tickView(t: Tick) {
  return {
    price_usd: t.price_usd,
    proposal_id: t.proposal_id.toString(),
    set_by: t.set_by,
    effective_at: iso(t.timestamp),
  };
}
