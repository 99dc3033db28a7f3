// The user canister's core (spec 2 "User account", "Email verification token", "RetryQueueItem"):
// accounts holding client-side ciphertext, the 24-hour verification token, minting of the Registered
// membership on verification with a durable retry queue, and the upgrade to Active.
// Age flags are derived by the bridge, the only party that can decrypt the date of birth (decision U1);
// this canister stores the ciphertext and the flag, and never returns dob_encrypted or password_hash.
import { clampLimit, Err, Ok, type CallContext, type Result, type Store } from '@domdao/canister-kit';

export const NS_PER_MINUTE = 60_000_000_000n;
export const VERIFICATION_TTL = 24n * 60n * NS_PER_MINUTE;
/** Spec 2 Limits "mint retry": every 5 minutes, exponential backoff, at most 10 attempts. */
export const RETRY_BASE = 5n * NS_PER_MINUTE;
export const MAX_ATTEMPTS = 10;
export const MAX_CIPHERTEXT_CHARS = 8_192;
export const MAX_PROOF_BYTES = 64 * 1024;
const ANONYMOUS = '2vxsx-fae';

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
  | { MembershipCallFailed: string };

export interface UserConfig {
  /** Principals that run registration (the bridge). */
  registrars: string[];
  admins: string[];
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
}

