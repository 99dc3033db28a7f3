// The governance canister's Candid interface (spec 1 "Governance canister operations"), written once
// for the Azle entry point and the IC agent client. governance.did is generated from it by azle build.
import { enumVariant, query, result, update, type Idl, type MethodTable } from '@domdao/canister-kit/candid';
import { icrc21Methods, icrc7Methods } from '@domdao/canister-kit/candid';
import { CATEGORIES } from './core/rules/categories.ts';
import { PROPOSAL_STATUSES } from './core/types.ts';

export function governanceTypes(I: Idl) {
  const ProposalCategory = enumVariant(I, CATEGORIES);
  const ProposalStatus = enumVariant(I, PROPOSAL_STATUSES);
  const Vote = enumVariant(I, ['Yes', 'No', 'Abstain']);
  const SetDomPricePayload = I.Record({
    price_usd: I.Float64,
    effective_at: I.Opt(I.Nat64),
    source_url: I.Opt(I.Text),
    expires_at: I.Opt(I.Nat64),
  });
  const PayoutPayload = I.Record({
    recipient: I.Principal,
    amount: I.Variant({ DomE8s: I.Nat, Usd: I.Float64 }),
    memo: I.Opt(I.Text),
  });
  const MembershipPolicyPayload = I.Record({
    add_admins: I.Vec(I.Principal),
    remove_admins: I.Vec(I.Principal),
    revoke: I.Vec(I.Principal),
  });
  const CategoryRulesChange = I.Record({
    category: ProposalCategory,
    quorum_bps: I.Opt(I.Nat16),
    threshold_bps: I.Opt(I.Nat16),
    voting_window: I.Opt(I.Nat64),
  });
  const AmendmentPayload = I.Record({
    category_rules: I.Vec(CategoryRulesChange),
    voting_delay: I.Opt(I.Nat64),
    execution_window: I.Opt(I.Nat64),
  });
  const ProposalPayload = I.Variant({
    SetDomPrice: SetDomPricePayload,
    TreasuryPayout: PayoutPayload,
    MembershipPolicy: MembershipPolicyPayload,
    ConstitutionalAmendment: AmendmentPayload,
  });
  const VoteTally = I.Record({
    yes_votes: I.Nat64,
    no_votes: I.Nat64,
    abstentions: I.Nat64,
    total_eligible: I.Nat64,
    quorum_met: I.Bool,
    threshold_met: I.Bool,
  });
  const GovernanceSettings = I.Record({
    rules: I.Vec(
      I.Record({ category: ProposalCategory, quorum_bps: I.Nat16, threshold_bps: I.Nat16, voting_window: I.Nat64 }),
    ),
    voting_delay: I.Nat64,
    execution_window: I.Nat64,
  });
  const Proposal = I.Record({
    id: I.Nat64,
    title: I.Text,
    body: I.Text,
    category: ProposalCategory,
    proposed_by: I.Principal,
    created_at: I.Nat64,
    voting_opens: I.Nat64,
    voting_closes: I.Nat64,
    status: ProposalStatus,
    payload: I.Opt(ProposalPayload),
    tally: I.Opt(VoteTally),
    // Decision G52: optional, so clients built before it still decode a proposal.
    rules_before: I.Opt(GovernanceSettings),
  });
  const CreateProposalArgs = I.Record({
    title: I.Text,
    body: I.Text,
    category: ProposalCategory,
    payload: I.Opt(ProposalPayload),
    proposer: I.Opt(I.Principal),
  });
  const ListProposalsArgs = I.Record({
    status: I.Opt(ProposalStatus),
    category: I.Opt(ProposalCategory),
    from_id: I.Opt(I.Nat64),
    limit: I.Opt(I.Nat32),
  });
  const GovernanceError = I.Variant({
    NotAuthorized: I.Null,
    NotAMember: I.Null,
    ProposalNotFound: I.Null,
    ProposalNotOpen: I.Null,
    AlreadyVoted: I.Null,
    VotingWindowClosed: I.Null,
    InvalidPayload: I.Text,
    PriceStale: I.Null,
    QuorumNotMet: I.Null,
    ExecutionFailed: I.Text,
  });
  const voteErrors = {
    NotAMember: I.Null,
    ProposalNotFound: I.Null,
    ProposalNotOpen: I.Null,
    VotingWindowClosed: I.Null,
    AlreadyVoted: I.Null,
    MembershipUnavailable: I.Text,
    // Decision G23: Active now, but not when the window opened (the instant total_eligible was counted).
    NotActiveWhenVotingOpened: I.Record({ opened_at: I.Nat64 }),
  };
  const VoteError = I.Variant(voteErrors);
  // Decisions G31, G34: opt fields at the end of the record; older clients decode it and ignore them.
  const VoteRecord = I.Record({
    voter: I.Principal,
    vote: Vote,
    voted_at: I.Nat64,
    receipt_token_id: I.Nat,
    delegate: I.Opt(I.Principal),
    reason: I.Opt(I.Text),
  });
  // cast_vote's errors and one more: a new variant, so cast_vote's clients see no change (decision G34).
  const VoteWithReasonError = I.Variant({ ...voteErrors, ReasonTooLong: I.Record({ max: I.Nat32 }) });
  const VoteReason = I.Record({ seq: I.Nat64, vote: Vote, reason: I.Text });
  const SetDelegationArgs = I.Record({
    category: I.Opt(ProposalCategory),
    delegate: I.Principal,
    show_name: I.Opt(I.Bool),
  });
  const Delegation = I.Record({
    category: I.Opt(ProposalCategory),
    delegate: I.Principal,
    since: I.Nat64,
    show_name: I.Bool,
  });
  const DelegationError = I.Variant({
    NotAMember: I.Null,
    DelegateNotAMember: I.Null,
    SelfDelegation: I.Null,
    NotDelegating: I.Null,
    MembershipUnavailable: I.Text,
  });
  const DelegatorsPage = I.Record({
    total: I.Nat64,
    items: I.Vec(I.Record({ key: I.Text, member: I.Opt(I.Principal), category: I.Opt(ProposalCategory) })),
  });
  const Ballot = I.Record({ vote: Vote, delegate: I.Opt(I.Principal), reason: I.Opt(I.Text), final: I.Bool });
  const Turnout = I.Record({ direct: I.Nat64, delegated: I.Nat64, delegated_counted: I.Bool });
  const DomPriceTick = I.Record({
    price_usd: I.Float64,
    set_by: I.Principal,
    proposal_id: I.Nat64,
    timestamp: I.Nat64,
  });
  const UpdateDomPriceArgs = I.Record({
    proposal_id: I.Nat64,
    price_usd: I.Float64,
    effective_at: I.Opt(I.Nat64),
    expires_at: I.Opt(I.Nat64),
    source_url: I.Opt(I.Text),
  });
  const AdminEventKind = I.Variant({
    ProposalCreated: I.Record({ proposal_id: I.Nat64, category: ProposalCategory, proposed_by: I.Principal }),
    StatusChanged: I.Record({ proposal_id: I.Nat64, from: ProposalStatus, to: ProposalStatus }),
    PriceUpdated: I.Record({
      proposal_id: I.Nat64,
      price_usd: I.Float64,
      effective_at: I.Nat64,
      expires_at: I.Opt(I.Nat64),
      source_url: I.Opt(I.Text),
    }),
    ExecutionFailed: I.Record({ proposal_id: I.Nat64, attempt: I.Nat32, message: I.Text }),
    ConfigChanged: I.Record({ proposal_id: I.Nat64 }),
  });
  const AdminEvent = I.Record({ id: I.Nat64, at: I.Nat64, kind: AdminEventKind });
  const InitArgs = I.Record({
    membership_canister: I.Principal,
    treasury_canister: I.Principal,
    // Decision G50: optional, so an upgrade with the arguments of before keeps working (campaigns then wait for their
    // timer).
    campaign_canister: I.Opt(I.Principal),
    admins: I.Vec(I.Principal),
    trusted_proposers: I.Vec(I.Principal),
  });
  return {
    ProposalCategory,
    Proposal,
    CreateProposalArgs,
    ListProposalsArgs,
    GovernanceError,
    VoteError,
    VoteWithReasonError,
    VoteReason,
    SetDelegationArgs,
    Delegation,
    DelegationError,
    DelegatorsPage,
    Ballot,
    Turnout,
    Vote,
    VoteTally,
    VoteRecord,
    DomPriceTick,
    UpdateDomPriceArgs,
    AdminEvent,
    GovernanceSettings,
    InitArgs,
  };
}

