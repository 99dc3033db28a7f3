// The price-proposal job's decision (decisions O16–O20), a pure function of what the job
// read: the oracle's current aggregate, the ratified price in force (get_dom_price), whether a
// SetDomPrice proposal is still pending, and the clock. Chainlink's deviation-or-heartbeat rule.

export interface PriceJobSettings {
  /** Submit only when the aggregate moved at least this far from the ratified price (percent). */
  minChangePct: number;
  /** ...unless the ratified price took effect at least this long ago (ms). */
  heartbeatMs: number;
}

export interface PriceJobInput {
  /** The oracle's latest aggregate; undefined before its first poll. */
  aggregate: { price_usd: number; stale: boolean } | undefined;
  /** The ratified price in force; `effective_at_ms` is when it took effect. */
  ratified: { price_usd: number; effective_at_ms: number } | undefined;
  /** Id of a SetDomPrice proposal not yet terminal (Created, Open, Tallied or Approved). */
  pendingProposalId: string | undefined;
  now: number;
  /** Run by an admin (POST /api/admin/price/submit-proposal): the minimum change does not apply (O18). */
  manual?: boolean;
}

export type SkipReason = 'no_aggregate' | 'stale' | 'pending_proposal' | 'below_min_change';
export type SubmitReason = 'no_ratified_price' | 'change' | 'heartbeat' | 'manual';

export type PriceJobDecision =
  | { action: 'submit'; reason: SubmitReason; change_pct: number | null }
  | { action: 'skip'; reason: SkipReason; change_pct: number | null; pending_proposal_id?: string };

/** Relative change of `next` from `prev`, percent (absolute value). */
export function changePct(prev: number, next: number): number {
  return (Math.abs(next - prev) / prev) * 100;
}

export function decidePriceProposal(input: PriceJobInput, settings: PriceJobSettings): PriceJobDecision {
  const { aggregate, ratified } = input;
  const change = aggregate && ratified ? changePct(ratified.price_usd, aggregate.price_usd) : null;
  // Spec 1 "Price feed behaviour": a stale aggregate must never update the stored canister price.
  if (!aggregate) return { action: 'skip', reason: 'no_aggregate', change_pct: null };
  if (aggregate.stale) return { action: 'skip', reason: 'stale', change_pct: change };
  // One SetDomPrice in flight at a time: a second would race the first and could ratify an older price.
  if (input.pendingProposalId !== undefined)
    return {
      action: 'skip',
      reason: 'pending_proposal',
      change_pct: change,
      pending_proposal_id: input.pendingProposalId,
    };
  if (!ratified) return { action: 'submit', reason: 'no_ratified_price', change_pct: null };
  if (input.manual) return { action: 'submit', reason: 'manual', change_pct: change };
  if (change! >= settings.minChangePct) return { action: 'submit', reason: 'change', change_pct: change };
  if (input.now - ratified.effective_at_ms >= settings.heartbeatMs)
    return { action: 'submit', reason: 'heartbeat', change_pct: change };
  return { action: 'skip', reason: 'below_min_change', change_pct: change };
}

/**
 * Start-up check (O19): a heartbeat submission must be ratified before the ratified price it renews
 * expires, so heartbeat + the time ratification takes (voting delay + SetDomPrice's voting window +
 * a margin for execution) must stay within the tick's lifetime (the price's maximum age).
 */
export function heartbeatProblem(s: {
  heartbeatMs: number;
  tickLifetimeMs: number;
  ratificationMs: number;
}): string | undefined {
  if (!(s.heartbeatMs > 0)) return 'the heartbeat must be positive';
  const latest = s.tickLifetimeMs - s.ratificationMs;
  if (s.heartbeatMs > latest) {
    const h = (ms: number) => `${Math.round(ms / 3_600_000)} h`;
    return `the heartbeat (${h(s.heartbeatMs)}) leaves no room for ratification: it must be at most the price lifetime (${h(s.tickLifetimeMs)}) minus voting delay, SetDomPrice voting window and execution margin (${h(s.ratificationMs)}), i.e. ${h(latest)}`;
  }
  return undefined;
}
