// The governance canister's core (spec 1): proposals, votes with ICRC-7 vote-pass receipts, execution
// of approved proposals, the ratified DOM/USD price and the admin event log. Deterministic: caller and
// time come in the CallContext, other canisters through GovernanceDeps, all state lives in the stores.
// Update methods finish every await before their first write, so an interleaved call never sees half
// an update and a throw leaves nothing behind.
import { CanisterReject, clampLimit, compositeKey, Err, Ok, u64Key, withPrefix, type CallContext, type Result, type Store } from '@domdao/canister-kit';
import { statusAt, settleSteps, tallyOf } from './lifecycle.ts';
import { actionOf } from './actions/index.ts';
import { createArgsProblem } from './payloads.ts';
import { CATEGORIES, DEFAULT_CATEGORY_RULES, NS_PER_DAY, NS_PER_HOUR, NS_PER_SECOND } from './rules/categories.ts';
import { priceInForce, setDomPriceProblem, toTick, type DomPriceTick, type PriceEntry } from './rules/price.ts';
import { receiptsApi } from './receipts.ts';
import {
  TERMINAL,
  type AdminEvent,
  type AdminEventKind,
  type CreateProposalArgs,
  type GovernanceConfig,
  type GovernanceDeps,
  type GovernanceError,
  type GovernanceInit,
  type GovernanceSettings,
  type ListProposalsArgs,
  type Proposal,
  type ProposalRecord,
  type ProposalStatus,
  type Receipt,
  type UpdateDomPriceArgs,
  type Vote,
  type VoteError,
  type VoteRecord,
  type VoteTally,
} from './types.ts';

export interface GovernanceStores {
  config: Store<'config', GovernanceConfig>;
  counters: Store<string, bigint>;
  proposals: Store<bigint, ProposalRecord>;
  /** Ids of proposals the scheduler still has work on (not terminal, or receipts left to burn). */
  active: Store<bigint, true>;
  /** `u64(proposal_id)|voter` → the vote. */
  votes: Store<string, VoteRecord>;
  receipts: Store<bigint, Receipt>;
  /** `owner|u64(token_id)` → token_id: an owner's receipts in token order. */
  receiptsByOwner: Store<string, bigint>;
  /** Every ratified price, by the proposal that set it. */
  prices: Store<bigint, PriceEntry>;
  events: Store<bigint, AdminEvent>;
}

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
};

export const DEFAULT_SETTINGS: GovernanceSettings = {
  rules: { ...DEFAULT_CATEGORY_RULES },
  // Decision G6: an hour to read a proposal before voting opens; EmergencyAction opens at once.
  voting_delay: NS_PER_HOUR,
  // Decision G6: an approved proposal has 7 days to execute, else it is Expired.
  execution_window: 7n * NS_PER_DAY,
};
export const EXECUTION_RETRY_INTERVAL = 300n * NS_PER_SECOND;
/** Receipts burned per proposal per scheduler step, so one step stays within the IC's instruction limit. */
export const BURN_BATCH = 5_000;
export const LIST_DEFAULT = 20;
export const LIST_MAX = 100;
const ANONYMOUS = '2vxsx-fae';

