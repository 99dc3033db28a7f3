// The campaign canister's core (spec 1 "USD goal calculation", decision G18): crowdfunding campaigns
// with a goal in DOM or USD, contributions valued at the ratified price, progress in both views. Money
// is real DOM (decisions L14–L19): a contribution is pulled from the member's ledger account
// (after the member's icrc2_approve) into the campaign's escrow subaccount; at the deadline the escrow
// goes to the beneficiary (goal met) or back to every contributor (failed or cancelled), by the
// scheduler's settle step; members may also burn DOM as a recorded donation. Every movement runs
// through escrow.ts (intent first, one deduplicated ledger call, outcome).
// Registered, Active and Expired members may create campaigns and contribute (spec 2 rule 5); Revoked
// ones and non-members may not. The price is read from governance on every update and cached, so
// get_campaign (a query, which cannot call other canisters) answers from the tick read last.
import { ANSWER_STORED_BYTES, clampLimit, Err, Ok, u64Key, withinReplyBudget, withPrefix, compositeKey, type Account, type CallContext, type Result, type Store } from '@domdao/canister-kit';
import { DEFAULT_PRICE_MAX_AGE, isStale, NS_PER_DAY, usdToDomE8s, type DomPriceTick, type UsablePrice } from '@domdao/canister-kit/rules';
import { campaignProgress, type CampaignGoal, type CampaignProgress } from './progress.ts';
import { describe, escrowSubaccount, movementMemo, runMovement, type LedgerDeps, type LedgerError, type Movement, type Outcome } from './escrow.ts';

/** Refunds (or pending movements) handled per settle step and campaign, so a step stays bounded. */
export const SETTLE_BATCH = 50;
/** A movement younger than this is still in its own call's hands; the scheduler retries only older ones (L16). */
export const MOVEMENT_RETRY_AFTER = 30n * 1_000_000_000n;
const OP_ID = /^[A-Za-z0-9:._-]{1,128}$/;

export { DEFAULT_PRICE_MAX_AGE };
export const MAX_TITLE_CHARS = 200;
export const MAX_DESCRIPTION_CHARS = 20_000;
export const MAX_CAMPAIGN_LENGTH = 365n * NS_PER_DAY;
export const MIN_CAMPAIGN_LENGTH = 3600n * 1_000_000_000n;
/** Far above any real DOM supply; keeps raised_dom within what a float64 progress can express. */
export const MAX_CONTRIBUTION_E8S = 10n ** 17n;

export type CampaignStatus = 'Open' | 'Succeeded' | 'Failed' | 'Cancelled';
export type ContributionAmount = { Dom: bigint } | { Usd: number };

export interface CreateCampaignArgs {
  title: string;
  description: string;
  goal: CampaignGoal;
  deadline: bigint;
  /** Who receives the funds; the creator when absent. */
  beneficiary?: string;
}

interface CampaignRecord {
  id: bigint;
  title: string;
  description: string;
  owner: string;
  beneficiary: string;
  goal: CampaignGoal;
  deadline: bigint;
  created_at: bigint;
  cancelled: boolean;
  raised_dom: bigint;
  contributions: bigint;
  /** The status frozen when settlement starts (a USD goal's outcome must not move with later prices). */
  outcome?: 'Succeeded' | 'Failed' | 'Cancelled';
  released?: Settled;
  refunds: bigint;
  settled: boolean;
}

export interface Settled {
  block_index: bigint;
  amount_e8s: bigint;
  at: bigint;
}

export interface Campaign {
  id: string;
  title: string;
  description: string;
  owner: string;
  beneficiary: string;
  goal: CampaignGoal;
  deadline: bigint;
  created_at: bigint;
  status: CampaignStatus;
  contributions: bigint;
  progress: CampaignProgress;
  /** The ledger account holding the campaign's DOM until it is released or refunded. */
  escrow: Account;
  /** Released to the beneficiary (Succeeded). */
  released?: Settled;
  /** Contributions refunded so far (Failed, Cancelled). */
  refunds: bigint;
  /** Every DOM has left the escrow (released, or all refunded). */
  settled: boolean;
}

