// Time, price and money rules shared by the governance, campaign and treasury cores (spec 1), so no
// core reaches into another: nanosecond units, the price tick and when it is too old to use, the USD
// → DOM conversion (decision G3) and the payout check (spec 1 TreasuryPayoutPayload). Also the one
// list of proposal categories (decision S17), which the governance canister, the bridge and the web
// app all read (this file imports nothing, so a browser bundle can take it).
export const NS_PER_SECOND = 1_000_000_000n;
export const NS_PER_HOUR = 3600n * NS_PER_SECOND;
export const NS_PER_DAY = 24n * NS_PER_HOUR;

/** Spec 1 "Categories", in the spec's order (the web app lists them in it). */
export const PROPOSAL_CATEGORIES = [
  'General',
  'TreasuryPayout',
  'SetDomPrice',
  'MembershipPolicy',
  'ConstitutionalAmendment',
  'EmergencyAction',
] as const;
export type ProposalCategory = (typeof PROPOSAL_CATEGORIES)[number];

/** A ratified price older than this is stale for USD conversion (decision G16), unless configured otherwise. */
export const DEFAULT_PRICE_MAX_AGE = 10n * NS_PER_DAY;

/** DomPriceTick of spec 1; `timestamp` is when this price took effect (ns, IC time). */
export interface DomPriceTick {
  price_usd: number;
  set_by: string;
  proposal_id: bigint;
  timestamp: bigint;
}

/** Treasury rule 1 (spec 1 Errors): a price older than `maxAgeNs` must not be used for USD conversion. */
export function isStale(tick: DomPriceTick | undefined, now: bigint, maxAgeNs: bigint): boolean {
  return tick === undefined || now - tick.timestamp > maxAgeNs;
}

export interface UsablePrice {
  price_usd: number;
  proposal_id: bigint;
}

export const E8S_PER_DOM = 100_000_000;

/** dom_amount = usd_amount / price_usd, in e8s rounded to the nearest unit (decision G3). */
export function usdToDomE8s(usd: number, price: UsablePrice): bigint {
  return BigInt(Math.round((usd / price.price_usd) * E8S_PER_DOM));
}

export function domE8sToUsd(e8s: bigint, price: UsablePrice): number {
  return (Number(e8s) / E8S_PER_DOM) * price.price_usd;
}

export type PayoutAmount = { DomE8s: bigint } | { Usd: number };

export interface PayoutPayload {
  recipient: string;
  amount: PayoutAmount;
  memo?: string;
}

export const MAX_MEMO_CHARS = 256;

/** TreasuryPayoutPayload validation: at proposal creation (governance) and again at payout (treasury). */
export function payoutProblem(p: PayoutPayload): string | undefined {
  if ('DomE8s' in p.amount) {
    if (p.amount.DomE8s <= 0n) return 'payout amount must be above 0';
  } else if (!Number.isFinite(p.amount.Usd) || p.amount.Usd <= 0)
    return 'payout amount in USD must be a finite number above 0';
  if (p.memo !== undefined && p.memo.length > MAX_MEMO_CHARS)
    return `memo must be at most ${MAX_MEMO_CHARS} characters`;
  return undefined;
}

/** Decision G22: the one source_url rule of a SetDomPrice payload, checked by the bridge and the governance canister alike. */
export const MAX_SOURCE_URL_CHARS = 2048;
export const SOURCE_URL_RULE = `an https URL of at most ${MAX_SOURCE_URL_CHARS} characters, without spaces`;
export function isSourceUrl(v: unknown): v is string {
  return typeof v === 'string' && v.length <= MAX_SOURCE_URL_CHARS && /^https:\/\/\S+$/.test(v);
}
