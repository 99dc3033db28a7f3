// The governance canister's public records (spec 1 "Resources"), in the core's TypeScript shape:
// principals are text, `opt` is an optional property, times are nanoseconds since the Unix epoch (G2).
// The Candid shape of the same records is in ../candid.ts.
import type { Account, Store } from '@domdao/canister-kit';
import type { Idl } from '@domdao/canister-kit/candid';
import type { CategoryRules, ProposalCategory } from './rules/categories.ts';
import type { VoteTally } from './rules/counting.ts';
import type { DomPriceTick, PriceEntry } from './rules/price.ts';

export type { Account, ProposalCategory, VoteTally, DomPriceTick, CategoryRules };

export const PROPOSAL_STATUSES = ['Created', 'Open', 'Tallied', 'Approved', 'Rejected', 'Executed', 'Expired'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];
export const TERMINAL: ReadonlySet<ProposalStatus> = new Set(['Rejected', 'Executed', 'Expired']);

export type Vote = 'Yes' | 'No' | 'Abstain';

export interface SetDomPricePayload {
  price_usd: number;
  effective_at?: bigint;
  source_url?: string;
  expires_at?: bigint;
}

/** Decision G10: an amount in DOM e8s, or in USD converted by the treasury at the ratified price. */
export type { PayoutAmount, PayoutPayload } from '@domdao/canister-kit/rules';
import type { PayoutPayload } from '@domdao/canister-kit/rules';

/** Decision G11: what a MembershipPolicy proposal may change in the membership canister. */
export interface MembershipPolicyPayload {
  add_admins: string[];
  remove_admins: string[];
  revoke: string[];
}

/** Decision G12: a ConstitutionalAmendment changes rules for proposals created after it executes. */
export interface CategoryRulesChange {
  category: ProposalCategory;
  quorum_bps?: number;
  threshold_bps?: number;
  voting_window?: bigint;
}
export interface AmendmentPayload {
  category_rules: CategoryRulesChange[];
  voting_delay?: bigint;
  execution_window?: bigint;
}

export type ProposalPayload =
  | { SetDomPrice: SetDomPricePayload }
  | { TreasuryPayout: PayoutPayload }
  | { MembershipPolicy: MembershipPolicyPayload }
  | { ConstitutionalAmendment: AmendmentPayload };

export interface CreateProposalArgs {
  title: string;
  body: string;
  category: ProposalCategory;
  payload?: ProposalPayload;
  /** Decision G7: a trusted proposer (the bridge) names the member it submits for. */
  proposer?: string;
}

export interface Proposal {
  id: bigint;
  title: string;
  body: string;
  category: ProposalCategory;
  proposed_by: string;
  created_at: bigint;
  voting_opens: bigint;
  voting_closes: bigint;
  status: ProposalStatus;
  payload?: ProposalPayload;
  tally?: VoteTally;
  /** Decision G52: an executed amendment's rules as they were just before it applied (get_settings' shape). */
  rules_before?: SettingsSnapshot;
}

/** The rules in force at one instant, as get_settings answers them (decision G52). */
export interface SettingsSnapshot {
  rules: Array<{ category: ProposalCategory; quorum_bps: number; threshold_bps: number; voting_window: bigint }>;
  voting_delay: bigint;
  execution_window: bigint;
}

export interface ListProposalsArgs {
  status?: ProposalStatus;
  category?: ProposalCategory;
  from_id?: bigint;
  limit?: number;
}

/** Decision G9; `delegate` and `reason` added by decisions G28 and G34 (absent on older records). */
export interface VoteRecord {
  voter: string;
  vote: Vote;
  voted_at: bigint;
  /** 0 for a ballot counted through a delegate at close (decision G31): it has no receipt token. */
  receipt_token_id: bigint;
  /** Decision G31: the member whose direct vote this ballot follows; absent for a direct vote. */
  delegate?: string;
  /** Decision G34: the voter's reason, as OpenZeppelin's castVoteWithReason. */
  reason?: string;
}

/** Decision G28: what a delegation covers: one category, or every category (`All`) where no per-category one applies. */
export type DelegationScope = ProposalCategory | 'All';

/** One step of a member's delegation history for a scope (decision G30): in force from strictly after `since`. */
export interface DelegationEntry {
  /** Absent: the delegation for this scope was revoked at `since`. */
  delegate?: string;
  since: bigint;
  /** Decision G33: the delegate may see this member's principal in their list of delegators. */
  show_name: boolean;
}

