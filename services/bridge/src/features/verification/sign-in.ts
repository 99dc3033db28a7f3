// Decision B105: whoever confirms a link, with the registration's password or by starting afresh with a
// new one (B86), has just proved the mailbox and the account's password, as a login proves them, so the
// confirmation signs them in: a new session, the cookie as spec 2 sets it, the browser's earlier one
// ended. Only for a confirmation sent from the bridge's own pages or a configured front end (the
// request's Origin, else Referer's, decision B8): a form another site posts with its own link and
// password must not sign the visitor in to that site's account (login CSRF); without an origin (not a
// browser) the address is verified and the client signs in as usual.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE, setSessionCookie } from '../../core/auth/cookie.ts';
import { requestOrigin } from '../../core/auth/csrf.ts';
import type { VerificationContext } from './context.ts';

export type SignInOutcome = { signed_in: true } | { signed_in: false; reason: 'origin' | 'session_store' };

/** Makes the account's session after its verification; never fails the verification itself. */
export async function signInAfterVerification(
  ctx: VerificationContext,
  req: FastifyRequest,
  reply: FastifyReply,
  userId: string,
): Promise<SignInOutcome> {
  const origin = requestOrigin(req);
  if (origin === undefined || !ctx.frontendOrigins.has(origin)) {
    req.log.warn(
      { event: 'verification.no_session', user_id: userId, origin: origin ?? null },
      'verified without a session: the confirmation came from no front end',
    );
    return { signed_in: false, reason: 'origin' };
  }
  try {
    const u = await ctx.db
      .selectFrom('users')
      .select(['principal', 'roles', 'email_encrypted'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const email = (await ctx.opener.open('email', u.email_encrypted)).trim();
    // A new id, as at every login; whatever session this browser held (another account's) ends.
    await ctx.sessions.destroy(req.cookies[SESSION_COOKIE]);
    // Spec 2 Roles rule 1; a membership just verified is Registered, so never `voter` (decision B53).
    const roles = u.roles.length > 0 ? [...u.roles] : ['user'];
    const { id } = await ctx.sessions.create({ user_id: userId, email, principal: u.principal, roles });
    setSessionCookie(reply, ctx.config.COOKIE_DOMAIN, id, ctx.config.SESSION_ABSOLUTE_HOURS * 3600);
    return { signed_in: true };
  } catch (e) {
    req.log.error(
      { event: 'verification.session_failed', user_id: userId, err: e instanceof Error ? e.message : String(e) },
      'verified, but no session could be made',
    );
    return { signed_in: false, reason: 'session_store' };
  }
}
