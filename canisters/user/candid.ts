// The user canister's Candid interface (spec 2 "User account", "Other records"), for the Azle entry
// point and the IC agent client.
import { enumVariant, query, result, update, type Idl, type MethodTable } from '@domdao/canister-kit/candid';

export function userTypes(I: Idl) {
  const CreateAccountRequest = I.Record({
    email_encrypted: I.Text,
    name_encrypted: I.Text,
    dob_encrypted: I.Text,
    password_hash: I.Text,
    tos_accepted_at: I.Nat64,
    principal: I.Principal,
    is_age_verified_18_plus: I.Bool,
  });
  const CreateAccountResponse = I.Record({ principal: I.Principal, verification_token: I.Text, expires_at: I.Nat64 });
  const UpgradeMembershipRequest = I.Record({
    principal: I.Principal,
    kyc_proof: I.Vec(I.Nat8),
    payment_proof: I.Vec(I.Nat8),
  });
  const VerifyEmailResponse = I.Record({ principal: I.Principal, membership_token_id: I.Opt(I.Nat64) });
  const Account = I.Record({
    principal: I.Principal,
    email_encrypted: I.Text,
    name_encrypted: I.Text,
    is_age_verified_18_plus: I.Bool,
    email_verified: I.Bool,
    kyc_verified: I.Bool,
    membership_token_id: I.Opt(I.Nat64),
    tos_accepted_at: I.Nat64,
    created_at: I.Nat64,
    updated_at: I.Nat64,
  });
  const RetryQueueItem = I.Record({
    user_principal: I.Principal,
    operation: enumVariant(I, ['MintRegistered', 'UpgradeToActive']),
    attempts: I.Nat8,
    last_attempt: I.Nat64,
    next_attempt: I.Nat64,
    last_error: I.Text,
  });
  const AdminNotification = I.Record({
    id: I.Nat64,
    type: I.Text,
    user_principal: I.Principal,
    email_encrypted: I.Text,
    attempts: I.Nat8,
    last_error: I.Text,
    at: I.Nat64,
  });
  const UserError = I.Variant({
    NotAuthorized: I.Null,
    AccountExists: I.Null,
    AccountNotFound: I.Null,
    InvalidRequest: I.Text,
    TokenInvalid: I.Null,
    TokenExpired: I.Null,
    EmailNotVerified: I.Null,
    NotRegistered: I.Null,
    Under18: I.Null,
    KycNotApproved: I.Null,
    MembershipCallFailed: I.Text,
    InProgress: I.Null,
  });
  const InitArgs = I.Record({
    membership_canister: I.Principal,
    registrars: I.Vec(I.Principal),
    admins: I.Vec(I.Principal),
  });
  return {
    CreateAccountRequest,
    CreateAccountResponse,
    UpgradeMembershipRequest,
    VerifyEmailResponse,
    Account,
    RetryQueueItem,
    AdminNotification,
    UserError,
    InitArgs,
  };
}

export function userMethods(I: Idl) {
  const t = userTypes(I);
  return {
    // The trailing `opt text` is the operation id (decision U5): a repeat gets the first answer.
    create_account: update([t.CreateAccountRequest, I.Opt(I.Text)], result(I, t.CreateAccountResponse, t.UserError)),
    reissue_verification_token: update([I.Principal], result(I, t.CreateAccountResponse, t.UserError)),
    verify_email: update([I.Text, I.Opt(I.Text)], result(I, t.VerifyEmailResponse, t.UserError)),
    record_kyc: update([I.Principal, I.Bool, I.Opt(I.Text)], result(I, I.Null, t.UserError)),
    upgrade_membership_to_active: update([t.UpgradeMembershipRequest, I.Opt(I.Text)], result(I, I.Null, t.UserError)),
    remove_unverified_account: update([I.Principal, I.Opt(I.Text)], result(I, I.Null, t.UserError)),
    set_password_hash: update([I.Principal, I.Text, I.Opt(I.Text)], result(I, I.Null, t.UserError)),
    get_account: query([I.Principal], I.Opt(t.Account)),
    list_retry_queue: query([], I.Vec(t.RetryQueueItem)),
    list_admin_notifications: query([I.Opt(I.Nat64), I.Opt(I.Nat32)], I.Vec(t.AdminNotification)),
  } satisfies MethodTable;
}