/** A member's current delegation for a scope, as get_my_delegations answers it. */
export interface Delegation {
  category?: ProposalCategory;
  delegate: string;
  since: bigint;
  show_name: boolean;
}

export interface SetDelegationArgs {
  /** Absent: all categories (decision G28). */
  category?: ProposalCategory;
  delegate: string;
  show_name?: boolean;
}

export type DelegationError =
  | { NotAMember: null }
  | { DelegateNotAMember: null }
  | { SelfDelegation: null }
  | { NotDelegating: null }
  | { MembershipUnavailable: string };

/** Decision G32: the caller's ballot on a proposal: direct, or a delegate's vote counted for them. */
export interface Ballot {
  vote: Vote;
  /** Absent: voted directly. */
  delegate?: string;
  reason?: string;
  /** False while the window is open and the ballot is a delegate's (the member may still vote themselves). */
  final: boolean;
}

/** Decision G32: turnout split into direct votes and votes counted through delegates. */
export interface Turnout {
  direct: bigint;
  delegated: bigint;
  /** True once the delegated votes are counted (after close); while open `delegated` is 0. */
  delegated_counted: boolean;
}

export interface DelegatorsPage {
  /** Current delegations to the caller (a member delegating several categories counts once per category). */
  total: bigint;
  items: Array<{ key: string; member?: string; category?: ProposalCategory }>;
}

/** Decision G34: a reason given with a vote, without its voter (spec 1 Authentication rule 2). */
export interface VoteReason {
  seq: bigint;
  vote: Vote;
  reason: string;
}

export type GovernanceError =
  | { NotAuthorized: null }
  | { NotAMember: null }
  | { ProposalNotFound: null }
  | { ProposalNotOpen: null }
  | { AlreadyVoted: null }
  | { VotingWindowClosed: null }
  | { InvalidPayload: string }
  | { PriceStale: null }
  | { QuorumNotMet: null }
  | { ExecutionFailed: string };

/** Decision G9: the GovernanceError variants cast_vote can return, plus an unreachable membership canister. */
export type VoteError =
  | { NotAMember: null }
  | { ProposalNotFound: null }
  | { ProposalNotOpen: null }
  | { VotingWindowClosed: null }
  | { AlreadyVoted: null }
  | { MembershipUnavailable: string }
  /** Decision G23: the caller is Active now but was not when the window opened (`opened_at`, the instant total_eligible was counted). */
  | { NotActiveWhenVotingOpened: { opened_at: bigint } };

/** Decision G34: cast_vote_with_reason's errors: cast_vote's, and a reason over the limit. */
export type VoteWithReasonError = VoteError | { ReasonTooLong: { max: number } };

export interface UpdateDomPriceArgs {
  proposal_id: bigint;
  price_usd: number;
  effective_at?: bigint;
  expires_at?: bigint;
  source_url?: string;
}

/** Decision G13: the admin event log. */
export type AdminEventKind =
  | { ProposalCreated: { proposal_id: bigint; category: ProposalCategory; proposed_by: string } }
  | { StatusChanged: { proposal_id: bigint; from: ProposalStatus; to: ProposalStatus } }
  | {
      PriceUpdated: {
        proposal_id: bigint;
        price_usd: number;
        effective_at: bigint;
        expires_at?: bigint;
        source_url?: string;
      };
    }
  | { ExecutionFailed: { proposal_id: bigint; attempt: number; message: string } }
  | { ConfigChanged: { proposal_id: bigint } };

export interface AdminEvent {
  id: bigint;
  at: bigint;
  kind: AdminEventKind;
}

export interface GovernanceSettings {
  rules: Record<ProposalCategory, CategoryRules>;
  voting_delay: bigint;
  execution_window: bigint;
}

export interface GovernanceInit {
  /** This canister's own principal: DomPriceTick.set_by. */
  self: string;
  membership_canister: string;
  treasury_canister: string;
  /** Decision G50: the campaign canister, asked to read a ratified price at once; without it campaigns wait for their timer. */
  campaign_canister?: string;
  admins: string[];
  /** Decision G7: principals (the bridge) that may submit proposals without holding a membership. */
  trusted_proposers: string[];
}

export interface GovernanceConfig extends GovernanceInit, GovernanceSettings {
  execution_retry_interval: bigint;
}