export const USER_STORE_NAMES: Record<keyof UserStores, string> = {
  config: 'config',
  accounts: 'accounts',
  tokens: 'tokens',
  tokenOf: 'token_of',
  retries: 'retries',
  notifications: 'notifications',
  counters: 'counters',
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

/** RFC 9562 version 4 UUID text from 16 random bytes. */
export function uuidV4(bytes: Uint8Array): string {
  const b = Uint8Array.from(bytes.subarray(0, 16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Spec 2 "mint retry": the n-th failure waits 5 min × 2^(n−1) before the next attempt. */
export function retryDelay(attempts: number): bigint {
  return RETRY_BASE * 2n ** BigInt(Math.max(0, attempts - 1));
}

export function userCore(stores: UserStores, deps: UserDeps) {
  const config = (): UserConfig => {
    const c = stores.config.get('config');
    if (!c) throw new Error('user canister not initialised');
    return c;
  };
  const isRegistrar = (p: string) => config().registrars.includes(p);
  const isStaff = (p: string) => isRegistrar(p) || config().admins.includes(p);
  const view = (a: AccountRecord): AccountView => {
    const { dob_encrypted: _d, password_hash: _p, ...rest } = a;
    return rest;
  };
  const issueToken = async (principal: string, now: bigint): Promise<VerificationToken> => {
    const token = uuidV4(await deps.randomBytes());
    return { user_principal: principal, token, expires_at: now + VERIFICATION_TTL };
  };
  const storeToken = (t: VerificationToken) => {
    const old = stores.tokenOf.get(t.user_principal);
    if (old !== undefined) stores.tokens.delete(old);
    stores.tokens.set(t.token, t);
    stores.tokenOf.set(t.user_principal, t.token);
  };

  /** One mint attempt; an "already exists" answer means an earlier attempt succeeded (its reply was lost). */
  const mint = async (a: AccountRecord): Promise<{ Ok: bigint } | { Err: string }> => {
    try {
      const r = await deps.membership.mint_membership_registered(a.principal, a.tos_accepted_at);
      if ('Ok' in r) return r;
      const existing = await deps.membership.get_membership_status(a.principal);
      return existing ? { Ok: existing.token_id } : r;
    } catch (e) {
      return { Err: `membership canister unavailable: ${e instanceof Error ? e.message : String(e)}` };
    }
  };

  /** Records a mint outcome (after its awaits): token id on the account, or the retry queue / notification. */
  const recordMint = (principal: string, outcome: { Ok: bigint } | { Err: string }, now: bigint, attempts: number): bigint | undefined => {
    const a = stores.accounts.get(principal)!;
    if ('Ok' in outcome) {
      stores.accounts.set(principal, { ...a, membership_token_id: outcome.Ok, updated_at: now });
      stores.retries.delete(principal);
      return outcome.Ok;
    }
    if (attempts >= MAX_ATTEMPTS) {
      stores.retries.delete(principal);
      const id = stores.counters.get('notification') ?? 1n;
      stores.counters.set('notification', id + 1n);
      stores.notifications.set(id, {
        id,
        type: 'membership_mint_failed',
        user_principal: principal,
        email_encrypted: a.email_encrypted,
        attempts,
        last_error: outcome.Err,
        at: now,
      });
      return undefined;
    }
    stores.retries.set(principal, {
      user_principal: principal,
      operation: 'MintRegistered',
      attempts,
      last_attempt: now,
      next_attempt: now + retryDelay(attempts),
      last_error: outcome.Err,
    });
    return undefined;
  };

  return {
    init(init: UserConfig): void {
      if (stores.config.has('config')) throw new Error('already initialised');
      stores.config.set('config', { registrars: [...init.registrars], admins: [...init.admins] });
    },

    /** Spec 2 registration rule 3, after the bridge's checks: the account and its 24-hour token. */
    async create_account(ctx: CallContext, req: CreateAccountRequest): Promise<Result<CreateAccountResponse, UserError>> {
      if (!isRegistrar(ctx.caller)) return Err({ NotAuthorized: null });
      const problem = createProblem(req, ctx.now);
      if (problem) return Err({ InvalidRequest: problem });
      if (stores.accounts.has(req.principal)) return Err({ AccountExists: null });
      const token = await issueToken(req.principal, ctx.now);
      if (stores.accounts.has(req.principal)) return Err({ AccountExists: null });
      stores.accounts.set(req.principal, {
        principal: req.principal,
        email_encrypted: req.email_encrypted,
        name_encrypted: req.name_encrypted,
        dob_encrypted: req.dob_encrypted,
        password_hash: req.password_hash,
        is_age_verified_18_plus: req.is_age_verified_18_plus,
        email_verified: false,
        kyc_verified: false,
        tos_accepted_at: req.tos_accepted_at,
        created_at: ctx.now,
        updated_at: ctx.now,
      });
      storeToken(token);
      return Ok({ principal: req.principal, verification_token: token.token, expires_at: token.expires_at });
    },

    /** A new 24-hour token for an unverified account; the previous one stops working. */
    async reissue_verification_token(ctx: CallContext, principal: string): Promise<Result<CreateAccountResponse, UserError>> {
      if (!isRegistrar(ctx.caller)) return Err({ NotAuthorized: null });
      const a = stores.accounts.get(principal);
      if (!a) return Err({ AccountNotFound: null });
      if (a.email_verified) return Err({ InvalidRequest: 'the email address is already verified' });
      const token = await issueToken(principal, ctx.now);
      storeToken(token);
      return Ok({ principal, verification_token: token.token, expires_at: token.expires_at });
    },

    /**
     * Spec 2 rule 4: the token must exist, be unexpired and belong to the account; then email_verified,
     * and the Registered membership is minted, or the account joins the retry queue.
     */
    async verify_email(ctx: CallContext, token: string): Promise<Result<VerifyEmailResponse, UserError>> {
      if (!isRegistrar(ctx.caller)) return Err({ NotAuthorized: null });
      if (!UUID.test(token)) return Err({ TokenInvalid: null });
      const t = stores.tokens.get(token);
      if (!t || stores.tokenOf.get(t.user_principal) !== token || !stores.accounts.has(t.user_principal)) return Err({ TokenInvalid: null });
      if (ctx.now >= t.expires_at) return Err({ TokenExpired: null });
      const outcome = await mint(stores.accounts.get(t.user_principal)!);
      // After the await: the token may have been used by an interleaved call.
      if (stores.tokens.get(token) === undefined) return Err({ TokenInvalid: null });
      stores.tokens.delete(token);
      stores.tokenOf.delete(t.user_principal);
      const a = stores.accounts.get(t.user_principal)!;
      stores.accounts.set(a.principal, { ...a, email_verified: true, updated_at: ctx.now });
      const tokenId = recordMint(a.principal, outcome, ctx.now, 1);
      return Ok({ principal: a.principal, ...(tokenId !== undefined && { membership_token_id: tokenId }) });
    },

    /** KYC approval (decision U2): recorded by the registrar or an admin; the proof travels with the upgrade request. */
    record_kyc(ctx: CallContext, principal: string, approved: boolean): Result<null, UserError> {
      if (!isStaff(ctx.caller)) return Err({ NotAuthorized: null });
      const a = stores.accounts.get(principal);
      if (!a) return Err({ AccountNotFound: null });
      stores.accounts.set(principal, { ...a, kyc_verified: approved, updated_at: ctx.now });
      return Ok(null);
    },

    /** Spec 2 rule 6: Registered, 18+, KYC approved and a payment proof; otherwise a clear refusal. */
    async upgrade_membership_to_active(ctx: CallContext, req: UpgradeMembershipRequest): Promise<Result<null, UserError>> {
      if (!isRegistrar(ctx.caller)) return Err({ NotAuthorized: null });
      const a = stores.accounts.get(req.principal);
      if (!a) return Err({ AccountNotFound: null });
      if (!a.email_verified) return Err({ EmailNotVerified: null });
      if (a.membership_token_id === undefined) return Err({ NotRegistered: null });
      if (!a.is_age_verified_18_plus) return Err({ Under18: null });
      if (!a.kyc_verified) return Err({ KycNotApproved: null });
      for (const [name, proof] of [['kyc_proof', req.kyc_proof], ['payment_proof', req.payment_proof]] as const) {
        if (proof.length === 0 || proof.length > MAX_PROOF_BYTES) return Err({ InvalidRequest: `${name} must be 1 to ${MAX_PROOF_BYTES} bytes` });
      }
      let r: { Ok: null } | { Err: string };
      try {
        r = await deps.membership.upgrade_to_active(req.principal, req.payment_proof);
      } catch (e) {
        r = { Err: `membership canister unavailable: ${e instanceof Error ? e.message : String(e)}` };
      }
      if ('Err' in r) return Err({ MembershipCallFailed: r.Err });
      stores.accounts.set(req.principal, { ...stores.accounts.get(req.principal)!, updated_at: ctx.now });
      return Ok(null);
    },

    /** The account itself, the registrar and admins. */
    get_account(ctx: CallContext, principal: string): AccountView | undefined {
      if (ctx.caller !== principal && !isStaff(ctx.caller)) return undefined;
      const a = stores.accounts.get(principal);
      return a && view(a);
    },

    /** The scheduler's step (every 5 minutes): retries due mints with exponential backoff. */
    async process_retry_queue(ctx: CallContext): Promise<number> {
      const due = Array.from(stores.retries.entries(), ([, v]) => v).filter((r) => r.next_attempt <= ctx.now);
      for (const item of due) {
        const a = stores.accounts.get(item.user_principal);
        if (!a) {
          stores.retries.delete(item.user_principal);
          continue;
        }
        const outcome = await mint(a);
        const current = stores.retries.get(item.user_principal);
        if (!current || current.attempts !== item.attempts) continue; // handled meanwhile
        recordMint(item.user_principal, outcome, ctx.now, item.attempts + 1);
      }
      return due.length;
    },

    next_retry_at(_ctx: CallContext): bigint | undefined {
      let next: bigint | undefined;
      for (const [, r] of stores.retries.entries()) if (next === undefined || r.next_attempt < next) next = r.next_attempt;
      return next;
    },

    list_retry_queue(ctx: CallContext): RetryQueueItem[] {
      if (!isStaff(ctx.caller)) return [];
      return Array.from(stores.retries.entries(), ([, v]) => v);
    },

    /** Admin notifications (membership_mint_failed) after `after_id`, oldest first; the bridge delivers them. */
    list_admin_notifications(ctx: CallContext, after_id?: bigint, limit?: number): AdminNotification[] {
      const n = clampLimit(limit, 20, 100);
      if (!isStaff(ctx.caller) || n === 0) return [];
      return Array.from(stores.notifications.entries({ limit: n, from: (after_id ?? 0n) + 1n }), ([, v]) => v);
    },
  };
}

function createProblem(r: CreateAccountRequest, now: bigint): string | undefined {
  if (r.principal === ANONYMOUS || r.principal.length === 0) return 'principal must not be anonymous';
  for (const [name, v] of [['email_encrypted', r.email_encrypted], ['name_encrypted', r.name_encrypted], ['dob_encrypted', r.dob_encrypted]] as const) {
    if (v.length === 0 || v.length > MAX_CIPHERTEXT_CHARS) return `${name} must be 1 to ${MAX_CIPHERTEXT_CHARS} characters of ciphertext`;
  }
  // Decision U3: only an argon2id PHC string is accepted, so a plaintext password can never be stored.
  if (!/^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/.test(r.password_hash) || r.password_hash.length > 512) {
    return 'password_hash must be an argon2id PHC string';
  }
  if (r.tos_accepted_at === 0n || r.tos_accepted_at > now) return 'tos_accepted_at must be a past time';
  return undefined;
}

export type UserCore = ReturnType<typeof userCore>;