export function governanceMethods(I: Idl) {
  const t = governanceTypes(I);
  const unit = (err: typeof t.GovernanceError) => result(I, I.Null, err);
  return {
    create_proposal: update([t.CreateProposalArgs], result(I, I.Nat64, t.GovernanceError)),
    get_proposal: query([I.Nat64], I.Opt(t.Proposal)),
    list_proposals: query([t.ListProposalsArgs], I.Vec(t.Proposal)),
    cast_vote: update([I.Nat64, t.Vote], result(I, I.Null, t.VoteError)),
    get_tally: query([I.Nat64], I.Opt(t.VoteTally)),
    get_my_vote: query([I.Nat64], I.Opt(t.Vote)),
    // Decision G46: when an Approved proposal expires unless executed.
    get_execution_deadline: query([I.Nat64], I.Opt(I.Nat64)),
    list_votes: query([I.Nat64], I.Vec(t.VoteRecord)),
    // Decision V25: paged beside the spec's list_votes (proposal, after voter, page size).
    list_votes_page: query([I.Nat64, I.Opt(I.Principal), I.Opt(I.Nat32)], I.Vec(t.VoteRecord)),
    execute_proposal: update([I.Nat64], unit(t.GovernanceError)),
    update_dom_price: update([t.UpdateDomPriceArgs], unit(t.GovernanceError)),
    get_dom_price: query([], I.Opt(t.DomPriceTick)),
    list_price_history: query([I.Opt(I.Nat32)], I.Vec(t.DomPriceTick)),
    list_admin_events: query([I.Opt(I.Nat64), I.Opt(I.Nat32)], I.Vec(t.AdminEvent)),
    get_settings: query([], t.GovernanceSettings),
    // Decision G34: a vote with a reason, and the reasons without their voters.
    cast_vote_with_reason: update([I.Nat64, t.Vote, I.Text], result(I, I.Null, t.VoteWithReasonError)),
    list_vote_reasons: query([I.Nat64, I.Opt(I.Nat64), I.Opt(I.Nat32)], I.Vec(t.VoteReason)),
    // Decisions G28–G33: liquid democracy.
    set_delegation: update([t.SetDelegationArgs], result(I, I.Null, t.DelegationError)),
    revoke_delegation: update([I.Opt(t.ProposalCategory)], result(I, I.Null, t.DelegationError)),
    get_my_delegations: query([], I.Vec(t.Delegation)),
    list_my_delegators: query([I.Opt(I.Text), I.Opt(I.Nat32)], t.DelegatorsPage),
    get_my_ballot: query([I.Nat64], I.Opt(t.Ballot)),
    get_turnout: query([I.Nat64], I.Opt(t.Turnout)),
    list_represented: query(
      [I.Nat64, I.Principal, I.Opt(I.Text), I.Opt(I.Nat32)],
      I.Record({ members: I.Vec(I.Principal), next: I.Opt(I.Text) }),
    ),
    ...icrc7Methods(I),
    // ICRC-21 consent messages for cast_vote and create_proposal (decision G24).
    ...icrc21Methods(I),
  } satisfies MethodTable;
}
