// Spec 2 registration: GET /api/auth/registration-key, POST /api/auth/register, GET /verify-email.
// Rules in the spec's order: decrypt (400), age 13+ (COPPA_BLOCK, nothing stored or logged), email
// not registered (EMAIL_EXISTS, by blind index), password strength (WEAK_PASSWORD); then the account
// in the user canister, a 24-hour token, and the verification email (a send failure never fails it).
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { memberPrincipal } from '../identity/member-identity.ts';
import { hashPassword } from '../auth/passwords.ts';
import { HOUR_MS, recipientKey, tooMany } from '../auth/brute-force.ts';
import type { BridgeContext } from '../context.ts';
import { HttpError } from '../http/errors.ts';
import { emailBlindIndex, normaliseEmail } from './blind-index.ts';
import { SUITE, UndecryptableError } from './hpke.ts';
import { ageOn, displayNameProblem, isEmail, passwordProblem } from './rules.ts';
import { escapeHtml, page } from '../http/page.ts';
import { isUniqueViolation } from '../db/errors.ts';

const Cipher = Type.String({ minLength: 1, maxLength: 16_500 });
const RegisterBody = Type.Object(
  {
    email_encrypted: Cipher,
    name_encrypted: Cipher,
    dob_encrypted: Cipher,
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    tos_accepted: Type.Literal(true),
  },
  { additionalProperties: false },
);