export interface Contribution {
  campaign_id: string;
  seq: bigint;
  contributor: string;
  amount_e8s: bigint;
  /** What it was worth in USD when made; absent when no usable price existed. */
  usd_value?: number;
  /** The price tick (its proposal id) it was valued at. */
  price_tick_id?: bigint;
  at: bigint;
  /** The ledger block that moved it into escrow. */
  block_index: bigint;
  /** Its refund, once made (amount less the ledger fee). */
  refund?: Settled;
}

/** A donation burn (decision L18): DOM destroyed by a member, valued at the tick. */
export interface Donation {
  id: bigint;
  donor: string;
  amount_e8s: bigint;
  usd_value?: number;
  price_tick_id?: bigint;
  at: bigint;
  block_index: bigint;
}

export type CampaignError =
  | { NotAuthorized: null }
  | { NotAMember: null }
  | { CampaignNotFound: null }
  | { CampaignClosed: null }
  | { InvalidArgument: string }
  | { PriceUnavailable: null }
  | { InsufficientFunds: { balance: bigint } }
  | { InsufficientAllowance: { allowance: bigint } }
  | { LedgerError: string };

export interface CampaignConfig {
  admins: string[];
  price_max_age: bigint;
  /** The campaign canister's own principal: its escrow subaccounts are its ledger accounts. */
  self: string;
}

export interface CampaignStores {
  config: Store<'config', CampaignConfig>;
  counters: Store<string, bigint>;
  campaigns: Store<bigint, CampaignRecord>;
  /** `u64(campaign)|u64(seq)` → contribution. */
  contributions: Store<string, Contribution>;
  /** The last tick read from governance. */
  price: Store<'tick', DomPriceTick>;
  /** Ledger movements decided but not yet known to be done (escrow.ts). */
  movements: Store<bigint, Movement>;
  /** `caller|op_id` → the movement or the result it produced (repeats answer the first result). */
  ops: Store<string, { movement?: bigint; contribution?: string; donation?: bigint }>;
  /** `contributor|u64(campaign)|u64(seq)`: each member's contributions. */
  by_contributor: Store<string, null>;
  /** Campaigns whose escrow is not yet empty. */
  unsettled: Store<bigint, null>;
  donations: Store<bigint, Donation>;
  /** The ledger fee, read from the ledger (refreshed with the price). */
  fee: Store<'fee', bigint>;
}

export const CAMPAIGN_STORE_NAMES: Record<keyof CampaignStores, string> = {
  config: 'config',
  counters: 'counters',
  campaigns: 'campaigns',
  contributions: 'contributions',
  price: 'price',
  movements: 'movements',
  ops: 'ops',
  by_contributor: 'by_contributor',
  unsettled: 'unsettled',
  donations: 'donations',
  fee: 'fee',
};

export interface CampaignDeps {
  governance: { get_dom_price(): Promise<DomPriceTick | undefined> };
  membership: { get_membership_status(owner: string): Promise<{ status: string } | undefined> };
  ledger: LedgerDeps;
  /** Instructions the current message has run (the IC's performance_counter); absent where there is no limit (decision W6). */
  instructions?(): bigint;
}

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

const AMOUNT_RANGE = 'amount must be above 0 (and at most 1e9 DOM)';

/** The argument rule contributions and donation burns share. */
function amountInRange(amount: ContributionAmount): boolean {
  return 'Dom' in amount ? amount.Dom > 0n && amount.Dom <= MAX_CONTRIBUTION_E8S : Number.isFinite(amount.Usd) && amount.Usd > 0;
}

/** A movement's USD value and the tick it was valued at, when a usable price exists (spec 1 USD goal rule 3). */
function valuation(amount: ContributionAmount, e8s: bigint, price: UsablePrice | undefined): { usd_value?: number; price_tick_id?: bigint } {
  return price ? { usd_value: 'Usd' in amount ? amount.Usd : (Number(e8s) / 1e8) * price.price_usd, price_tick_id: price.proposal_id } : {};
}

/** Campaign ids are decimal text of a nat64 (get_campaign takes text, spec 1). */
function parseId(id: string): bigint | undefined {
  return /^[1-9][0-9]{0,19}$/.test(id) && BigInt(id) <= 0xffff_ffff_ffff_ffffn ? BigInt(id) : undefined;
}