export function governanceCore(stores: GovernanceStores, deps: GovernanceDeps) {
  const config = (): GovernanceConfig => {
    const c = stores.config.get('config');
    if (!c) throw new Error('governance canister not initialised');
    return c;
  };
  const nextId = (name: string): bigint => {
    const id = stores.counters.get(name) ?? 1n;
    stores.counters.set(name, id + 1n);
    return id;
  };
  const emit = (now: bigint, kind: AdminEventKind) => {
    const id = nextId('event');
    stores.events.set(id, { id, at: now, kind });
  };
  const voteKey = (proposalId: bigint, voter: string) => compositeKey(u64Key(proposalId), voter);
  const isAdmin = (p: string) => config().admins.includes(p);
  const isTrusted = (p: string) => config().trusted_proposers.includes(p);
  const receipts = receiptsApi(stores);

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
    };
  };

  /** Stores the status after `steps` and logs each of them; a terminal status queues the receipts for burning. */
  const record = (p: ProposalRecord, steps: Array<[ProposalStatus, ProposalStatus]>, now: bigint): ProposalRecord => {
    if (steps.length === 0) return p;
    const to = steps.at(-1)![1];
    const next: ProposalRecord = { ...p, status: to, receipts_pending: p.receipts_pending || TERMINAL.has(to) };
    stores.proposals.set(p.id, next);
    for (const [from, step] of steps) emit(now, { StatusChanged: { proposal_id: p.id, from, to: step } });
    return next;
  };
  /** Records the time-driven transitions due at `now` (the snapshot, if one is due, is already on `p`). */
  const settle = (p: ProposalRecord, now: bigint) => record(p, settleSteps(p, now), now);
  const transition = (p: ProposalRecord, to: ProposalStatus, now: bigint) => record(p, [[p.status, to]], now);

  /** Spec 1 SetDomPrice rules 1–3: the tick in stable memory, set_by this canister, PriceUpdated. */
  const applyPrice = (args: UpdateDomPriceArgs, now: bigint): void => {
    const c = config();
    const entry: PriceEntry = {
      price_usd: args.price_usd,
      proposal_id: args.proposal_id,
      set_by: c.self,
      effective_at: args.effective_at ?? now,
      ...(args.expires_at !== undefined && { expires_at: args.expires_at }),
    };
    stores.prices.set(args.proposal_id, entry);
    emit(now, {
      PriceUpdated: {
        proposal_id: args.proposal_id,
        price_usd: args.price_usd,
        effective_at: entry.effective_at,
        ...(args.expires_at !== undefined && { expires_at: args.expires_at }),
        ...(args.source_url !== undefined && { source_url: args.source_url }),
      },
    });
  };

  /**
   * Runs an Approved proposal's action (spec 1 Categories, "Execution on approval"). Awaits first, then
   * writes: Executed, or an ExecutionFailed event and the proposal stays Approved for a retry.
   */
  const execute = async (id: bigint, now: bigint): Promise<Result<null, GovernanceError>> => {
    const payload = stores.proposals.get(id)!.payload;
    const act = payload && actionOf(payload);
    let failure: string | undefined;
    try {
      failure = act ? await act.action.call?.(id, act.content, deps) : undefined;
    } catch (e) {
      failure = `call failed: ${e instanceof Error ? e.message : String(e)}`;
    }
    let p = stores.proposals.get(id)!;
    if (p.status !== 'Approved') return Err({ ExecutionFailed: `proposal is ${p.status}, not Approved` });
    const attempt = p.execution_attempts + 1;
    p = { ...p, execution_attempts: attempt, last_attempt_at: now };
    stores.proposals.set(id, p);
    if (failure !== undefined) {
      emit(now, { ExecutionFailed: { proposal_id: id, attempt, message: failure } });
      return Err({ ExecutionFailed: failure });
    }
    act?.action.apply?.(id, act.content, now, {
      setPrice: (args) => applyPrice(args, now),
      updateConfig: (change) => {
        stores.config.set('config', change(config()));
        emit(now, { ConfigChanged: { proposal_id: id } });
      },
    });
    transition(p, 'Executed', now);
    return Ok(null);
  };

  const burnReceipts = (p: ProposalRecord, budget: number): void => {
    let burned = 0;
    for (const [, v] of withPrefix((from) => stores.votes.entries({ from }), `${u64Key(p.id)}|`)) {
      if (!stores.receipts.has(v.receipt_token_id)) continue;
      if (burned === budget) return;
      receipts.burn(v.receipt_token_id);
      burned++;
    }
    stores.proposals.set(p.id, { ...p, receipts_pending: false });
    stores.active.delete(p.id);
  };

  /** One proposal's due work: snapshot, recorded transitions, execution, receipt burning. */
  const advance = async (id: bigint, now: bigint): Promise<void> => {
    let p = stores.proposals.get(id);
    if (!p) return;
    if (p.status === 'Created' && now >= p.voting_opens && p.total_eligible === undefined && now < p.voting_closes) {
      let snapshot: bigint;
      try {
        snapshot = await deps.membership.count_active_members();
      } catch {
        return; // the membership canister is unreachable: try again at the next tick
      }
      p = stores.proposals.get(id)!;
      if (p.total_eligible === undefined) {
        p = { ...p, total_eligible: snapshot };
        stores.proposals.set(id, p);
      }
    }
    p = settle(p, now);
    if (p.status === 'Approved') {
      const c = config();
      const due = p.last_attempt_at === undefined || now - p.last_attempt_at >= c.execution_retry_interval;
      if (due) await execute(id, now);
      p = stores.proposals.get(id)!;
    }
    if (TERMINAL.has(p.status) && p.receipts_pending) burnReceipts(p, BURN_BATCH);
    else if (TERMINAL.has(p.status)) stores.active.delete(id);
  };

  /**
   * The scheduler's step (IC timer, embedded scheduler): records due transitions, takes snapshots,
   * executes approved proposals, burns receipts of finalised ones. `only` limits it to some proposals.
   */
  const tick = async (ctx: CallContext, only?: bigint[]): Promise<void> => {
    const ids = only ?? Array.from(stores.active.entries(), ([id]) => id);
    for (const id of ids) await advance(id, ctx.now);
  };

  return {
    init(init: GovernanceInit, settings: GovernanceSettings = DEFAULT_SETTINGS): void {
      if (stores.config.has('config')) throw new Error('already initialised');
      stores.config.set('config', { ...init, ...settings, rules: { ...settings.rules }, execution_retry_interval: EXECUTION_RETRY_INTERVAL });
    },

    /** Decision G7: Active members, admins and trusted proposers (the bridge, optionally for a member). */
    async create_proposal(ctx: CallContext, args: CreateProposalArgs): Promise<Result<bigint, GovernanceError>> {
      const c = config();
      if (ctx.caller === ANONYMOUS) return Err({ NotAuthorized: null });
      if (args.proposer !== undefined && !isTrusted(ctx.caller)) return Err({ NotAuthorized: null });
      if (createArgsProblem(args, ctx.now, c) !== undefined) return Err({ InvalidPayload: null });
      const proposer = args.proposer ?? ctx.caller;
      const mustBeMember = args.proposer !== undefined || (!isAdmin(ctx.caller) && !isTrusted(ctx.caller));
      const rules = c.rules[args.category];
      const opensAt = args.category === 'EmergencyAction' ? ctx.now : ctx.now + c.voting_delay;
      let snapshot: bigint | undefined;
      try {
        if (mustBeMember && !(await deps.membership.get_membership_status(proposer))?.is_active) return Err({ NotAMember: null });
        if (opensAt === ctx.now) snapshot = await deps.membership.count_active_members();
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
      emit(ctx.now, { ProposalCreated: { proposal_id: id, category: args.category, proposed_by: proposer } });
      if (snapshot !== undefined) {
        record = { ...record, total_eligible: snapshot };
        transition(record, 'Open', ctx.now);
      }
      return Ok(id);
    },

    get_proposal(ctx: CallContext, id: bigint): Proposal | undefined {
      const p = stores.proposals.get(id);
      return p && view(p, ctx.now);
    },

    /** Newest first, starting at from_id (inclusive) when given (decision G8). */
    list_proposals(ctx: CallContext, args: ListProposalsArgs): Proposal[] {
      const limit = clampLimit(args.limit, LIST_DEFAULT, LIST_MAX);
      const out: Proposal[] = [];
      if (limit === 0) return out;
      const from = args.from_id;
      for (const [, p] of stores.proposals.entries({ reverse: true, ...(from !== undefined && { from }) })) {
        if (args.category !== undefined && p.category !== args.category) continue;
        const v = view(p, ctx.now);
        if (args.status !== undefined && v.status !== args.status) continue;
        out.push(v);
        if (out.length === limit) break;
      }
      return out;
    },

    /** Spec 1 Authentication rule 1: Active, unexpired membership, checked by an inter-canister call now. */
    async cast_vote(ctx: CallContext, proposal_id: bigint, vote: Vote): Promise<Result<null, VoteError>> {
      const key = voteKey(proposal_id, ctx.caller);
      const windowError = (p: ProposalRecord): VoteError | undefined => {
        const s = statusAt(p, ctx.now);
        if (s === 'Open') return undefined;
        if (s === 'Created') return { ProposalNotOpen: null };
        return ctx.now >= p.voting_closes ? { VotingWindowClosed: null } : { ProposalNotOpen: null };
      };
      const before = stores.proposals.get(proposal_id);
      if (!before) return Err({ ProposalNotFound: null });
      const closed = windowError(before);
      if (closed) return Err(closed);
      if (stores.votes.has(key)) return Err({ AlreadyVoted: null });
      let snapshot = before.total_eligible;
      try {
        const m = await deps.membership.get_membership_status(ctx.caller);
        if (!m?.is_active) return Err({ NotAMember: null });
        // A window whose opening the scheduler has not recorded yet is opened by its first vote.
        snapshot ??= await deps.membership.count_active_members();
      } catch (e) {
        return Err({ MembershipUnavailable: e instanceof Error ? e.message : String(e) });
      }
      // Re-check after the awaits: on the IC other messages may have run in between.
      let p = stores.proposals.get(proposal_id)!;
      const closedNow = windowError(p);
      if (closedNow) return Err(closedNow);
      if (stores.votes.has(key)) return Err({ AlreadyVoted: null });
      if (p.total_eligible === undefined) p = { ...p, total_eligible: snapshot };
      if (p.status === 'Created') p = transition(p, 'Open', ctx.now);
      stores.proposals.set(proposal_id, {
        ...p,
        yes_votes: p.yes_votes + (vote === 'Yes' ? 1n : 0n),
        no_votes: p.no_votes + (vote === 'No' ? 1n : 0n),
        abstentions: p.abstentions + (vote === 'Abstain' ? 1n : 0n),
      });
      const token_id = receipts.mint(nextId('receipt'), ctx.caller, proposal_id, ctx.now);
      stores.votes.set(key, { voter: ctx.caller, vote, voted_at: ctx.now, receipt_token_id: token_id });
      return Ok(null);
    },

    get_tally(ctx: CallContext, proposal_id: bigint): VoteTally | undefined {
      const p = stores.proposals.get(proposal_id);
      if (!p || statusAt(p, ctx.now) === 'Created') return undefined;
      return tallyOf(p);
    },

    get_my_vote(ctx: CallContext, proposal_id: bigint): Vote | undefined {
      return stores.votes.get(voteKey(proposal_id, ctx.caller))?.vote;
    },

    /** Admin only (spec 1 Authentication rule 2); a query has no error variant, so others are rejected. */
    list_votes(ctx: CallContext, proposal_id: bigint): VoteRecord[] {
      if (!isAdmin(ctx.caller)) throw new CanisterReject('NotAuthorized: list_votes is admin only');
      return [...withPrefix((from) => stores.votes.entries({ from }), `${u64Key(proposal_id)}|`)].map(([, v]) => v);
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
      if (!p || p.payload === undefined || !('SetDomPrice' in p.payload) || statusAt(p, ctx.now) !== 'Approved') return Err({ ProposalNotFound: null });
      // effective_at may already be past at execution; only the price and the order of the times matter here.
      if (setDomPriceProblem({ ...args, effective_at: args.effective_at ?? ctx.now }, args.effective_at ?? ctx.now) !== undefined) return Err({ InvalidPayload: null });
      applyPrice(args, ctx.now);
      return Ok(null);
    },

    get_dom_price(ctx: CallContext): DomPriceTick | undefined {
      const e = priceInForce(Array.from(stores.prices.entries(), ([, v]) => v), ctx.now);
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
      return Array.from(stores.events.entries({ limit: n, ...(from_id !== undefined && { from: from_id }) }), ([, e]) => e);
    },

    /** The rules proposals created now get (changed only by ConstitutionalAmendment). */
    get_settings(_ctx: CallContext): SettingsView {
      const { rules, voting_delay, execution_window } = config();
      return {
        rules: CATEGORIES.map((category) => ({
          category,
          quorum_bps: rules[category].quorumBps,
          threshold_bps: rules[category].thresholdBps,
          voting_window: rules[category].votingWindowNs,
        })),
        voting_delay,
        execution_window,
      };
    },

    tick,

    /** When the scheduler next has work: the earliest due time among active proposals. */
    next_wakeup(ctx: CallContext): bigint | undefined {
      const c = config();
      let next: bigint | undefined;
      const consider = (t: bigint) => (next = next === undefined || t < next ? t : next);
      for (const [id] of stores.active.entries()) {
        const p = stores.proposals.get(id)!;
        const s = statusAt(p, ctx.now);
        if (s !== p.status || p.receipts_pending || TERMINAL.has(s)) consider(ctx.now);
        else if (s === 'Created') consider(p.voting_opens);
        else if (s === 'Open') consider(p.voting_closes);
        else if (s === 'Approved') {
          consider(p.execution_deadline);
          consider(p.last_attempt_at === undefined ? ctx.now : p.last_attempt_at + c.execution_retry_interval);
        }
      }
      return next;
    },

    ...receipts.queries,
  };
}

export interface SettingsView {
  rules: Array<{ category: (typeof CATEGORIES)[number]; quorum_bps: number; threshold_bps: number; voting_window: bigint }>;
  voting_delay: bigint;
  execution_window: bigint;
}
export type GovernanceCore = ReturnType<typeof governanceCore>;
