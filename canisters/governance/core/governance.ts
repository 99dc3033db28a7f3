// The governance canister's core (spec 1), one file per concern in the manner of OpenZeppelin's
// Governor: proposals, the ratified DOM/USD price, the admin event log and settings here; voting.ts
// (votes and vote-pass receipts), execution.ts (approved proposals, through actions/<payload>.ts),
// scheduler.ts (the timer's step), state.ts (what they share). Deterministic: caller and
// time come in the CallContext, other canisters through GovernanceDeps, all state lives in the stores.
// Update methods finish every await before their first write, so an interleaved call never sees half
// an update and a throw leaves nothing behind.
import {
  ANSWER_STORED_BYTES,
  CanisterReject,
  clampLimit,
  Err,
  Ok,
  withinReplyBudget,
  type CallContext,
  type Result,
} from '@domdao/canister-kit';
import { governanceConsent } from './consent.ts';
import { proposalExecution } from './execution.ts';
import { proposalIndex } from './proposal-index.ts';
import { statusAt, tallyOf } from './lifecycle.ts';
import { createArgsProblem } from './payloads.ts';
import { CATEGORIES, DEFAULT_CATEGORY_RULES, NS_PER_DAY, NS_PER_HOUR, NS_PER_SECOND } from './rules/categories.ts';
import { priceInForce, setDomPriceProblem, toTick, type DomPriceTick } from './rules/price.ts';
import { governanceScheduler, overBudgetOf } from './scheduler.ts';
import { delegationCore } from './delegation.ts';
import { governanceState } from './state.ts';
import { votingMethods } from './voting.ts';
import { votingDelay, votingWindow } from './rules/voting-times.ts';
import type {
  AdminEvent,
  CreateProposalArgs,
  GovernanceDeps,
  GovernanceError,
  GovernanceInit,
  GovernanceSettings,
  GovernanceStores,
  ListProposalsArgs,
  Proposal,
  ProposalRecord,
  UpdateDomPriceArgs,
} from './types.ts';

export { BURN_BATCH } from './scheduler.ts';

export type { GovernanceStores } from './types.ts';

export const GOVERNANCE_STORE_NAMES: Record<keyof GovernanceStores, string> = {
  config: 'config',
  counters: 'counters',
  proposals: 'proposals',
  active: 'active',
  votes: 'votes',
  receipts: 'receipts',
  receiptsByOwner: 'receipts_by_owner',
  prices: 'prices',
  events: 'events',
  tallies: 'tallies',
  proposalIndex: 'proposal_index',
  delegations: 'delegations',
  delegating: 'delegating',
  delegators: 'delegators',
  reasons: 'vote_reasons',
};

/**
 * The proposals store as the core reads it: each record with its counts from `tallies` when a vote
 * has written them there (decision P4); writes pass through unchanged.
 */
function proposalsWithTallies(
  proposals: GovernanceStores['proposals'],
  tallies: GovernanceStores['tallies'],
): GovernanceStores['proposals'] {
  const merged = (p: ProposalRecord): ProposalRecord => {
    const t = tallies.get(p.id);
    return t ? Object.freeze({ ...p, ...t }) : p;
  };
  return {
    get: (id) => {
      const p = proposals.get(id);
      return p && merged(p);
    },
    has: (id) => proposals.has(id),
    set: (id, p) => proposals.set(id, p),
    delete: (id) => proposals.delete(id),
    get size() {
      return proposals.size;
    },
    *entries(options) {
      for (const [id, p] of proposals.entries(options)) yield [id, merged(p)];
    },
  };
}

export const DEFAULT_SETTINGS: GovernanceSettings = {
  rules: { ...DEFAULT_CATEGORY_RULES },
  // Decision G6: an hour to read a proposal before voting opens; EmergencyAction opens at once.
  voting_delay: NS_PER_HOUR,
  // Decision G6: an approved proposal has 7 days to execute, else it is Expired.
  execution_window: 7n * NS_PER_DAY,
};
export const EXECUTION_RETRY_INTERVAL = 300n * NS_PER_SECOND;
export const LIST_DEFAULT = 20;
export const LIST_MAX = 100;
const ANONYMOUS = '2vxsx-fae';

