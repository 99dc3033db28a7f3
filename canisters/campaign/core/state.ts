// What the campaign core's concerns share: its configuration, the price it values amounts at, a
// campaign's view, operation ids, and the ledger movements (intent, call, outcome; escrow.ts).
import { compositeKey, Err, u64Key, type Account, type CallContext } from '@domdao/canister-kit';
import { isStale, type DomPriceTick, type UsablePrice } from '@domdao/canister-kit/rules';
import { campaignProgress } from './progress.ts';
import { describe, escrowSubaccount, runMovement, type LedgerError, type Movement, type Outcome } from './escrow.ts';
import {
  MAX_CONTRIBUTION_E8S,
  MOVEMENT_RETRY_AFTER,
  type Campaign,
  type CampaignConfig,
  type CampaignDeps,
  type CampaignError,
  type CampaignRecord,
  type CampaignStatus,
  type CampaignStores,
  type Contribution,
  type ContributionAmount,
  type Donation,
  type Settled,
} from './types.ts';

const OP_ID = /^[A-Za-z0-9:._-]{1,128}$/;

export const AMOUNT_RANGE = 'amount must be above 0 (and at most 1e9 DOM)';

/** The argument rule contributions and donation burns share. */
export function amountInRange(amount: ContributionAmount): boolean {
  return 'Dom' in amount
    ? amount.Dom > 0n && amount.Dom <= MAX_CONTRIBUTION_E8S
    : Number.isFinite(amount.Usd) && amount.Usd > 0;
}

/** A movement's USD value and the tick it was valued at, when a usable price exists (spec 1 USD goal rule 3). */
export function valuation(
  amount: ContributionAmount,
  e8s: bigint,
  price: UsablePrice | undefined,
): { usd_value?: number; price_tick_id?: bigint } {
  return price
    ? {
        usd_value: 'Usd' in amount ? amount.Usd : (Number(e8s) / 1e8) * price.price_usd,
        price_tick_id: price.proposal_id,
      }
    : {};
}

/** Campaign ids are decimal text of a nat64 (get_campaign takes text, spec 1). */
export function parseId(id: string): bigint | undefined {
  return /^[1-9][0-9]{0,19}$/.test(id) && BigInt(id) <= 0xffff_ffff_ffff_ffffn ? BigInt(id) : undefined;
}

export function campaignState(stores: CampaignStores, deps: CampaignDeps) {
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
    const status: CampaignStatus = c.cancelled
      ? 'Cancelled'
      : (c.outcome ?? (now < c.deadline ? 'Open' : progress.pct_complete >= 100 ? 'Succeeded' : 'Failed'));
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
    'InsufficientFunds' in e
      ? { InsufficientFunds: e.InsufficientFunds }
      : 'InsufficientAllowance' in e
        ? { InsufficientAllowance: e.InsufficientAllowance }
        : { LedgerError: describe(e) };
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
  const run = async (ctx: CallContext, m: Movement): Promise<{ outcome: Outcome; result?: Contribution | Donation }> =>
    apply(ctx, m, await runMovement(deps.ledger, m, await route(m)));
  /** Applies a movement's outcome once (after the ledger call, or an admin's reconciliation). */
  const apply = (
    ctx: CallContext,
    m: Movement,
    outcome: Outcome,
  ): { outcome: Outcome; result?: Contribution | Donation } => {
    const opKey = m.op_id === undefined ? undefined : compositeKey(m.party, m.op_id);
    // Another attempt finished it while this one awaited (calls interleave on the IC): apply once.
    if (!stores.movements.has(m.id)) {
      const entry = opKey === undefined ? undefined : stores.ops.get(opKey);
      const result = entry?.contribution
        ? stores.contributions.get(entry.contribution)
        : entry?.donation !== undefined
          ? stores.donations.get(entry.donation)
          : undefined;
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
    const priced = {
      ...(m.usd_value !== undefined && { usd_value: m.usd_value }),
      ...(m.price_tick_id !== undefined && { price_tick_id: m.price_tick_id }),
    };
    const c = stores.campaigns.get(m.campaign);
    switch (m.kind) {
      case 'contribution': {
        const seq = c!.contributions + 1n;
        const contribution: Contribution = {
          campaign_id: m.campaign.toString(),
          seq,
          contributor: m.party,
          amount_e8s: m.amount_e8s,
          ...priced,
          at: ctx.now,
          block_index,
        };
        const key = compositeKey(u64Key(m.campaign), u64Key(seq));
        stores.contributions.set(key, contribution);
        stores.by_contributor.set(compositeKey(m.party, key), null);
        stores.campaigns.set(m.campaign, { ...c!, raised_dom: c!.raised_dom + m.amount_e8s, contributions: seq });
        if (opKey) stores.ops.set(opKey, { contribution: key });
        return { outcome, result: contribution };
      }
      case 'burn': {
        const donation: Donation = {
          id: m.id,
          donor: m.party,
          amount_e8s: m.amount_e8s,
          ...priced,
          at: ctx.now,
          block_index,
        };
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
  /** One scheduler attempt at a pending movement: a rejected call is recorded on it, not thrown. */
  const attempt = async (ctx: CallContext, m: Movement): Promise<void> => {
    try {
      await run(ctx, m);
    } catch (e) {
      const now = stores.movements.get(m.id);
      if (now)
        stores.movements.set(m.id, {
          ...now,
          last_error: e instanceof Error ? e.message : String(e),
          attempted_at: ctx.now,
        });
    }
  };
  const retryAt = (m: Movement) => (m.attempted_at ?? m.created_at_time) + MOVEMENT_RETRY_AFTER;
  const pendingFor = (campaign: bigint) =>
    Array.from(stores.movements.entries(), ([, m]) => m).filter((m) => m.campaign === campaign);
  /** Validates an operation id; answers what a repeat should see, or the pending movement to resume. */
  const opLookup = (caller: string, op_id: string | undefined) => {
    if (op_id === undefined) return {};
    if (!OP_ID.test(op_id))
      return {
        error: Err({ InvalidArgument: 'op_id must be 1 to 128 of A-Z a-z 0-9 : . _ -' }) as { Err: CampaignError },
      };
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
    config,
    usable,
    usablePrice,
    view,
    escrow,
    fee,
    ledgerErr,
    newMovement,
    route,
    run,
    apply,
    attempt,
    retryAt,
    pendingFor,
    opLookup,
    readPrice,
    storePrice,
    isMember,
  };
}

export type CampaignState = ReturnType<typeof campaignState>;
