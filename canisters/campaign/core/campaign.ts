// The campaign canister's core (spec 1 "USD goal calculation", decision G18): crowdfunding campaigns
// with a goal in DOM or USD, contributions valued at the ratified price, progress in both views.
// Registered, Active and Expired members may create campaigns and contribute (spec 2 rule 5); Revoked
// ones and non-members may not. The price is read from governance on every update and cached, so
// get_campaign (a query, which cannot call other canisters) answers from the tick read last.
import { clampLimit, Err, Ok, u64Key, withPrefix, compositeKey, type CallContext, type Result, type Store } from '@domdao/canister-kit';
import { DEFAULT_PRICE_MAX_AGE, isStale, NS_PER_DAY, usdToDomE8s, type DomPriceTick, type UsablePrice } from '@domdao/canister-kit/rules';
import { campaignProgress, type CampaignGoal, type CampaignProgress } from './progress.ts';

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
}

export type CampaignError =
  | { NotAuthorized: null }
  | { NotAMember: null }
  | { CampaignNotFound: null }
  | { CampaignClosed: null }
  | { InvalidArgument: string }
  | { PriceUnavailable: null };

export interface CampaignConfig {
  admins: string[];
  price_max_age: bigint;
}

export interface CampaignStores {
  config: Store<'config', CampaignConfig>;
  counters: Store<string, bigint>;
  campaigns: Store<bigint, CampaignRecord>;
  /** `u64(campaign)|u64(seq)` → contribution. */
  contributions: Store<string, Contribution>;
  /** The last tick read from governance. */
  price: Store<'tick', DomPriceTick>;
}

export const CAMPAIGN_STORE_NAMES: Record<keyof CampaignStores, string> = {
  config: 'config',
  counters: 'counters',
  campaigns: 'campaigns',
  contributions: 'contributions',
  price: 'price',
};

export interface CampaignDeps {
  governance: { get_dom_price(): Promise<DomPriceTick | undefined> };
  membership: { get_membership_status(owner: string): Promise<{ status: string } | undefined> };
}

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

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
    const status: CampaignStatus = c.cancelled ? 'Cancelled' : now < c.deadline ? 'Open' : progress.pct_complete >= 100 ? 'Succeeded' : 'Failed';
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
    };
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
    init(init: { admins: string[]; price_max_age?: bigint }): void {
      if (stores.config.has('config')) throw new Error('already initialised');
      stores.config.set('config', { admins: [...init.admins], price_max_age: init.price_max_age ?? DEFAULT_PRICE_MAX_AGE });
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
      });
      storePrice(tick);
      return Ok(id.toString());
    },

    /**
     * Spec 1 USD goal rules 1–3: a DOM contribution is always accepted; with a usable price it is also
     * valued in USD and records the tick. A USD contribution needs a price to become DOM (decision G18).
     */
    async contribute(ctx: CallContext, campaign_id: string, amount: ContributionAmount): Promise<Result<Contribution, CampaignError>> {
      const id = parseId(campaign_id);
      if (id === undefined || !stores.campaigns.has(id)) return Err({ CampaignNotFound: null });
      if ('Dom' in amount ? amount.Dom <= 0n || amount.Dom > MAX_CONTRIBUTION_E8S : !Number.isFinite(amount.Usd) || amount.Usd <= 0) {
        return Err({ InvalidArgument: 'amount must be above 0 (and at most 1e9 DOM)' });
      }
      if (!(await isMember(ctx.caller))) return Err({ NotAMember: null });
      const tick = await readPrice();
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
      const seq = c.contributions + 1n;
      const contribution: Contribution = {
        campaign_id,
        seq,
        contributor: ctx.caller,
        amount_e8s: e8s,
        ...(price && { usd_value: 'Usd' in amount ? amount.Usd : (Number(e8s) / 1e8) * price.price_usd, price_tick_id: price.proposal_id }),
        at: ctx.now,
      };
      stores.contributions.set(compositeKey(u64Key(id), u64Key(seq)), contribution);
      stores.campaigns.set(id, { ...c, raised_dom: c.raised_dom + e8s, contributions: seq });
      storePrice(tick);
      return Ok(contribution);
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
      storePrice(tick);
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
      return Array.from(stores.campaigns.entries({ reverse: true, limit: n, ...(from !== undefined && { from }) }), ([, c]) => view(c, ctx.now));
    },

    /** Oldest first, after contribution `after_seq` when given. */
    list_contributions(_ctx: CallContext, campaign_id: string, after_seq?: bigint, limit?: number): Contribution[] {
      const id = parseId(campaign_id);
      const n = clampLimit(limit, 20, 100);
      if (id === undefined || n === 0) return [];
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
