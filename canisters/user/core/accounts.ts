// User accounts (spec 2 "User account", "Email verification token", registration rules 3, 4 and 6):
// accounts holding client-side ciphertext, the 24-hour verification token, email verification (which
// mints the Registered membership, or queues it in retry-queue.ts), KYC and the upgrade to Active.
// Age flags are derived by the bridge, the only party that can decrypt the date of birth (decision U1);
// this canister stores the ciphertext and the flag, and never returns dob_encrypted or password_hash.
import { Err, Ok, type CallContext, type Result } from '@domdao/canister-kit';
import type { UserAccess } from './access.ts';
import type { IdempotentOperations } from './operations.ts';
import type { MintRetryQueue } from './retry-queue.ts';
import {
  MAX_CIPHERTEXT_CHARS,
  MAX_PROOF_BYTES,
  VERIFICATION_TTL,
  type AccountRecord,
  type AccountView,
  type CreateAccountRequest,
  type CreateAccountResponse,
  type UpgradeMembershipRequest,
  type UserDeps,
  type UserError,
  type UserStores,
  type VerificationToken,
  type VerifyEmailResponse,
} from './types.ts';

const ANONYMOUS = '2vxsx-fae';

/** RFC 9562 version 4 UUID text from 16 random bytes. */
export function uuidV4(bytes: Uint8Array): string {
  const b = Uint8Array.from(bytes.subarray(0, 16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export function accountMethods(
  stores: UserStores,
  deps: UserDeps,
  access: UserAccess,
  queue: Pick<MintRetryQueue, 'mint' | 'recordMint'>,
  ops: IdempotentOperations,
) {
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
  const dropToken = (principal: string) => {
    const old = stores.tokenOf.get(principal);
    if (old !== undefined) stores.tokens.delete(old);
    stores.tokenOf.delete(principal);
  };

  return {
    /** Spec 2 registration rule 3, after the bridge's checks: the account and its 24-hour token. */
    async create_account(
      ctx: CallContext,
      req: CreateAccountRequest,
      op_id?: string,
    ): Promise<Result<CreateAccountResponse, UserError>> {
      if (!access.isRegistrar(ctx.caller)) return Err({ NotAuthorized: null });
      return ops.once(ctx, 'create_account', op_id, () => createAccount(ctx, req));
    },

    /** A new 24-hour token for an unverified account; the previous one stops working. */
    async reissue_verification_token(
      ctx: CallContext,
      principal: string,
    ): Promise<Result<CreateAccountResponse, UserError>> {
      if (!access.isRegistrar(ctx.caller)) return Err({ NotAuthorized: null });
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
    async verify_email(
      ctx: CallContext,
      token: string,
      op_id?: string,
    ): Promise<Result<VerifyEmailResponse, UserError>> {
      if (!access.isRegistrar(ctx.caller)) return Err({ NotAuthorized: null });
      return ops.once(ctx, 'verify_email', op_id, () => verifyEmail(ctx, token));
    },

    /** KYC approval (decision U2): recorded by the registrar or an admin; the proof travels with the upgrade request. */
    async record_kyc(
      ctx: CallContext,
      principal: string,
      approved: boolean,
      op_id?: string,
    ): Promise<Result<null, UserError>> {
      if (!access.isStaff(ctx.caller)) return Err({ NotAuthorized: null });
      return ops.once(ctx, 'record_kyc', op_id, () => {
        const a = stores.accounts.get(principal);
        if (!a) return Err({ AccountNotFound: null });
        stores.accounts.set(principal, { ...a, kyc_verified: approved, updated_at: ctx.now });
        return Ok(null);
      });
    },

    /** Spec 2 rule 6: Registered, 18+, KYC approved and a payment proof; otherwise a clear refusal. */
    async upgrade_membership_to_active(
      ctx: CallContext,
      req: UpgradeMembershipRequest,
      op_id?: string,
    ): Promise<Result<null, UserError>> {
      if (!access.isRegistrar(ctx.caller)) return Err({ NotAuthorized: null });
      return ops.once(ctx, 'upgrade_membership_to_active', op_id, () => upgrade(ctx, req));
    },

    /**
     * Decision U6: an unverified registration that expired (or that the bridge could not complete) is
     * removed with its token, so the address can be registered again. A verified account is never removed.
     */
    async remove_unverified_account(
      ctx: CallContext,
      principal: string,
      op_id?: string,
    ): Promise<Result<null, UserError>> {
      if (!access.isRegistrar(ctx.caller)) return Err({ NotAuthorized: null });
      return ops.once(ctx, 'remove_unverified_account', op_id, () => {
        const a = stores.accounts.get(principal);
        if (!a) return Err({ AccountNotFound: null });
        if (a.email_verified)
          return Err({ InvalidRequest: 'the account is verified; only an unverified account is removed' });
        dropToken(principal);
        stores.retries.delete(principal);
        stores.accounts.delete(principal);
        return Ok(null);
      });
    },

    /** Decision U7: a password reset at the bridge sets the account's new argon2id hash here too. */
    async set_password_hash(
      ctx: CallContext,
      principal: string,
      password_hash: string,
      op_id?: string,
    ): Promise<Result<null, UserError>> {
      if (!access.isRegistrar(ctx.caller)) return Err({ NotAuthorized: null });
      return ops.once(ctx, 'set_password_hash', op_id, () => {
        if (!isArgon2id(password_hash)) return Err({ InvalidRequest: 'password_hash must be an argon2id PHC string' });
        const a = stores.accounts.get(principal);
        if (!a) return Err({ AccountNotFound: null });
        stores.accounts.set(principal, { ...a, password_hash, updated_at: ctx.now });
        return Ok(null);
      });
    },

    /** The account itself, the registrar and admins. */
    get_account(ctx: CallContext, principal: string): AccountView | undefined {
      if (ctx.caller !== principal && !access.isStaff(ctx.caller)) return undefined;
      const a = stores.accounts.get(principal);
      return a && view(a);
    },
  };

  async function createAccount(
    ctx: CallContext,
    req: CreateAccountRequest,
  ): Promise<Result<CreateAccountResponse, UserError>> {
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
  }

  async function verifyEmail(ctx: CallContext, token: string): Promise<Result<VerifyEmailResponse, UserError>> {
    if (!UUID.test(token)) return Err({ TokenInvalid: null });
    const t = stores.tokens.get(token);
    if (!t || stores.tokenOf.get(t.user_principal) !== token || !stores.accounts.has(t.user_principal))
      return Err({ TokenInvalid: null });
    if (ctx.now >= t.expires_at) return Err({ TokenExpired: null });
    const outcome = await queue.mint(stores.accounts.get(t.user_principal)!);
    // After the await: the token may have been used by an interleaved call.
    if (stores.tokens.get(token) === undefined) return Err({ TokenInvalid: null });
    stores.tokens.delete(token);
    stores.tokenOf.delete(t.user_principal);
    const a = stores.accounts.get(t.user_principal)!;
    stores.accounts.set(a.principal, { ...a, email_verified: true, updated_at: ctx.now });
    const tokenId = queue.recordMint(a.principal, outcome, ctx.now, 1);
    return Ok({ principal: a.principal, ...(tokenId !== undefined && { membership_token_id: tokenId }) });
  }

  async function upgrade(ctx: CallContext, req: UpgradeMembershipRequest): Promise<Result<null, UserError>> {
    const a = stores.accounts.get(req.principal);
    if (!a) return Err({ AccountNotFound: null });
    if (!a.email_verified) return Err({ EmailNotVerified: null });
    if (a.membership_token_id === undefined) return Err({ NotRegistered: null });
    if (!a.is_age_verified_18_plus) return Err({ Under18: null });
    if (!a.kyc_verified) return Err({ KycNotApproved: null });
    for (const [name, proof] of [
      ['kyc_proof', req.kyc_proof],
      ['payment_proof', req.payment_proof],
    ] as const) {
      if (proof.length === 0 || proof.length > MAX_PROOF_BYTES)
        return Err({ InvalidRequest: `${name} must be 1 to ${MAX_PROOF_BYTES} bytes` });
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
  }
}

const isArgon2id = (h: string) =>
  h.length <= 512 && /^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/.test(h);

function createProblem(r: CreateAccountRequest, now: bigint): string | undefined {
  if (r.principal === ANONYMOUS || r.principal.length === 0) return 'principal must not be anonymous';
  for (const [name, v] of [
    ['email_encrypted', r.email_encrypted],
    ['name_encrypted', r.name_encrypted],
    ['dob_encrypted', r.dob_encrypted],
  ] as const) {
    if (v.length === 0 || v.length > MAX_CIPHERTEXT_CHARS)
      return `${name} must be 1 to ${MAX_CIPHERTEXT_CHARS} characters of ciphertext`;
  }
  // Decision U3: only an argon2id PHC string is accepted, so a plaintext password can never be stored.
  if (!isArgon2id(r.password_hash)) {
    return 'password_hash must be an argon2id PHC string';
  }
  if (r.tos_accepted_at === 0n || r.tos_accepted_at > now) return 'tos_accepted_at must be a past time';
  return undefined;
}
