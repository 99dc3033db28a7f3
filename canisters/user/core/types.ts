// The user canister's records, errors, stores and dependencies (spec 2 "User account",
// "Email verification token", "RetryQueueItem"), shared by accounts.ts and retry-queue.ts.
import type { Store } from '@domdao/canister-kit';

export const NS_PER_MINUTE = 60_000_000_000n;
export const VERIFICATION_TTL = 24n * 60n * NS_PER_MINUTE;
/** Spec 2 Limits "mint retry": every 5 minutes, exponential backoff, at most 10 attempts. */
export const RETRY_BASE = 5n * NS_PER_MINUTE;
export const MAX_ATTEMPTS = 10;
export const MAX_CIPHERTEXT_CHARS = 8_192;
export const MAX_PROOF_BYTES = 64 * 1024;

export interface CreateAccountRequest {
  email_encrypted: string;
  name_encrypted: string;
  dob_encrypted: string;
  password_hash: string;
  tos_accepted_at: bigint;
  /** Decision U1: the account's principal, chosen by the registrar (the bridge). */
  principal: string;
  /** Decision U1: derived by the bridge from the decrypted date of birth. */
  is_age_verified_18_plus: boolean;
}

export interface UpgradeMembershipRequest {
  principal: string;
  kyc_proof: Uint8Array;
  payment_proof: Uint8Array;
}

export interface AccountRecord {
  principal: string;
  email_encrypted: string;
  name_encrypted: string;
  dob_encrypted: string;
  password_hash: string;
  is_age_verified_18_plus: boolean;
  email_verified: boolean;
  kyc_verified: boolean;
  membership_token_id?: bigint;
  tos_accepted_at: bigint;
  created_at: bigint;
  updated_at: bigint;
}

/** What get_account returns: never the date of birth (not even its ciphertext) nor the password hash. */
export type AccountView = Omit<AccountRecord, 'dob_encrypted' | 'password_hash'>;

export interface VerificationToken {
  user_principal: string;
  token: string;
  expires_at: bigint;
}

export type RetryOperation = 'MintRegistered' | 'UpgradeToActive';
export interface RetryQueueItem {
  user_principal: string;
  operation: RetryOperation;
  attempts: number;
  last_attempt: bigint;
  next_attempt: bigint;
  last_error: string;
}

export interface AdminNotification {
  id: bigint;
  type: 'membership_mint_failed';
  user_principal: string;
  email_encrypted: string;
  attempts: number;
  last_error: string;
  at: bigint;
}

export interface CreateAccountResponse {
  principal: string;
  verification_token: string;
  expires_at: bigint;
}

export interface VerifyEmailResponse {
  principal: string;
  /** Absent when minting failed and the account waits in the retry queue. */
  membership_token_id?: bigint;
}

export type UserError =
  | { NotAuthorized: null }
  | { AccountExists: null }
  | { AccountNotFound: null }
  | { InvalidRequest: string }
  | { TokenInvalid: null }
  | { TokenExpired: null }
  | { EmailNotVerified: null }
  | { NotRegistered: null }
  | { Under18: null }
  | { KycNotApproved: null }
  | { MembershipCallFailed: string }
  /** Decision U5: a call with this op id is still running (the IC interleaved a repeat); ask again. */
  | { InProgress: null };

/** Decision U5: the answer given to an operation id, replayed on a repeat. */
export interface OperationRecord {
  op_id: string;
  method: string;
  /** Position in opOrder (oldest first, for pruning). */
  seq: bigint;
  at: bigint;
  result: unknown;
}

export interface UserConfig {
  /** Principals that run registration (the bridge). */
  registrars: string[];
  admins: string[];
  /** Where process_retry_queue's last step stopped reading (decision U8); absent: at the start. */
  retry_cursor?: string;
}

export interface UserStores {
  config: Store<'config', UserConfig>;
  accounts: Store<string, AccountRecord>;
  /** token → its record; one live token per account. */
  tokens: Store<string, VerificationToken>;
  /** principal → its live token. */
  tokenOf: Store<string, string>;
  /** principal → queued retry (MintRegistered). */
  retries: Store<string, RetryQueueItem>;
  notifications: Store<bigint, AdminNotification>;
  counters: Store<string, bigint>;
  /** Decision U5: op id → the answer it got. */
  ops: Store<string, OperationRecord>;
  /** Decision U5: seq → op id, oldest first (retention and the MAX_OPS bound). */
  opOrder: Store<bigint, string>;
}

export const USER_STORE_NAMES: Record<keyof UserStores, string> = {
  config: 'config',
  accounts: 'accounts',
  tokens: 'tokens',
  tokenOf: 'token_of',
  retries: 'retries',
  notifications: 'notifications',
  counters: 'counters',
  // New stores go last: on the IC a store's memory id is its position here.
  ops: 'ops',
  opOrder: 'op_order',
};

export interface UserDeps {
  membership: {
    mint_membership_registered(owner: string, tos_accepted_at: bigint): Promise<{ Ok: bigint } | { Err: string }>;
    upgrade_to_active(owner: string, payment_proof: Uint8Array): Promise<{ Ok: null } | { Err: string }>;
    get_membership_status(owner: string): Promise<{ token_id: bigint } | undefined>;
  };
  /** 16 random bytes: raw_rand on the IC, the OS generator embedded. */
  randomBytes(): Promise<Uint8Array>;
}
