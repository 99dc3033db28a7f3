// Spec 2 sessions: POST /auth/login, GET /auth/session, POST /auth/logout, GET /api/auth/session.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { COOKIE, type BridgeContext } from '../context.ts';
import { HttpError } from '../http/errors.ts';
import { emailBlindIndex, normaliseEmail } from '../registration/blind-index.ts';
import { clearSessionCookie, setSessionCookie } from './cookie.ts';
import { csrfGuard } from './csrf.ts';
import { verifyPassword } from './passwords.ts';
import type { Session } from './sessions.ts';

const LoginBody = Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }), password: Type.String({ minLength: 1, maxLength: 1024 }) }, { additionalProperties: true });

/** Spec 2 Roles rule 1: a user with no explicit roles carries `user`. */
export function effectiveRoles(roles: string[]): string[] {
  return roles.length > 0 ? [...roles] : ['user'];
}

export function sessionBody(s: Pick<Session, 'user_id' | 'email' | 'roles'>) {
  return { authenticated: true as const, user_id: s.user_id, email: s.email, roles: s.roles };
}

export async function currentSession(ctx: BridgeContext, req: FastifyRequest): Promise<Session | undefined> {
  return ctx.sessions.read(req.cookies[COOKIE]);
}

export function authRoutes(app: FastifyInstance, ctx: BridgeContext): void {
  const csrf = csrfGuard(ctx.frontendOrigins, COOKIE);
  const domain = ctx.config.COOKIE_DOMAIN;
  const invalid = () => new HttpError(401, 'INVALID_CREDENTIALS', 'the email address or the password is wrong');

  app.post('/auth/login', { schema: { body: LoginBody } }, async (req, reply) => {
    // Login CSRF: only a configured front end may sign someone in.
    csrf(req, req.headers.origin !== undefined);
    const { email, password } = req.body as { email: string; password: string };
    const index = emailBlindIndex(ctx.keys.blindIndexKey, email);
    const accountKey = `account:${Buffer.from(index).toString('hex')}`;
    const addressKey = `address:${req.ip}`;
    const wait = await ctx.throttle.blockedFor([
      { key: accountKey, limit: ctx.config.LOGIN_MAX_FAILURES },
      { key: addressKey, limit: ctx.config.LOGIN_MAX_FAILURES * 10 },
    ]);
    if (wait > 0) throw new HttpError(429, 'TOO_MANY_ATTEMPTS', `too many failed logins; try again in ${wait} seconds`, { 'retry-after': String(wait) });
    const user = await ctx.db.selectFrom('users').select(['id', 'principal', 'password_hash', 'roles']).where('email_index', '=', index).executeTakeFirst();
    // Same work and the same answer for an unknown email and a wrong password.
    if (!(await verifyPassword(user?.password_hash, password)) || !user) {
      await ctx.throttle.fail([accountKey, addressKey]);
      throw invalid();
    }
    await ctx.throttle.clear(accountKey);
    // A new id at every login; the one the browser held (if any) dies now.
    await ctx.sessions.destroy(req.cookies[COOKIE]);
    const session = { user_id: user.id, email: normaliseEmail(email), principal: user.principal, roles: effectiveRoles(user.roles) };
    const { id } = await ctx.sessions.create(session);
    setSessionCookie(reply, domain, id, ctx.config.SESSION_ABSOLUTE_HOURS * 3600);
    req.log.info({ event: 'auth.login', user_id: user.id }, 'login');
    return sessionBody(session);
  });

  app.get('/auth/session', async (req) => {
    const s = await currentSession(ctx, req);
    return s ? sessionBody(s) : { authenticated: false };
  });

  /** Spec 2: the bridge validates the cookie, resolves the principal and asks the membership canister. */
  app.get('/api/auth/session', async (req) => {
    const s = await currentSession(ctx, req);
    if (!s) return { authenticated: false };
    let token;
    try {
      token = await ctx.canisters.membership.get_membership_status(s.principal);
    } catch (e) {
      req.log.warn({ event: 'canister.unavailable', canister: 'membership', err: e instanceof Error ? e.message : String(e) }, 'membership status unavailable');
      throw new HttpError(503, 'MEMBERSHIP_UNAVAILABLE', 'the membership canister did not answer; try again');
    }
    return { ...sessionBody(s), ...(token && { membership_status: token.status }) };
  });

  app.post('/auth/logout', async (req, reply) => {
    csrf(req);
    await ctx.sessions.destroy(req.cookies[COOKIE]);
    clearSessionCookie(reply, domain);
    return { authenticated: false };
  });

}
