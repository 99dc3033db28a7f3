// The membership canister's Candid interface (spec 2 "Canister operations used by registration",
// "Membership token and status"), for the Azle entry point and the IC agent client.
import {
  enumVariant,
  icrc7Methods,
  query,
  result,
  update,
  type Idl,
  type MethodTable,
} from '@domdao/canister-kit/candid';

export function membershipTypes(I: Idl) {
  const MembershipStatus = enumVariant(I, ['Registered', 'Active', 'Expired', 'Revoked']);
  const MembershipToken = I.Record({
    token_id: I.Nat64,
    owner: I.Principal,
    join_date: I.Nat64,
    status: MembershipStatus,
    tos_accepted_at: I.Nat64,
    expiration_date: I.Nat64,
    is_active: I.Bool,
  });
  const ActiveMemberSnapshot = I.Record({ count: I.Nat64, at: I.Nat64 });
  const VotingEligibility = I.Record({ active_now: I.Bool, active_at: I.Bool });
  const MembershipPolicy = I.Record({
    add_admins: I.Vec(I.Principal),
    remove_admins: I.Vec(I.Principal),
    revoke: I.Vec(I.Principal),
  });
  const InitArgs = I.Record({
    user_canister: I.Principal,
    governance_canister: I.Principal,
    admins: I.Vec(I.Principal),
  });
  return { MembershipStatus, MembershipToken, ActiveMemberSnapshot, VotingEligibility, MembershipPolicy, InitArgs };
}

export function membershipMethods(I: Idl) {
  const t = membershipTypes(I);
  return {
    mint_membership_registered: update([I.Principal, I.Nat64], result(I, I.Nat64, I.Text)),
    upgrade_to_active: update([I.Principal, I.Vec(I.Nat8)], result(I, I.Null, I.Text)),
    revoke_membership: update([I.Principal], result(I, I.Null, I.Text)),
    apply_policy: update([t.MembershipPolicy], result(I, I.Null, I.Text)),
    get_membership_status: query([I.Principal], I.Opt(t.MembershipToken)),
    count_active_members: query([], I.Nat64),
    // Decision M8: the quorum base with its instant, and "Active now, and Active at that instant".
    active_member_snapshot: query([], t.ActiveMemberSnapshot),
    voting_eligibility: query([I.Principal, I.Nat64], t.VotingEligibility),
    ...icrc7Methods(I),
  } satisfies MethodTable;
}