export function governanceCore(stored: GovernanceStores, deps: GovernanceDeps) {
  const stores: GovernanceStores = { ...stored, proposals: proposalsWithTallies(stored.proposals, stored.tallies) };
  const state = governanceState(stores);
  const { config, emit, isAdmin, isTrusted, nextId, receipts, settle, transition } = state;
  const execution = proposalExecution(stores, deps, state);
  const { applyPrice, execute } = execution;
  const index = proposalIndex(stores);
  const delegation = delegationCore(stores, deps, state, overBudgetOf(deps));
  const scheduler = governanceScheduler(stores, deps, state, execution, index, delegation.countStep);
  const { tick } = scheduler;
  const view = (p: ProposalRecord, now: bigint): Proposal => {
    const status = statusAt(p, now);
    return {
      id: p.id,
      title: p.title,
      body: p.body,
      category: p.category,
      proposed_by: p.proposed_by,
      created_at: p.created_at,
      voting_opens: p.voting_opens,
      voting_closes: p.voting_closes,
      status,
      ...(p.payload !== undefined && { payload: p.payload }),
      ...(status !== 'Created' && { tally: tallyOf(p) }),
      ...(p.rules_before !== undefined && { rules_before: p.rules_before }),
    };
  };

  return {
    init(init: GovernanceInit, settings: GovernanceSettings = DEFAULT_SETTINGS): void {
      if (stores.config.has('config')) throw new Error('already initialised');
      stores.config.set('config', {
        ...init,
        ...settings,
        rules: { ...settings.rules },
        execution_retry_interval: EXECUTION_RETRY_INTERVAL,
      });
      index.markComplete(); // no proposals yet: every one is indexed as it is created (decision W8)
    },

    /** Decision G7: Active members, admins and trusted proposers (the bridge, optionally for a member). */
    async create_proposal(ctx: CallContext, args: CreateProposalArgs): Promise<Result<bigint, GovernanceError>> {
      const c = config();
      if (ctx.caller === ANONYMOUS) return Err({ NotAuthorized: null });
      if (args.proposer !== undefined && !isTrusted(ctx.caller)) return Err({ NotAuthorized: null });
      // Decision G22: the refusal says which field and why.
      const problem = createArgsProblem(args, ctx.now, c);
      if (problem !== undefined) return Err({ InvalidPayload: problem });
      const proposer = args.proposer ?? ctx.caller;
      const mustBeMember = args.proposer !== undefined || (!isAdmin(ctx.caller) && !isTrusted(ctx.caller));
      const rules = { ...c.rules[args.category], votingWindowNs: votingWindow(c, args.category, deps.devVoting) };
      const opensAt = args.category === 'EmergencyAction' ? ctx.now : ctx.now + votingDelay(c, deps.devVoting);
      let snapshot: { count: bigint; at: bigint } | undefined;
      try {
        if (mustBeMember && !(await deps.membership.get_membership_status(proposer))?.is_active)
          return Err({ NotAMember: null });
        if (opensAt === ctx.now) snapshot = await deps.membership.active_member_snapshot();
      } catch (e) {
        throw new CanisterReject(`membership canister unavailable: ${e instanceof Error ? e.message : String(e)}`);
      }
      const id = nextId('proposal');
      const closes = opensAt + rules.votingWindowNs;
      let record: ProposalRecord = {
        id,
        title: args.title.trim(),
        body: args.body,
        category: args.category,
        proposed_by: proposer,
        created_at: ctx.now,
        voting_opens: opensAt,
        voting_closes: closes,
        status: 'Created',
        ...(args.payload !== undefined && { payload: args.payload }),
        rules: { ...rules },
        yes_votes: 0n,
        no_votes: 0n,
        abstentions: 0n,
        execution_deadline: closes + c.execution_window,
        execution_attempts: 0,
        receipts_pending: false,
      };
      stores.proposals.set(id, record);
      stores.active.set(id, true);
      index.created(record);
      emit(ctx.now, { ProposalCreated: { proposal_id: id, category: args.category, proposed_by: proposer } });
      if (snapshot !== undefined) {
        record = state.opened(record, snapshot);
        transition(record, 'Open', ctx.now);
      }
      return Ok(id);
    },

    get_proposal(ctx: CallContext, id: bigint): Proposal | undefined {
      const p = stores.proposals.get(id);
      return p && view(p, ctx.now);
    },

    /**
     * Newest first, starting at from_id (inclusive) when given (decision G8); a page stops early
     * rather than pass the reply limit with long bodies (decision W6).
     */
    list_proposals(ctx: CallContext, args: ListProposalsArgs): Proposal[] {
      const limit = clampLimit(args.limit, LIST_DEFAULT, LIST_MAX);
      if (limit === 0) return [];
      const from = args.from_id;
      const metered = deps.instructions !== undefined;
      const matches = (p: ProposalRecord): Proposal | undefined => {
        if (args.category !== undefined && p.category !== args.category) return undefined;
        const v = view(p, ctx.now);
        return args.status !== undefined && v.status !== args.status ? undefined : v;
      };
      // A filter reads only its candidates (decision W8): an index, the active proposals, or both.
      const candidates = index.candidates(
        {
          ...(args.status !== undefined && { status: args.status }),
          ...(args.category !== undefined && { category: args.category }),
        },
        from,
      );
      function* matching(): Generator<Proposal> {
        if (candidates === undefined) {
          for (const [, p] of stores.proposals.entries({
            reverse: true,
            ...(from !== undefined && { from }),
            ...(metered && { maxStoredBytes: ANSWER_STORED_BYTES }),
          })) {
            const v = matches(p);
            if (v) yield v;
          }
          return;
        }
        // As maxStoredBytes does for the scan (decision W6): stop before decoding a record whose text would pass the
        // budget.
        let bytes = 0;
        let yielded = 0;
        for (const id of candidates) {
          bytes += index.size(id) ?? 0;
          if (metered && yielded > 0 && bytes > ANSWER_STORED_BYTES) return;
          const p = stores.proposals.get(id);
          const v = p && matches(p);
          if (v) {
            yielded++;
            yield v;
          }
        }
      }
      return withinReplyBudget(matching(), limit, (p) => p.title + p.body, { metered });
    },

    /** Permissionless retry of an Approved proposal's execution within its window (decision G6). */
    async execute_proposal(ctx: CallContext, proposal_id: bigint): Promise<Result<null, GovernanceError>> {
      const p = stores.proposals.get(proposal_id);
      if (!p) return Err({ ProposalNotFound: null });
      const status = statusAt(p, ctx.now);
      if (status !== 'Approved') {
        await tick(ctx, [proposal_id]);
        return Err({ ExecutionFailed: `proposal is ${status}, not Approved` });
      }
      settle(p, ctx.now);
      return execute(proposal_id, ctx.now);
    },

    /** Spec 1 Authentication rule 5: only this canister, on execution of an approved SetDomPrice proposal. */
    update_dom_price(ctx: CallContext, args: UpdateDomPriceArgs): Result<null, GovernanceError> {
      const c = config();
      if (ctx.caller !== c.self) return Err({ NotAuthorized: null });
      const p = stores.proposals.get(args.proposal_id);
      if (!p || p.payload === undefined || !('SetDomPrice' in p.payload) || statusAt(p, ctx.now) !== 'Approved')
        return Err({ ProposalNotFound: null });
      // effective_at may already be past at execution; only the price and the order of the times matter here.
      const problem = setDomPriceProblem(
        { ...args, effective_at: args.effective_at ?? ctx.now },
        args.effective_at ?? ctx.now,
      );
      if (problem !== undefined) return Err({ InvalidPayload: problem });
      applyPrice(args, ctx.now);
      return Ok(null);
    },

    get_dom_price(ctx: CallContext): DomPriceTick | undefined {
      const e = priceInForce(
        Array.from(stores.prices.entries(), ([, v]) => v),
        ctx.now,
      );
      return e && toTick(e);
    },

    /** Newest proposal first; each entry as it was ratified (decision G2). */
    list_price_history(_ctx: CallContext, limit?: number): DomPriceTick[] {
      const n = clampLimit(limit, LIST_DEFAULT, LIST_MAX);
      return n === 0 ? [] : Array.from(stores.prices.entries({ reverse: true, limit: n }), ([, e]) => toTick(e));
    },

    /** Decision G13: oldest first from from_id (inclusive). */
    list_admin_events(_ctx: CallContext, from_id?: bigint, limit?: number): AdminEvent[] {
      const n = clampLimit(limit, LIST_DEFAULT, LIST_MAX);
      if (n === 0) return [];
      return Array.from(
        stores.events.entries({ limit: n, ...(from_id !== undefined && { from: from_id }) }),
        ([, e]) => e,
      );
    },

    /** The rules proposals created now get (changed only by ConstitutionalAmendment; the times by decision G45 on a development host). */
    get_settings(_ctx: CallContext): SettingsView {
      const c = config();
      return {
        rules: CATEGORIES.map((category) => ({
          category,
          quorum_bps: c.rules[category].quorumBps,
          threshold_bps: c.rules[category].thresholdBps,
          voting_window: votingWindow(c, category, deps.devVoting),
        })),
        voting_delay: votingDelay(c, deps.devVoting),
        execution_window: c.execution_window,
      };
    },

    ...votingMethods(stores, deps, state),

    ...delegation.methods,

    ...scheduler,

    ...receipts.queries,

    ...governanceConsent(stores, state, deps.candid),
    /** ICRC-10: the vote-pass receipts' ICRC-7 and ICRC-10, and ICRC-21 consent messages (decision G24). */
    icrc10_supported_standards: (ctx: CallContext) => [
      ...receipts.queries.icrc10_supported_standards(ctx),
      ICRC21_STANDARD,
    ],
  };
}

export const ICRC21_STANDARD = {
  name: 'ICRC-21',
  url: 'https://github.com/dfinity/ICRC/blob/main/ICRCs/ICRC-21/ICRC-21.md',
} as const;

export interface SettingsView {
  rules: Array<{
    category: (typeof CATEGORIES)[number];
    quorum_bps: number;
    threshold_bps: number;
    voting_window: bigint;
  }>;
  voting_delay: bigint;
  execution_window: bigint;
}
export type GovernanceCore = ReturnType<typeof governanceCore>;
