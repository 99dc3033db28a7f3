// The campaign canister's Candid interface (spec 1 "CampaignGoal", "CampaignProgress", get_campaign),
// for the Azle entry point and the IC agent client.
import { enumVariant, query, result, update, type Idl, type MethodTable } from '@domdao/canister-kit/candid';

export function campaignTypes(I: Idl) {
  const CampaignGoal = I.Variant({ DomTokens: I.Nat, UsdValue: I.Float64 });
  const CampaignProgress = I.Record({
    goal_dom: I.Nat,
    raised_dom: I.Nat,
    raised_usd: I.Opt(I.Float64),
    goal_usd: I.Opt(I.Float64),
    pct_complete: I.Float64,
    price_tick_id: I.Opt(I.Nat64),
  });
  const Account = I.Record({ owner: I.Principal, subaccount: I.Opt(I.Vec(I.Nat8)) });
  const Settled = I.Record({ block_index: I.Nat, amount_e8s: I.Nat, at: I.Nat64 });
  const Campaign = I.Record({
    id: I.Text,
    title: I.Text,
    description: I.Text,
    owner: I.Principal,
    beneficiary: I.Principal,
    goal: CampaignGoal,
    deadline: I.Nat64,
    created_at: I.Nat64,
    status: enumVariant(I, ['Open', 'Succeeded', 'Failed', 'Cancelled']),
    contributions: I.Nat64,
    progress: CampaignProgress,
    escrow: Account,
    released: I.Opt(Settled),
    refunds: I.Nat64,
    settled: I.Bool,
  });
  const CreateCampaignArgs = I.Record({
    title: I.Text,
    description: I.Text,
    goal: CampaignGoal,
    deadline: I.Nat64,
    beneficiary: I.Opt(I.Principal),
  });
  const ContributionAmount = I.Variant({ Dom: I.Nat, Usd: I.Float64 });
  const Contribution = I.Record({
    campaign_id: I.Text,
    seq: I.Nat64,
    contributor: I.Principal,
    amount_e8s: I.Nat,
    usd_value: I.Opt(I.Float64),
    price_tick_id: I.Opt(I.Nat64),
    at: I.Nat64,
    block_index: I.Nat,
    refund: I.Opt(Settled),
  });
  const Donation = I.Record({
    id: I.Nat64,
    donor: I.Principal,
    amount_e8s: I.Nat,
    usd_value: I.Opt(I.Float64),
    price_tick_id: I.Opt(I.Nat64),
    at: I.Nat64,
    block_index: I.Nat,
  });
  const Movement = I.Record({
    id: I.Nat64,
    kind: enumVariant(I, ['contribution', 'release', 'refund', 'burn']),
    campaign: I.Nat64,
    party: I.Principal,
    seq: I.Opt(I.Nat64),
    amount_e8s: I.Nat,
    usd_value: I.Opt(I.Float64),
    price_tick_id: I.Opt(I.Nat64),
    created_at_time: I.Nat64,
    op_id: I.Opt(I.Text),
    last_error: I.Opt(I.Text),
    attempted_at: I.Opt(I.Nat64),
  });
  const CampaignError = I.Variant({
    NotAuthorized: I.Null,
    NotAMember: I.Null,
    CampaignNotFound: I.Null,
    CampaignClosed: I.Null,
    InvalidArgument: I.Text,
    PriceUnavailable: I.Null,
    InsufficientFunds: I.Record({ balance: I.Nat }),
    InsufficientAllowance: I.Record({ allowance: I.Nat }),
    LedgerError: I.Text,
  });
  const InitArgs = I.Record({
    governance_canister: I.Principal,
    membership_canister: I.Principal,
    ledger_canister: I.Principal,
    admins: I.Vec(I.Principal),
    price_max_age: I.Opt(I.Nat64),
  });
  return {
    Account,
    Settled,
    Campaign,
    CampaignGoal,
    CampaignProgress,
    CreateCampaignArgs,
    ContributionAmount,
    Contribution,
    Donation,
    Movement,
    CampaignError,
    InitArgs,
  };
}

export function campaignMethods(I: Idl) {
  const t = campaignTypes(I);
  return {
    create_campaign: update([t.CreateCampaignArgs], result(I, I.Text, t.CampaignError)),
    contribute: update([I.Text, t.ContributionAmount, I.Opt(I.Text)], result(I, t.Contribution, t.CampaignError)),
    burn_donation: update([t.ContributionAmount, I.Opt(I.Text)], result(I, t.Donation, t.CampaignError)),
    settle_campaign: update([I.Text], result(I, t.Campaign, t.CampaignError)),
    reconcile_movement: update([I.Nat64, I.Opt(I.Nat)], result(I, I.Null, t.CampaignError)),
    cancel_campaign: update([I.Text], result(I, I.Null, t.CampaignError)),
    refresh_price: update([], result(I, I.Null, t.CampaignError)),
    get_campaign: query([I.Text], I.Opt(t.Campaign)),
    list_campaigns: query([I.Opt(I.Text), I.Opt(I.Nat32)], I.Vec(t.Campaign)),
    list_contributions: query([I.Text, I.Opt(I.Nat64), I.Opt(I.Nat32)], I.Vec(t.Contribution)),
    list_contributions_by: query([I.Principal, I.Opt(I.Nat32)], I.Vec(t.Contribution)),
    list_donations: query([I.Opt(I.Nat64), I.Opt(I.Nat32)], I.Vec(t.Donation)),
    list_pending_movements: query([], I.Vec(t.Movement)),
  } satisfies MethodTable;
}
