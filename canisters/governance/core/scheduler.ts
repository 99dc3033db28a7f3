// The governance scheduler (IC timer, embedded scheduler): snapshots at opening, time-driven transitions,
// execution of approved proposals and their retries, and burning the vote-pass receipts of finalised
// proposals in bounded batches; next_wakeup tells the embedded scheduler when it next has work.
import { u64Key, withPrefix, type CallContext } from '@domdao/canister-kit';
import { statusAt } from './lifecycle.ts';
import type { ProposalExecution } from './execution.ts';
import type { proposalIndex } from './proposal-index.ts';
import type { GovernanceState } from './state.ts';
import { TERMINAL, type GovernanceDeps, type GovernanceStores, type ProposalRecord } from './types.ts';

/** Receipts burned per proposal per scheduler step at most. */
export const BURN_BATCH = 5_000;
/**
 * Decision G20: where the host counts instructions (the IC), a scheduler step stops burning receipts
 * and moving on to further proposals once its message has used this many: half the IC's 40 billion
 * update limit, the rest left for the proposal it is on. On the test replica a receipt burn costs
 * about 27 million instructions (npm run bench wasm), so BURN_BATCH alone would need ~137 billion.
 */
export const STEP_INSTRUCTION_BUDGET = 20_000_000_000n;

export const overBudgetOf = (deps: GovernanceDeps) => () =>
  deps.instructions !== undefined && deps.instructions() > STEP_INSTRUCTION_BUDGET;

export function governanceScheduler(
  stores: GovernanceStores,
  deps: GovernanceDeps,
  state: GovernanceState,
  execution: ProposalExecution,
  index: ReturnType<typeof proposalIndex>,
  countDelegated: (id: bigint, now: bigint) => Promise<boolean>,
) {
  const { config, receipts, settle } = state;
  const { execute } = execution;
  const overBudget = overBudgetOf(deps);

  /**
   * Burns up to `budget` receipts in voter order, going on after the vote key where the last step
   * stopped (decision G21): starting over, a step re-read every vote already handled, so the steps
   * of a large vote cost quadratically (10,000 votes: over 60 steps of 20 billion instructions).
   */
  const burnReceipts = (p: ProposalRecord, budget: number): void => {
    let burned = 0;
    let last = p.receipts_burned_to;
    for (const [key, v] of withPrefix((from) => stores.votes.entries({ from }), `${u64Key(p.id)}|`, last)) {
      if (key === p.receipts_burned_to) continue;
      if (burned === budget || overBudget()) {
        if (last !== p.receipts_burned_to) stores.proposals.set(p.id, { ...p, receipts_burned_to: last! });
        return;
      }
      if (stores.receipts.has(v.receipt_token_id)) {
        receipts.burn(v.receipt_token_id);
        burned++;
      }
      last = key;
    }
    const { receipts_burned_to: _, ...done } = p;
    stores.proposals.set(p.id, { ...done, receipts_pending: false });
    stores.active.delete(p.id);
    index.finalised(p);
  };

  /** One proposal's due work: snapshot, recorded transitions, execution, receipt burning. */
  const advance = async (id: bigint, now: bigint): Promise<void> => {
    let p = stores.proposals.get(id);
    if (!p) return;
    if (p.status === 'Created' && now >= p.voting_opens && p.total_eligible === undefined && now < p.voting_closes) {
      let snapshot: { count: bigint; at: bigint };
      try {
        snapshot = await deps.membership.active_member_snapshot();
      } catch {
        return; // the membership canister is unreachable: try again at the next tick
      }
      p = stores.proposals.get(id)!;
      if (p.total_eligible === undefined) {
        p = state.opened(p, snapshot);
        stores.proposals.set(id, p);
      }
    }
    p = settle(p, now);
    if (p.status === 'Tallied' && p.delegation_pending) {
      if (!(await countDelegated(id, now))) return; // the rest at the next step (decision G31)
      p = settle(stores.proposals.get(id)!, now);
    }
    if (p.status === 'Approved') {
      const c = config();
      const due = p.last_attempt_at === undefined || now - p.last_attempt_at >= c.execution_retry_interval;
      if (due) await execute(id, now);
      p = stores.proposals.get(id)!;
    }
    if (TERMINAL.has(p.status) && p.receipts_pending) burnReceipts(p, BURN_BATCH);
    else if (TERMINAL.has(p.status)) {
      stores.active.delete(id);
      index.finalised(p);
    }
  };

  /**
   * The scheduler's step (IC timer, embedded scheduler): records due transitions, takes snapshots,
   * executes approved proposals, burns receipts of finalised ones. `only` limits it to some proposals.
   */
  const tick = async (ctx: CallContext, only?: bigint[]): Promise<void> => {
    const ids = only ?? Array.from(stores.active.entries(), ([id]) => id);
    for (const id of ids) {
      if (overBudget()) return; // the rest at the next step
      await advance(id, ctx.now);
    }
    // A store kept by a release without the proposals' index (decision W8): a bounded part of it per step.
    if (only === undefined) index.buildStep(stores.counters.get('proposal') ?? 1n, () => !overBudget());
  };

  return {
    tick,

    /** When the scheduler next has work: the earliest due time among active proposals. */
    next_wakeup(ctx: CallContext): bigint | undefined {
      const c = config();
      let next: bigint | undefined;
      const consider = (t: bigint) => (next = next === undefined || t < next ? t : next);
      if (!index.complete()) consider(ctx.now); // the index is still being built (decision W8)
      for (const [id] of stores.active.entries()) {
        const p = stores.proposals.get(id)!;
        const s = statusAt(p, ctx.now);
        if (s !== p.status || p.receipts_pending || TERMINAL.has(s) || (s === 'Tallied' && p.delegation_pending))
          consider(ctx.now);
        else if (s === 'Created') consider(p.voting_opens);
        else if (s === 'Open') consider(p.voting_closes);
        else if (s === 'Approved') {
          consider(p.execution_deadline);
          consider(p.last_attempt_at === undefined ? ctx.now : p.last_attempt_at + c.execution_retry_interval);
        }
      }
      return next;
    },
  };
}
