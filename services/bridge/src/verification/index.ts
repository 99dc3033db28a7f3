// Spec 2 email verification: GET /verify-email?token= (the link the verification email carries), the
// roles a verified user gets, and the sender of that email (registration's outbox operation and the
// resend of account recovery use it). The user canister checks the token and mints the Registered
// membership (or queues the retry) through the outbox (decision B25).
import { appendFileSync } from 'node:fs';
import { firstOrigin } from '../config.ts';
import type { BridgeContext } from '../context.ts';
import { deliver } from '../email/deliveries.ts';
import { escapeHtml, page } from '../http/page.ts';
import { normaliseEmail } from '../identity/email.ts';
import { OP, tokenHash, userAggregate, verifyOpId, type VerifyAnswer } from '../outbox/user-operations.ts';
import type { BridgeApp } from '../http/typed.ts';

export interface VerificationOptions {
  ctx: BridgeContext;
}

export default async function verification(app: BridgeApp, { ctx }: VerificationOptions): Promise<void> {
  const continueTo = firstOrigin(ctx.config);

  app.get('/verify-email', async (req, reply) => {
    const token = (req.query as { token?: unknown }).token;
    const fail = (status: number, title: string, text: string) => reply.code(status).type('text/html; charset=utf-8').send(page(title, `<p>${escapeHtml(text)}</p>`));
    if (typeof token !== 'string' || token.length > 64) return fail(400, 'Link not valid', 'This verification link is not valid. Request a new one from the sign-in page.');
    // Decision B25: the link's operation is written first and keyed by the token, so a crash or a second
    // click repeats one operation; the canister answers a repeat with its first answer (U5).
    const opId = verifyOpId(token);
    const owner = await ctx.db.selectFrom('users').select('id').where('verification_token_hash', '=', tokenHash(token)).executeTakeFirst();
    // A token no user holds is refused without a row (no table growth from made-up links), unless links
    // issued before the token hashes were kept may still be live.
    const legacy = !owner && (await ctx.db.selectFrom('users').select('id').where('email_verified_at', 'is', null).where('verification_token_hash', 'is', null).executeTakeFirst());
    if (!owner && !legacy && !(await ctx.db.selectFrom('bridge_outbox').select('id').where('op_id', '=', opId).executeTakeFirst())) {
      return fail(400, 'Link not valid', 'This verification link is not valid or was already used.');
    }
    const fresh = await ctx.db.transaction().execute((tx) => ctx.outbox.enqueue(tx, { operation: OP.verifyEmail, opId, aggregate: owner ? userAggregate(owner.id) : opId, payload: { token } }));
    // Spec 2 rule 4, single use: a link whose operation had already finished was used (a repeat only
    // finishes an operation a crash interrupted).
    if (!fresh && (await ctx.outbox.list({ opId }))[0]?.state === 'done') return fail(400, 'Link not valid', 'This verification link is not valid or was already used.');
    const outcome = await ctx.outbox.run<VerifyAnswer>(opId);
    if (outcome.state !== 'done') {
      req.log.error({ event: 'canister.unavailable', canister: 'user', err: outcome.error }, 'verify_email failed');
      return fail(503, 'Try again shortly', 'We could not verify your email right now. Please open the link again in a few minutes.');
    }
    const r = outcome.result;
    if ('Err' in r) {
      const expired = 'TokenExpired' in r.Err;
      return fail(400, expired ? 'Link expired' : 'Link not valid', expired ? 'This verification link has expired (links last 24 hours). Request a new one from the sign-in page.' : 'This verification link is not valid or was already used.');
    }
    const pending = r.Ok.membership_token_id === undefined;
    return reply
      .type('text/html; charset=utf-8')
      .send(page('Email verified', `<p>Your email address is verified${pending ? '. Your membership token is being issued; it will appear shortly' : ' and your Registered membership is ready'}.</p><p><a href="${escapeHtml(continueTo)}">Continue</a></p>`));
  });
}

/** Spec 2 Roles rule 2: `member` on verification; the bootstrap admins also get `admin`. */
export function verificationRoles(ctx: BridgeContext): (user: { roles: string[]; email_encrypted: string }) => Promise<string[]> {
  const bootstrapAdmins = new Set((ctx.config.BOOTSTRAP_ADMIN_EMAILS ?? '').split(',').map((s) => normaliseEmail(s)).filter(Boolean));
  return async (user) => {
    // Decrypting the address is only needed to recognise a bootstrap admin.
    const email = bootstrapAdmins.size > 0 ? await ctx.opener.open('email', user.email_encrypted).catch(() => '') : '';
    return [...new Set([...user.roles, 'member', ...(bootstrapAdmins.has(normaliseEmail(email)) ? ['admin'] : [])])];
  };
}

/** The verification email (registration, resend), recorded in email_deliveries (decision N21); true when accepted. */
export async function sendVerification(ctx: BridgeContext, m: { userId: string; email: string; name: string; token: string; expiresAt: bigint; requestId: string }): Promise<boolean> {
  const link = `${ctx.config.PUBLIC_URL}/verify-email?token=${encodeURIComponent(m.token)}`;
  // Development only (refused in production): a local outbox instead of a mailbox.
  if (ctx.config.DEV_OUTBOX_FILE) appendFileSync(ctx.config.DEV_OUTBOX_FILE, `${JSON.stringify({ to: m.email, type: 'verification', link })}\n`, { mode: 0o600 });
  const minutes = Math.max(1, Math.round(Number(m.expiresAt / 1_000_000n - BigInt(ctx.now())) / 60_000));
  const r = await deliver(ctx, {
    key: `verification:${m.token}`,
    userId: m.userId,
    request: { type: 'verification', to: m.email, domain: ctx.config.EMAIL_BRAND_DOMAIN, data: { user_name: m.name, verification_link: link, expires_minutes: minutes } },
    requestId: m.requestId,
    retry: false,
  });
  return r !== 'failed';
}