export function campaignCore(stores: CampaignStores, deps: CampaignDeps) {
  const config = (): CampaignConfig => {
    const c = stores.config.get('config');
    if (!c) throw new Error('campaign canister not initialised');
    return c;
  };
  /** Spec 1 USD goal rule 3 with decision G16: a tick older than price_max_age is no price. */
  const usable = (t: DomPriceTick | undefined, now: bigint): UsablePrice | undefined =>
    t && !isStale(t, now, config().price_max_age) ? { price_usd: t.price_usd, proposal_id: t.proposal_id } : undefined;
  const usablePrice = (now: bigint) => usable(stores.price.get('tick'), now);
  const view = (c: CampaignRecord, now: bigint): Campaign => {
    const progress = campaignProgress(c.goal, c.raised_dom, usablePrice(now));
    const status: CampaignStatus = c.cancelled ? 'Cancelled' : c.outcome ?? (now < c.deadline ? 'Open' : progress.pct_complete >= 100 ? 'Succeeded' : 'Failed');
    return {
      id: c.id.toString(),
      title: c.title,
      description: c.description,
      owner: c.owner,
      beneficiary: c.beneficiary,
      goal: c.goal,
      deadline: c.deadline,
      created_at: c.created_at,
      status,
      contributions: c.contributions,
      progress,
      escrow: escrow(c.id),
      ...(c.released && { released: c.released }),
      refunds: c.refunds,
      settled: c.settled,
    };
  };
  const escrow = (id: bigint): Account => ({ owner: config().self, subaccount: escrowSubaccount(id) });
  /** The ledger fee: stored, read from the ledger when missing (refresh_price refreshes it). */
  const fee = async (): Promise<bigint> => stores.fee.get('fee') ?? deps.ledger.icrc1_fee();
  const ledgerErr = (e: LedgerError): CampaignError =>
    'InsufficientFunds' in e ? { InsufficientFunds: e.InsufficientFunds } : 'InsufficientAllowance' in e ? { InsufficientAllowance: e.InsufficientAllowance } : { LedgerError: describe(e) };
  const newMovement = (m: Omit<Movement, 'id'>): Movement => {
    const id = stores.counters.get('movement') ?? 1n;
    stores.counters.set('movement', id + 1n);
    const full = { ...m, id };
    stores.movements.set(id, full);
    return full;
  };
  /** Where a movement's DOM comes from and goes to. */
  const route = async (m: Movement): Promise<Parameters<typeof runMovement>[2]> => {
    switch (m.kind) {
      case 'contribution':
        return { fromAccount: { owner: m.party }, to: escrow(m.campaign) };
      case 'burn': {
        const minting = await deps.ledger.icrc1_minting_account();
        if (!minting) throw new Error('the ledger has no minting account: DOM cannot be burned');
        return { fromAccount: { owner: m.party }, to: minting };
      }
      default:
        return { fromSubaccount: escrowSubaccount(m.campaign), to: { owner: m.party } };
    }
  };
  /**
   * Runs a movement's ledger call and applies its outcome. A rejected call throws: the intent, written
   * before the call (a commit point, decision L10), stays and is re-sent by the next attempt.
   */
  const run = async (ctx: CallContext, m: Movement): Promise<{ outcome: Outcome; result?: Contribution | Donation }> => apply(ctx, m, await runMovement(deps.ledger, m, await route(m)));
  /** Applies a movement's outcome once (after the ledger call, or an admin's reconciliation). */
  const apply = (ctx: CallContext, m: Movement, outcome: Outcome): { outcome: Outcome; result?: Contribution | Donation } => {
    const opKey = m.op_id === undefined ? undefined : compositeKey(m.party, m.op_id);
    // Another attempt finished it while this one awaited (calls interleave on the IC): apply once.
    if (!stores.movements.has(m.id)) {
      const entry = opKey === undefined ? undefined : stores.ops.get(opKey);
      const result = entry?.contribution ? stores.contributions.get(entry.contribution) : entry?.donation !== undefined ? stores.donations.get(entry.donation) : undefined;
      return { outcome, ...(result && { result }) };
    }
    if ('retry' in outcome) {
      stores.movements.set(m.id, { ...m, last_error: outcome.retry, attempted_at: ctx.now });
      return { outcome };
    }
    stores.movements.delete(m.id);
    if ('refused' in outcome) {
      if (opKey) stores.ops.delete(opKey);
      return { outcome };
    }
    const block_index = outcome.done;
    const settled: Settled = { block_index, amount_e8s: m.amount_e8s, at: ctx.now };
    const priced = { ...(m.usd_value !== undefined && { usd_value: m.usd_value }), ...(m.price_tick_id !== undefined && { price_tick_id: m.price_tick_id }) };
    const c = stores.campaigns.get(m.campaign);
    switch (m.kind) {
      case 'contribution': {
        const seq = c!.contributions + 1n;
        const contribution: Contribution = { campaign_id: m.campaign.toString(), seq, contributor: m.party, amount_e8s: m.amount_e8s, ...priced, at: ctx.now, block_index };
        const key = compositeKey(u64Key(m.campaign), u64Key(seq));
        stores.contributions.set(key, contribution);
        stores.by_contributor.set(compositeKey(m.party, key), null);
        stores.campaigns.set(m.campaign, { ...c!, raised_dom: c!.raised_dom + m.amount_e8s, contributions: seq });
        if (opKey) stores.ops.set(opKey, { contribution: key });
        return { outcome, result: contribution };
      }
      case 'burn': {
        const donation: Donation = { id: m.id, donor: m.party, amount_e8s: m.amount_e8s, ...priced, at: ctx.now, block_index };
        stores.donations.set(m.id, donation);
        if (opKey) stores.ops.set(opKey, { donation: m.id });
        return { outcome, result: donation };
      }
      case 'release':
        stores.campaigns.set(m.campaign, { ...c!, released: settled, settled: true });
        stores.unsettled.delete(m.campaign);
        return { outcome };
      case 'refund': {
        const key = compositeKey(u64Key(m.campaign), u64Key(m.seq!));
        stores.contributions.set(key, { ...stores.contributions.get(key)!, refund: settled });
        stores.campaigns.set(m.campaign, { ...c!, refunds: c!.refunds + 1n });
        return { outcome };
      }
    }
  };
  const finishContribution = async (ctx: CallContext, m: Movement): Promise<Result<Contribution, CampaignError>> => {
    const { outcome, result } = await run(ctx, m);
    if ('done' in outcome) return Ok(result as Contribution);
    return Err('refused' in outcome ? ledgerErr(outcome.refused) : { LedgerError: outcome.retry });
  };
  /** One scheduler attempt at a pending movement: a rejected call is recorded on it, not thrown. */
  const attempt = async (ctx: CallContext, m: Movement): Promise<void> => {
    try {
      await run(ctx, m);
    } catch (e) {
      const now = stores.movements.get(m.id);
      if (now) stores.movements.set(m.id, { ...now, last_error: e instanceof Error ? e.message : String(e), attempted_at: ctx.now });
    }
  };
  const settleOne = async (ctx: CallContext, id: bigint): Promise<void> => {
    let c = stores.campaigns.get(id)!;
    if (c.settled) return;
    const status = view(c, ctx.now).status;
    if (status === 'Open') return;
    const pending = pendingFor(id);
    // Contributions whose outcome is unknown may still add to the escrow: wait for them.
    if (pending.some((m) => m.kind === 'contribution')) return;
    if (!c.outcome) {
      c = { ...c, outcome: status as Exclude<CampaignStatus, 'Open'> };
      stores.campaigns.set(id, c);
    }
    if (c.raised_dom === 0n || (c.outcome !== 'Succeeded' && c.refunds === c.contributions)) {
      stores.campaigns.set(id, { ...c, settled: true });
      stores.unsettled.delete(id);
      return;
    }
    if (pending.length) return;
    const ledgerFee = await fee();
    if (c.outcome === 'Succeeded') {
      if (c.raised_dom <= ledgerFee) return;
      await attempt(ctx, newMovement({ kind: 'release', campaign: id, party: c.beneficiary, amount_e8s: c.raised_dom - ledgerFee, created_at_time: ctx.now }));
      return;
    }
    const prefix = `${u64Key(id)}|`;
    const due: Contribution[] = [];
    for (const [, v] of withPrefix((from) => stores.contributions.entries({ from }), prefix)) {
      if (!v.refund) due.push(v);
      if (due.length === SETTLE_BATCH) break;
    }
    for (const k of due) {
      if (k.amount_e8s <= ledgerFee) continue;
      await attempt(ctx, newMovement({ kind: 'refund', campaign: id, party: k.contributor, seq: k.seq, amount_e8s: k.amount_e8s - ledgerFee, created_at_time: ctx.now }));
    }
    const after = stores.campaigns.get(id)!;
    if (after.refunds === after.contributions) {
      stores.campaigns.set(id, { ...after, settled: true });
      stores.unsettled.delete(id);
    }
  };
  const retryAt = (m: Movement) => (m.attempted_at ?? m.created_at_time) + MOVEMENT_RETRY_AFTER;
  const pendingFor = (campaign: bigint) => Array.from(stores.movements.entries(), ([, m]) => m).filter((m) => m.campaign === campaign);
  /** Validates an operation id; answers what a repeat should see, or the pending movement to resume. */
  const opLookup = (caller: string, op_id: string | undefined) => {
    if (op_id === undefined) return {};
    if (!OP_ID.test(op_id)) return { error: Err({ InvalidArgument: 'op_id must be 1 to 128 of A-Z a-z 0-9 : . _ -' }) as { Err: CampaignError } };
    return { entry: stores.ops.get(compositeKey(caller, op_id)) };
  };
  /** Spec 1 USD goal rule 1: read the price from governance; keep the last good one if the call fails. */
  const readPrice = async (): Promise<DomPriceTick | undefined> => {
    try {
      return await deps.governance.get_dom_price();
    } catch {
      return stores.price.get('tick');
    }
  };
  const storePrice = (tick: DomPriceTick | undefined) => {
    if (tick) stores.price.set('tick', tick);
    else stores.price.delete('tick');
  };
  const isMember = async (p: string): Promise<boolean> => {
    const m = await deps.membership.get_membership_status(p);
    return m !== undefined && m.status !== 'Revoked';
  };

  return {
    init(init: { admins: string[]; price_max_age?: bigint; self: string }): void {
      if (stores.config.has('config')) throw new Error('already initialised');
      stores.config.set('config', { admins: [...init.admins], price_max_age: init.price_max_age ?? DEFAULT_PRICE_MAX_AGE, self: init.self });
    },

    async create_campaign(ctx: CallContext, args: CreateCampaignArgs): Promise<Result<string, CampaignError>> {
      const problem = createProblem(args, ctx.now);
      if (problem) return Err({ InvalidArgument: problem });
      if (!(await isMember(ctx.caller))) return Err({ NotAMember: null });
      const tick = await readPrice();
      const id = stores.counters.get('campaign') ?? 1n;
      stores.counters.set('campaign', id + 1n);
      stores.campaigns.set(id, {
        id,
        title: args.title.trim(),
        description: args.description,
        owner: ctx.caller,
        beneficiary: args.beneficiary ?? ctx.caller,
        goal: args.goal,
        deadline: args.deadline,
        created_at: ctx.now,
        cancelled: false,
        raised_dom: 0n,
        contributions: 0n,
        refunds: 0n,
        settled: false,
      });
      stores.unsettled.set(id, null);
      storePrice(tick);
      return Ok(id.toString());
    },

    /**
     * Spec 1 USD goal rules 1–3 with real DOM (L14–L16): the member has approved this canister on the
     * ledger (amount + fee); the amount is pulled into the campaign's escrow and recorded with the tick
     * it was valued at (a DOM amount needs no price; a USD amount does). With an op_id, a repeat answers
     * the first contribution, or finishes it if its ledger call's outcome was not seen.
     */
    async contribute(ctx: CallContext, campaign_id: string, amount: ContributionAmount, op_id?: string): Promise<Result<Contribution, CampaignError>> {
      const id = parseId(campaign_id);
      if (id === undefined || !stores.campaigns.has(id)) return Err({ CampaignNotFound: null });
      const op = opLookup(ctx.caller, op_id);
      if (op.error) return op.error;
      if (op.entry?.contribution) return Ok(stores.contributions.get(op.entry.contribution)!);
      const pending = op.entry?.movement === undefined ? undefined : stores.movements.get(op.entry.movement);
      if (pending) return finishContribution(ctx, pending);
      if (!amountInRange(amount)) return Err({ InvalidArgument: AMOUNT_RANGE });
      if (!(await isMember(ctx.caller))) return Err({ NotAMember: null });
      const tick = await readPrice();
      const ledgerFee = await fee();
      const c = stores.campaigns.get(id)!;
      if (view(c, ctx.now).status !== 'Open') return Err({ CampaignClosed: null });
      const price = usable(tick, ctx.now);
      let e8s: bigint;
      if ('Dom' in amount) e8s = amount.Dom;
      else {
        if (!price) return Err({ PriceUnavailable: null });
        e8s = usdToDomE8s(amount.Usd, price);
        if (e8s <= 0n || e8s > MAX_CONTRIBUTION_E8S) return Err({ InvalidArgument: 'amount must be worth 1e-8 to 1e9 DOM at the current price' });
      }
      // A refund returns the amount less the fee: a contribution must be worth refunding (no dust stranded in escrow).
      if (e8s <= ledgerFee) return Err({ InvalidArgument: `amount must be above the ledger fee of ${ledgerFee} e8s` });
      storePrice(tick);
      const m = newMovement({
        kind: 'contribution',
        campaign: id,
        party: ctx.caller,
        amount_e8s: e8s,
        ...valuation(amount, e8s, price),
        created_at_time: ctx.now,
        ...(op_id !== undefined && { op_id }),
      });
      if (op_id !== undefined) stores.ops.set(compositeKey(ctx.caller, op_id), { movement: m.id });
      return finishContribution(ctx, m);
    },

    /**
     * Donation burn (decision L18): a member destroys DOM from its own account (after approving this
     * canister for the amount), valued in USD at the tick when one is usable, and recorded.
     */
    async burn_donation(ctx: CallContext, amount: ContributionAmount, op_id?: string): Promise<Result<Donation, CampaignError>> {
      const op = opLookup(ctx.caller, op_id);
      if (op.error) return op.error;
      if (op.entry?.donation !== undefined) return Ok(stores.donations.get(op.entry.donation)!);
      const pending = op.entry?.movement === undefined ? undefined : stores.movements.get(op.entry.movement);
      let m = pending;
      if (!m) {
        if (!amountInRange(amount)) return Err({ InvalidArgument: AMOUNT_RANGE });
        if (!(await isMember(ctx.caller))) return Err({ NotAMember: null });
        const tick = await readPrice();
        const price = usable(tick, ctx.now);
        let e8s: bigint;
        if ('Dom' in amount) e8s = amount.Dom;
        else {
          if (!price) return Err({ PriceUnavailable: null });
          e8s = usdToDomE8s(amount.Usd, price);
        }
        storePrice(tick);
        m = newMovement({
          kind: 'burn',
          campaign: 0n,
          party: ctx.caller,
          amount_e8s: e8s,
          ...valuation(amount, e8s, price),
          created_at_time: ctx.now,
          ...(op_id !== undefined && { op_id }),
        });
        if (op_id !== undefined) stores.ops.set(compositeKey(ctx.caller, op_id), { movement: m.id });
      }
      const { outcome, result } = await run(ctx, m);
      if ('done' in outcome) return Ok(result as Donation);
      return Err('refused' in outcome ? ledgerErr(outcome.refused) : { LedgerError: outcome.retry });
    },

    /**
     * The settle step (scheduler, and anyone for one campaign through settle_campaign): finishes pending
     * movements, then for each campaign past its deadline or cancelled, with no contribution still
     * pending, freezes its outcome and releases the escrow to the beneficiary (Succeeded) or refunds
     * every contribution, SETTLE_BATCH at a time (Failed, Cancelled) (decisions L15–L17).
     */
    async settle(ctx: CallContext): Promise<void> {
      for (const [, m] of Array.from(stores.movements.entries({ limit: SETTLE_BATCH }))) if (ctx.now >= retryAt(m)) await attempt(ctx, m);
      for (const [id] of Array.from(stores.unsettled.entries({ limit: SETTLE_BATCH }))) await settleOne(ctx, id);
    },

    /**
     * Admins: settles a movement stuck past the ledger's deduplication window (decision L19). With a
     * block index, the block is read from the ledger and must be this movement's (its memo and amount):
     * the movement is applied as done. Without one the admin states, from the block log, that nothing
     * moved: the movement is dropped (a contribution is not recorded; a refund or release is redone).
     */
    async reconcile_movement(ctx: CallContext, id: bigint, block_index?: bigint): Promise<Result<null, CampaignError>> {
      if (!config().admins.includes(ctx.caller)) return Err({ NotAuthorized: null });
      const m = stores.movements.get(id);
      if (!m) return Err({ InvalidArgument: `no pending movement ${id}` });
      if (block_index === undefined) {
        apply(ctx, m, { refused: { GenericError: { error_code: 0n, message: `reconciled by ${ctx.caller}: not on the ledger` } } });
        return Ok(null);
      }
      const { blocks } = await deps.ledger.icrc3_get_blocks([{ start: block_index, length: 1n }]);
      const block = blocks.find((b) => b.id === block_index)?.block;
      const map = (v: unknown) => (v && typeof v === 'object' && 'Map' in v ? new Map((v as { Map: Array<[string, unknown]> }).Map) : new Map<string, unknown>());
      const tx = map(map(block).get('tx'));
      const memo = (tx.get('memo') as { Blob?: Uint8Array } | undefined)?.Blob;
      const amt = (tx.get('amt') as { Nat?: bigint } | undefined)?.Nat;
      const expected = movementMemo(m.id);
      if (!memo || memo.length !== expected.length || memo.some((b, i) => b !== expected[i]) || amt !== m.amount_e8s) {
        return Err({ InvalidArgument: `block ${block_index} is not movement ${id} (memo dom-mv:${id}, amount ${m.amount_e8s})` });
      }
      const still = stores.movements.get(id);
      if (!still) return Ok(null);
      apply(ctx, still, { done: block_index });
      return Ok(null);
    },

    /** Anyone: pushes one campaign's settlement along now (instead of waiting for the scheduler). */
    async settle_campaign(ctx: CallContext, campaign_id: string): Promise<Result<Campaign, CampaignError>> {
      const id = parseId(campaign_id);
      if (id === undefined || !stores.campaigns.has(id)) return Err({ CampaignNotFound: null });
      for (const m of pendingFor(id)) await attempt(ctx, m);
      await settleOne(ctx, id);
      return Ok(view(stores.campaigns.get(id)!, ctx.now));
    },

    /** When the settle step is next due: the earliest deadline of an unsettled campaign still open. */
    next_settlement(ctx: CallContext): bigint | undefined {
      let next: bigint | undefined;
      for (const [id] of stores.unsettled.entries({ limit: 1000 })) {
        const c = stores.campaigns.get(id)!;
        // A closed campaign waiting on a pending movement is due when that movement is (below).
        if ((c.cancelled || ctx.now >= c.deadline) && pendingFor(id).length) continue;
        const due = c.cancelled || ctx.now >= c.deadline ? ctx.now : c.deadline;
        if (next === undefined || due < next) next = due;
      }
      // The oldest pending movement is retried once it is MOVEMENT_RETRY_AFTER old (never a busy loop).
      for (const [, m] of stores.movements.entries({ limit: SETTLE_BATCH })) {
        const at = retryAt(m) < ctx.now ? ctx.now : retryAt(m);
        if (next === undefined || at < next) next = at;
      }
      return next;
    },

    /** The owner or an admin, while the campaign is Open. */
    cancel_campaign(ctx: CallContext, campaign_id: string): Result<null, CampaignError> {
      const id = parseId(campaign_id);
      const c = id === undefined ? undefined : stores.campaigns.get(id);
      if (!c) return Err({ CampaignNotFound: null });
      if (c.owner !== ctx.caller && !config().admins.includes(ctx.caller)) return Err({ NotAuthorized: null });
      if (view(c, ctx.now).status !== 'Open') return Err({ CampaignClosed: null });
      stores.campaigns.set(c.id, { ...c, cancelled: true });
      return Ok(null);
    },

    /** Reads the price from governance now (the scheduler calls it, so queries never show an old tick for long). */
    async refresh_price(_ctx: CallContext): Promise<void> {
      const tick = await deps.governance.get_dom_price();
      const ledgerFee = await deps.ledger.icrc1_fee();
      storePrice(tick);
      stores.fee.set('fee', ledgerFee);
    },

    get_campaign(ctx: CallContext, campaign_id: string): Campaign | undefined {
      const id = parseId(campaign_id);
      const c = id === undefined ? undefined : stores.campaigns.get(id);
      return c && view(c, ctx.now);
    },

    /** Newest first, from from_id (inclusive). */
    list_campaigns(ctx: CallContext, from_id?: string, limit?: number): Campaign[] {
      const n = clampLimit(limit, 20, 100);
      const from = from_id === undefined ? undefined : parseId(from_id);
      if (n === 0 || (from_id !== undefined && from === undefined)) return [];
      // Long descriptions end a page early rather than pass the reply limit (decision W6).
      const metered = deps.instructions !== undefined;
      const views = (function* () {
        for (const [, c] of stores.campaigns.entries({ reverse: true, ...(from !== undefined && { from }), ...(metered && { maxStoredBytes: ANSWER_STORED_BYTES }) })) yield view(c, ctx.now);
      })();
      return withinReplyBudget(views, n, (c) => c.title + c.description, { metered });
    },

    /** A member's contributions (with their refunds), oldest campaign first, at most `limit` (default 20, max 100). */
    list_contributions_by(_ctx: CallContext, contributor: string, limit?: number): Contribution[] {
      const n = clampLimit(limit, 20, 100);
      const out: Contribution[] = [];
      if (n === 0) return out;
      for (const [k] of withPrefix((from) => stores.by_contributor.entries({ from }), `${contributor}|`)) {
        out.push(stores.contributions.get(k.slice(contributor.length + 1))!);
        if (out.length === n) break;
      }
      return out;
    },

    /** Donation burns, newest first from from_id (inclusive). */
    list_donations(_ctx: CallContext, from_id?: bigint, limit?: number): Donation[] {
      const n = clampLimit(limit, 20, 100);
      return n === 0 ? [] : Array.from(stores.donations.entries({ reverse: true, limit: n, ...(from_id !== undefined && { from: from_id }) }), ([, v]) => v);
    },

    /** Ledger movements decided but not yet known to be done, oldest first (admins watch these). */
    list_pending_movements: (_ctx: CallContext): Movement[] => Array.from(stores.movements.entries({ limit: 100 }), ([, v]) => v),

    /** Oldest first, after contribution `after_seq` when given. */
    list_contributions(_ctx: CallContext, campaign_id: string, after_seq?: bigint, limit?: number): Contribution[] {
      const id = parseId(campaign_id);
      const n = clampLimit(limit, 20, 100);
      // Nothing follows the largest nat64: the next key would not be a nat64 (decision B55).
      if (id === undefined || n === 0 || (after_seq !== undefined && after_seq >= 0xffff_ffff_ffff_ffffn)) return [];
      const prefix = `${u64Key(id)}|`;
      const start = after_seq === undefined ? prefix : compositeKey(u64Key(id), u64Key(after_seq + 1n));
      const out: Contribution[] = [];
      for (const [, v] of withPrefix((from) => stores.contributions.entries({ from }), prefix, start)) {
        out.push(v);
        if (out.length === n) break;
      }
      return out;
    },
  };
}

function createProblem(a: CreateCampaignArgs, now: bigint): string | undefined {
  const title = a.title.trim();
  if (title.length === 0 || title.length > MAX_TITLE_CHARS || CONTROL.test(a.title)) return `title must be 1 to ${MAX_TITLE_CHARS} characters without control characters`;
  if (a.description.length > MAX_DESCRIPTION_CHARS || CONTROL.test(a.description)) return `description must be at most ${MAX_DESCRIPTION_CHARS} characters without control characters`;
  if ('DomTokens' in a.goal ? a.goal.DomTokens <= 0n || a.goal.DomTokens > MAX_CONTRIBUTION_E8S * 1000n : !Number.isFinite(a.goal.UsdValue) || a.goal.UsdValue <= 0 || a.goal.UsdValue > 1e12) {
    return 'goal must be a positive amount';
  }
  if (a.deadline < now + MIN_CAMPAIGN_LENGTH || a.deadline > now + MAX_CAMPAIGN_LENGTH) return 'deadline must be 1 hour to 365 days from now';
  return undefined;
}

export type CampaignCore = ReturnType<typeof campaignCore>;
