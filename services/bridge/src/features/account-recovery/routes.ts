// Ways back for stranded users (decisions B36–B38): a new verification link, and a
// password reset (request + confirm). The requests answer the same whether or not the address
// exists, and their mail goes out after the answer, so neither the body nor the timing tells; both
// are limited per client address (decision B33) and by the client's email budget for the address
// (decision B84) before anything else happens, and a refusal is audited (B85).
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { HOUR_MS, tooMany } from '../../core/auth/brute-force.ts';
import { clientNetwork } from '../../core/auth/client-network.ts';
import { csrfGuard } from '../../core/auth/csrf.ts';
import { SESSION_COOKIE } from '../../core/auth/cookie.ts';
import type { RecoveryContext } from './context.ts';
import { mailBudget } from '../../core/email/budget.ts';
import { deliver } from '../../core/email/deliveries.ts';
import { HttpError } from '../../core/http/errors.ts';
import { escapeHtml, page, PAGE_CSP } from '../../core/http/page.ts';
import { OP, tokenHash, userAggregate } from '../../core/outbox/user-operations.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import {
  resendVerificationDoc,
  requestPasswordResetDoc,
  confirmPasswordResetDoc,
  getResetPasswordPageDoc,
} from './route-docs.ts';

export interface AccountRecoveryOptions {
  ctx: RecoveryContext;
  blindIndex(email: string): Uint8Array;
  /** Sends the verification email (verification/'s sender); true when the notification service accepted it. */
  sendVerification(m: {
    userId: string;
    email: string;
    name: string;
    token: string;
    expiresAt: bigint;
    requestId: string;
  }): Promise<boolean>;
  /** The password policy (decision B4): the reason a password is refused, or undefined. */
  passwordProblem(password: string, email: string): string | undefined;
}

/** Reset links live one hour (the password-reset template's default), single use (decision B37). */
export const RESET_LIFETIME_MS = 60 * 60_000;
const EmailBody = Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }) });
const ConfirmBody = Type.Object({
  token: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});
/** The reset page's query (decision S28): the token of the link, when there is one, in the form the confirm takes. */
const ResetPageQuery = Type.Object(
  {
    token: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: 'the token of the reset email' })),
  },
  { additionalProperties: false },
);
const ACCEPTED = { status: 'accepted', message: 'if an account uses this address, an email is on its way' } as const;

const sha256 = (s: string) => createHash('sha256').update(s).digest();