/** What the core remembers about a proposal (the public Proposal is derived from it). */
export interface ProposalRecord {
  id: bigint;
  title: string;
  body: string;
  category: ProposalCategory;
  proposed_by: string;
  created_at: bigint;
  voting_opens: bigint;
  voting_closes: bigint;
  status: ProposalStatus;
  payload?: ProposalPayload;
  /** The category's rules in force at creation: fixed for this proposal (spec 1 rule 2). */
  rules: CategoryRules;
  /** Active members when the window opened: the quorum base. Absent until it opens. */
  total_eligible?: bigint;
  /**
   * The membership canister's instant of that count (decision G23): only members Active then vote.
   * Absent until the window opens, and on proposals opened by a release before it (voting_opens stands in).
   */
  eligible_at?: bigint;
  yes_votes: bigint;
  no_votes: bigint;
  abstentions: bigint;
  /** Approved proposals must execute before this (voting_closes + execution window in force at creation). */
  execution_deadline: bigint;
  execution_attempts: number;
  last_attempt_at?: bigint;
  /** Vote-pass receipts still to burn after finalization. */
  receipts_pending: boolean;
  /** The last vote key whose receipt a step handled (decision G21): the next step goes on after it. */
  receipts_burned_to?: string;
  /**
   * Decision G31: delegated votes are still to be counted after close (set at opening when any
   * delegation exists); the proposal stays Tallied until they are.
   */
  delegation_pending?: boolean;
  /** The last delegating member a counting step handled (decision G31). */
  delegation_counted_to?: string;
  /** Votes counted through delegates (decision G32); absent: none. */
  delegated_votes?: bigint;
  /** Decision G52: an amendment's rules just before its execution applied them; absent on other proposals and older records. */
  rules_before?: SettingsSnapshot;
}

export interface Receipt {
  token_id: bigint;
  owner: string;
  proposal_id: bigint;
  minted_at: bigint;
}

/** The other canisters governance calls; injected by the host (in-process or real inter-canister calls). */
export interface GovernanceDeps {
  membership: {
    get_membership_status(owner: string): Promise<{ is_active: boolean } | undefined>;
    /** The quorum base and the instant it holds for (decision G23). */
    active_member_snapshot(): Promise<{ count: bigint; at: bigint }>;
    /** Active now, and Active at `at` (decision G23). */
    voting_eligibility(owner: string, at: bigint): Promise<{ active_now: boolean; active_at: boolean }>;
    apply_policy(policy: MembershipPolicyPayload): Promise<{ Ok: null } | { Err: string }>;
  };
  treasury: {
    execute_payout(proposal_id: bigint, payout: PayoutPayload): Promise<{ Ok: unknown } | { Err: unknown }>;
  };
  /** Decision G50: told when a price is ratified, so campaigns value progress at it at once (absent: they wait for their timer). */
  campaign?: {
    refresh_price(): Promise<{ Ok: null } | { Err: unknown }>;
  };
  /** Instructions the current message has run (the IC's performance_counter); absent where there is no limit (decision G20). */
  instructions?(): bigint;
  /** The host's Candid library, to decode the argument a consent message describes (decision G24). */
  candid: Idl;
  /**
   * Development only, embedded host only (decision G45): the voting delay and the voting window every
   * category's new proposals get instead of the settings; not stored, so it ends with the process.
   */
  devVoting?: DevVoting;
}

/** Decision G45: shortened voting times for development (nanoseconds). */
export interface DevVoting {
  delay: bigint;
  window: bigint;
}

/** The governance canister's stable state (store names in GOVERNANCE_STORE_NAMES). */
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
  /**
   * A proposal's running vote counts under their own key (decision P4): a vote
   * writes these three numbers, not the whole proposal. Absent for proposals voted on before it
   * existed, whose counts are still on their record. Last, so its stable memory id is new.
   */
  tallies: Store<bigint, TallyCounts>;
  /**
   * Filtered lists' index (decision W8, proposal-index.ts): each proposal's text size and category,
   * and the final status of those no longer active. Last, so its stable memory id is new.
   */
  proposalIndex: Store<string, number | true>;
  /** Decision G30: `member|scope|u64(since)` → each step of a member's delegation history. New, last. */
  delegations: Store<string, DelegationEntry>;
  /** Decision G31: `member` → true for every member with a delegation history: what counting at close walks. */
  delegating: Store<string, true>;
  /** Decision G33: `delegate|member|scope` → show_name, the current delegations to a delegate. */
  delegators: Store<string, boolean>;
  /** Decision G34: `u64(proposal)|u64(seq)` → a reason given with a vote, without its voter. */
  reasons: Store<string, VoteReason>;
}

export interface TallyCounts {
  yes_votes: bigint;
  no_votes: bigint;
  abstentions: bigint;
  /** Decision G32: how many of them were counted through delegates. */
  delegated_votes?: bigint;
}