export function registrationRoutes(app: FastifyInstance, ctx: BridgeContext): void {
  const bootstrapAdmins = new Set((ctx.config.BOOTSTRAP_ADMIN_EMAILS ?? '').split(',').map((s) => normaliseEmail(s)).filter(Boolean));

  app.get('/api/auth/registration-key', async () => ({ public_key: ctx.opener.publicKey, ...SUITE, info: 'domdao registration v1', aad: 'the field name: email, name or dob' }));

  app.post('/api/auth/register', { schema: { body: RegisterBody } }, async (req, reply) => {
    const body = req.body as { email_encrypted: string; name_encrypted: string; dob_encrypted: string; password: string };
    // Decision B33: per client address before any work (even decryption)...
    const byClient = await ctx.throttle.reserve([{ key: `register-client:${req.ip}`, limit: ctx.config.REGISTRATION_LIMIT_PER_CLIENT, windowMs: HOUR_MS }]);
    if (byClient > 0) throw tooMany(byClient);
    let email: string, name: string, age: number;
    try {
      // The date of birth first (spec 2 rule 1): under 13 nothing else is even decrypted.
      const years = ageOn(await ctx.opener.open('dob', body.dob_encrypted), new Date(ctx.now()));
      if (years === undefined) throw new HttpError(400, 'VALIDATION_ERROR', 'dob must be a real date of birth, YYYY-MM-DD');
      if (years < 13) throw new HttpError(403, 'COPPA_BLOCK', 'registration requires an age of 13 or over');
      age = years;
      email = await ctx.opener.open('email', body.email_encrypted);
      name = await ctx.opener.open('name', body.name_encrypted);
    } catch (e) {
      if (e instanceof UndecryptableError) throw new HttpError(400, 'UNDECRYPTABLE', 'an encrypted field could not be decrypted (tampered, or sealed to another key)');
      throw e;
    }
    // Decision B36: what the notification service would refuse is normalised (the address trimmed) or
    // refused here, so an account never exists without its verification email.
    email = email.trim();
    if (!isEmail(email)) throw new HttpError(400, 'VALIDATION_ERROR', 'email is not a valid email address');
    const nameProblem = displayNameProblem(name);
    if (nameProblem) throw new HttpError(400, 'VALIDATION_ERROR', nameProblem);
    const index = emailBlindIndex(ctx.keys.blindIndexKey, email);
    const taken = await ctx.db.selectFrom('users').select('id').where('email_index', '=', index).executeTakeFirst();
    if (taken) throw new HttpError(409, 'EMAIL_EXISTS', 'this email address is already registered');
    const weak = passwordProblem(body.password, email);
    if (weak) throw new HttpError(400, 'WEAK_PASSWORD', `${weak} (12 to 128 characters; long passphrases are welcome)`);

    // ...and per recipient (blind index) just before the one step that sends mail to it.
    const byRecipient = await ctx.throttle.reserve([{ key: recipientKey(index), limit: ctx.config.EMAIL_LIMIT_PER_RECIPIENT, windowMs: HOUR_MS }]);
    if (byRecipient > 0) throw tooMany(byRecipient);

    const id = randomUUID();
    // The self-authenticating principal of the member's derived key (decision V5): the bridge can sign as it on the IC.
    const principal = memberPrincipal(ctx.keys.memberIdentitySecret, id);
    const password_hash = await hashPassword(body.password);
    let token: { verification_token: string; expires_at: bigint };
    try {
      token = await ctx.db.transaction().execute(async (tx) => {
        await tx
          .insertInto('users')
          .values({ id, principal, email_index: index, email_encrypted: body.email_encrypted, name_encrypted: body.name_encrypted, dob_encrypted: body.dob_encrypted, password_hash, is_minor: age < 18, roles: [] })
          .execute();
        // Inside the transaction: if the canister refuses, no user row remains.
        const r = await ctx.canisters.user.create_account({
          principal,
          email_encrypted: body.email_encrypted,
          name_encrypted: body.name_encrypted,
          dob_encrypted: body.dob_encrypted,
          password_hash,
          tos_accepted_at: BigInt(ctx.now()) * 1_000_000n - 1n,
          is_age_verified_18_plus: age >= 18,
        });
        if ('Err' in r) throw new HttpError(502, 'ACCOUNT_NOT_CREATED', `the user canister refused the account: ${Object.keys(r.Err)[0]}`);
        return r.Ok;
      });
    } catch (e) {
      if (isUniqueViolation(e)) throw new HttpError(409, 'EMAIL_EXISTS', 'this email address is already registered');
      if (e instanceof HttpError) throw e;
      req.log.error({ event: 'registration.failed', err: e instanceof Error ? e.message : String(e) }, 'registration failed');
      throw new HttpError(503, 'REGISTRATION_UNAVAILABLE', 'registration is temporarily unavailable; nothing was stored');
    }
    const sent = await sendVerification(ctx, email, name, token.verification_token, token.expires_at, req.id);
    if (!sent) req.log.warn({ event: 'registration.verification_email_failed', user_id: id }, 'verification email not sent');
    req.log.info({ event: 'registration.created', user_id: id, minor: age < 18 }, 'account created');
    return reply.code(201).send({ user_id: id, status: 'verification_pending', verification_email_sent: sent });
  });

  app.get('/verify-email', async (req, reply) => {
    const token = (req.query as { token?: unknown }).token;
    const fail = (status: number, title: string, text: string) => reply.code(status).type('text/html; charset=utf-8').send(page(title, `<p>${escapeHtml(text)}</p>`));
    if (typeof token !== 'string' || token.length > 64) return fail(400, 'Link not valid', 'This verification link is not valid. Request a new one from the sign-in page.');
    let r;
    try {
      r = await ctx.canisters.user.verify_email(token);
    } catch (e) {
      req.log.error({ event: 'canister.unavailable', canister: 'user', err: e instanceof Error ? e.message : String(e) }, 'verify_email failed');
      return fail(503, 'Try again shortly', 'We could not verify your email right now. Please open the link again in a few minutes.');
    }
    if ('Err' in r) {
      const expired = 'TokenExpired' in r.Err;
      return fail(400, expired ? 'Link expired' : 'Link not valid', expired ? 'This verification link has expired (links last 24 hours). Request a new one from the sign-in page.' : 'This verification link is not valid or was already used.');
    }
    // Spec 2 Roles rule 2: `member` on verification; the bootstrap admins also get `admin`.
    const user = await ctx.db.selectFrom('users').select(['id', 'roles', 'email_encrypted']).where('principal', '=', r.Ok.principal).executeTakeFirst();
    if (user) {
      // Decrypting the address is only needed to recognise a bootstrap admin.
      const email = bootstrapAdmins.size > 0 ? await ctx.opener.open('email', user.email_encrypted).catch(() => '') : '';
      const add = ['member', ...(bootstrapAdmins.has(normaliseEmail(email)) ? ['admin'] : [])];
      const roles = [...new Set([...user.roles, ...add])];
      await ctx.db.updateTable('users').set({ roles, email_verified_at: new Date(ctx.now()) }).where('id', '=', user.id).execute();
    }
    const pending = r.Ok.membership_token_id === undefined;
    return reply
      .type('text/html; charset=utf-8')
      .send(page('Email verified', `<p>Your email address is verified${pending ? '. Your membership token is being issued; it will appear shortly' : ' and your Registered membership is ready'}.</p><p><a href="${escapeHtml(firstOrigin(ctx))}">Continue</a></p>`));
  });
}

export function firstOrigin(ctx: BridgeContext): string {
  return [...ctx.frontendOrigins][0] ?? ctx.config.PUBLIC_URL;
}

export async function sendVerification(ctx: BridgeContext, email: string, name: string, token: string, expiresAt: bigint, requestId: string): Promise<boolean> {
  const link = `${ctx.config.PUBLIC_URL}/verify-email?token=${encodeURIComponent(token)}`;
  // Development only (refused in production): a local outbox instead of a mailbox.
  if (ctx.config.DEV_OUTBOX_FILE) appendFileSync(ctx.config.DEV_OUTBOX_FILE, `${JSON.stringify({ to: email, type: 'verification', link })}\n`, { mode: 0o600 });
  const minutes = Math.max(1, Math.round(Number(expiresAt / 1_000_000n - BigInt(ctx.now())) / 60_000));
  const r = await ctx.notifier.send(
    { type: 'verification', to: email, domain: ctx.config.EMAIL_BRAND_DOMAIN, data: { user_name: name, verification_link: link, expires_minutes: minutes } },
    { idempotencyKey: `verification:${token}`, requestId },
  );
  return r.ok;
}
