// The campaign canister's records, errors, stores, dependencies and limits (see campaign.ts).
import type { Account, Store } from '@domdao/canister-kit';
import { DEFAULT_PRICE_MAX_AGE, NS_PER_DAY, type DomPriceTick } from '@domdao/canister-kit/rules';
import type { CampaignGoal, CampaignProgress } from './progress.ts';
import type { LedgerDeps, Movement } from './escrow.ts';

/** Refunds (or pending movements) handled per settle step and campaign, so a step stays bounded. */
export const SETTLE_BATCH = 50;
/** A movement younger than this is still in its own call's hands; the scheduler retries only older ones (L16). */
export const MOVEMENT_RETRY_AFTER = 30n * 1_000_000_000n;

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

export interface CampaignRecord {
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
  /** Decision G50: the governance canister, which asks for refresh_price when it ratifies a price (absent in state from before it). */
  governance?: string;
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