export default async function accountRecovery(app: BridgeApp, opts: AccountRecoveryOptions): Promise<void> {
  const { ctx } = opts;
  const csrf = csrfGuard(ctx.frontendOrigins, SESSION_COOKIE);

  /** Limits, then the account behind the address (or none), then the work in the background. */
  const handle = async (
    req: FastifyRequest & { body: { email: string } },
    kind: 'resend' | 'reset',
    work: (user: { id: string; principal: string; email: string; name: string; verified: boolean }) => Promise<void>,
  ) => {
    const { email } = req.body;
    const index = opts.blindIndex(email);
    const limited = async (limit: 'client' | 'recipient', wait: number) => {
      await ctx.audit.record(req, { event: 'recovery.limited', outcome: 'denied', detail: { kind, limit } });
      return tooMany(wait);
    };
    // Decision B119: per IPv4 address or IPv6 /64.
    const client = {
      key: `${kind}-client:${clientNetwork(req.ip)}`,
      limit: ctx.config.REGISTRATION_LIMIT_PER_CLIENT,
      windowMs: HOUR_MS,
    };
    const byClient = await ctx.throttle.reserve([client]);
    if (byClient > 0) throw await limited('client', byClient);
    // Reserved for every address, existing or not: a 429 tells nothing about the account. A refusal
    // here gives the client's count back, as one reserve of both keys would (decision B33).
    const byRecipient = await ctx.throttle.reserve([mailBudget(index, req.ip, ctx.config.EMAIL_LIMIT_PER_RECIPIENT)]);
    if (byRecipient > 0) {
      await ctx.throttle.release([client.key]);
      throw await limited('recipient', byRecipient);
    }
    const user = await ctx.db
      .selectFrom('users')
      .select(['id', 'principal', 'email_encrypted', 'name_encrypted', 'email_verified_at'])
      .where('email_index', '=', index)
      .executeTakeFirst();
    if (user) {
      // After the answer: an existing account costs no visible time.
      setImmediate(() => {
        void (async () => {
          const plainEmail = (await ctx.opener.open('email', user.email_encrypted)).trim();
          const name = await ctx.opener.open('name', user.name_encrypted);
          await work({
            id: user.id,
            principal: user.principal,
            email: plainEmail,
            name,
            verified: user.email_verified_at !== null,
          });
        })().catch((e: unknown) =>
          req.log.error(
            { event: `${kind}.failed`, user_id: user.id, err: e instanceof Error ? e.message : String(e) },
            `${kind} failed`,
          ),
        );
      });
    }
    return user?.id;
  };

  app.post(
    '/api/auth/resend-verification',
    { schema: { ...routeSchema(resendVerificationDoc), body: EmailBody } },
    async (req, reply) => {
      csrf(req, req.headers.origin !== undefined);
      await handle(req, 'resend', async (user) => {
        if (user.verified) return; // nothing to resend; the same answer anyway
        const r = await ctx.canisters.user.reissue_verification_token(user.principal);
        if ('Err' in r) throw new Error(`reissue_verification_token: ${Object.keys(r.Err)[0]}`);
        // The new link is the live one: it finds its user, and the registration now expires with it (B25, B26).
        await ctx.db
          .updateTable('users')
          .set({
            verification_token_hash: tokenHash(r.Ok.verification_token),
            verification_expires_at: new Date(Number(r.Ok.expires_at / 1_000_000n)),
          })
          .where('id', '=', user.id)
          .where('email_verified_at', 'is', null)
          .execute();
        const sent = await opts.sendVerification({
          userId: user.id,
          email: user.email,
          name: user.name,
          token: r.Ok.verification_token,
          expiresAt: r.Ok.expires_at,
          requestId: req.id,
        });
        req.log.info({ event: 'verification.resent', user_id: user.id, sent }, 'verification email resent');
      });
      return reply.code(202).send(ACCEPTED);
    },
  );

  app.post(
    '/api/auth/password-reset/request',
    { schema: { ...routeSchema(requestPasswordResetDoc), body: EmailBody } },
    async (req, reply) => {
      csrf(req, req.headers.origin !== undefined);
      const userId = await handle(req, 'reset', async (user) => {
        const token = randomBytes(32).toString('base64url');
        const expires = new Date(ctx.now() + RESET_LIFETIME_MS);
        // One live link per user: a new request replaces the previous one.
        await ctx.db.transaction().execute(async (tx) => {
          await tx.deleteFrom('password_resets').where('user_id', '=', user.id).execute();
          await tx
            .insertInto('password_resets')
            .values({ token_hash: sha256(token), user_id: user.id, expires_at: expires })
            .execute();
        });
        const link = `${ctx.config.PUBLIC_URL}/reset-password?token=${token}`;
        const r = await deliver(ctx, {
          key: `password-reset:${sha256(token).toString('hex')}`,
          userId: user.id,
          request: {
            type: 'password-reset',
            to: user.email,
            domain: ctx.config.EMAIL_BRAND_DOMAIN,
            data: { user_name: user.name, reset_link: link, expires_minutes: RESET_LIFETIME_MS / 60_000 },
          },
          requestId: req.id,
          retry: false,
        });
        req.log.info({ event: 'password_reset.sent', user_id: user.id, sent: r !== 'failed' }, 'password reset email');
      });
      // Recorded for every address alike (the same work either way); `known` is only for admins' eyes.
      await ctx.audit.record(req, {
        event: 'password_reset.requested',
        subject: userId,
        outcome: 'success',
        detail: { known: userId !== undefined },
      });
      return reply.code(202).send(ACCEPTED);
    },
  );

  app.post(
    '/api/auth/password-reset/confirm',
    { schema: { ...routeSchema(confirmPasswordResetDoc), body: ConfirmBody } },
    async (req) => {
      csrf(req, req.headers.origin !== undefined);
      const { token, password } = req.body;
      const hash = sha256(token);
      const invalid = () =>
        new HttpError(
          400,
          'RESET_TOKEN_INVALID',
          'this reset link is not valid, was already used or has expired; ask for a new one',
        );
      const pending = await ctx.db
        .selectFrom('password_resets')
        .innerJoin('users', 'users.id', 'password_resets.user_id')
        .select(['users.id', 'users.email_encrypted', 'users.name_encrypted'])
        .where('token_hash', '=', hash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', new Date(ctx.now()))
        .executeTakeFirst();
      if (!pending) throw invalid();
      const email = (await ctx.opener.open('email', pending.email_encrypted)).trim();
      // The policy before the token is spent: a refused password leaves the link usable.
      const weak = opts.passwordProblem(password, email);
      if (weak)
        throw new HttpError(400, 'WEAK_PASSWORD', `${weak} (12 to 128 characters; long passphrases are welcome)`);
      const password_hash = await ctx.passwords.hash(password);
      const changed = await ctx.db.transaction().execute(async (tx) => {
        // Single use under concurrency: only one confirm can flip used_at.
        const spent = await tx
          .updateTable('password_resets')
          .set({ used_at: new Date(ctx.now()) })
          .where('token_hash', '=', hash)
          .where('used_at', 'is', null)
          .where('expires_at', '>', new Date(ctx.now()))
          .returning('user_id')
          .executeTakeFirst();
        if (!spent) return false;
        const u = await tx
          .updateTable('users')
          .set({ password_hash })
          .where('id', '=', spent.user_id)
          .returning('principal')
          .executeTakeFirstOrThrow();
        // Decision B28: the user canister gets the new hash too, through the outbox (after the commit).
        await ctx.outbox.enqueue(tx, {
          operation: OP.setPasswordHash,
          opId: `password:${hash.toString('hex').slice(0, 40)}`,
          aggregate: userAggregate(spent.user_id),
          payload: { principal: u.principal, password_hash },
        });
        return true;
      });
      if (!changed) throw invalid();
      const canister = await ctx.outbox.run(`password:${hash.toString('hex').slice(0, 40)}`);
      if (canister.state !== 'done')
        req.log.warn(
          { event: 'password_reset.canister_pending', user_id: pending.id, err: canister.error },
          'the canister gets the new password hash when it answers',
        );
      // Decision B37: every session of the user ends; whoever knew the old password is out.
      const ended = await ctx.sessions.destroyAllFor(pending.id);
      const name = await ctx.opener.open('name', pending.name_encrypted);
      const sent = await deliver(ctx, {
        key: `password-changed:${hash.toString('hex')}`,
        userId: pending.id,
        request: {
          type: 'password-changed',
          to: email,
          domain: ctx.config.EMAIL_BRAND_DOMAIN,
          data: {
            recipient_name: name,
            changed_at: new Date(ctx.now()).toISOString(),
            security_url: `${ctx.config.PUBLIC_URL}/login`,
          },
        },
        requestId: req.id,
        retry: false,
      });
      await ctx.audit.record(req, {
        event: 'password_reset.completed',
        actor: pending.id,
        outcome: 'success',
        detail: { sessions_ended: ended, notified: sent !== 'failed' },
      });
      return { status: 'password_changed', sessions_ended: ended };
    },
  );

  // Where the emailed link lands: a form that posts to the confirm endpoint. A token that cannot be
  // one the bridge mailed is a page that says so (400), with the way to a new link (decision S28).
  app.get(
    '/reset-password',
    { schema: { ...routeSchema(getResetPasswordPageDoc), querystring: ResetPageQuery }, attachValidation: true },
    async (req, reply) => {
      const bad = req.validationError !== undefined;
      const token = bad ? '' : (req.query.token ?? '');
      const form = bad
        ? '<p class="error">This reset link is not valid: copy the whole link from the email, or ask for a new one.</p><p><a href="/login">Sign in or ask for a new link</a></p>'
        : `<form id="reset" data-token="${escapeHtml(token)}">
<label for="password">New password (12 characters or more)</label><input id="password" name="password" type="password" autocomplete="new-password" required minlength="12">
<p id="error" class="error" role="alert"></p><button type="submit">Set password</button></form>`;
      return reply
        .code(bad ? 400 : 200)
        .type('text/html; charset=utf-8')
        .header('content-security-policy', PAGE_CSP)
        .header('x-frame-options', 'DENY')
        .header('referrer-policy', 'no-referrer')
        .send(page('Choose a new password', form));
    },
  );
}
