// Spec 2 sessions: POST /auth/login, GET /auth/session, POST /auth/logout, GET /api/auth/session.
import { Type } from '@sinclair/typebox';
import type { CanisterClients } from '@domdao/canisters';
import type { BridgeConfig } from '../../config.ts';
import type { Throttle } from '../../core/auth/brute-force.ts';
import { clientNetwork } from '../../core/auth/client-network.ts';
import type { Db } from '../../core/db/schema.ts';
import { HttpError } from '../../core/http/errors.ts';
import { normaliseEmail } from '../../core/identity/email.ts';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie } from '../../core/auth/cookie.ts';
import { csrfGuard } from '../../core/auth/csrf.ts';
import type { Guards } from '../../core/auth/guards.ts';
import type { Passwords } from '../../core/auth/passwords.ts';
import type { Session, SessionManager } from '../../core/auth/sessions.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import type { AuditRecorder } from '../../core/audit/log.ts';
import type { SignInCounters } from '../../core/metrics/meters.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import {
  loginDoc,
  getSessionDoc,
  getSessionWithMembershipDoc,
  logoutDoc,
  listMySessionsDoc,
  endMySessionsDoc,
} from './route-docs.ts';

export interface AuthOptions {
  config: Pick<
    BridgeConfig,
    'COOKIE_DOMAIN' | 'LOGIN_WINDOW_MINUTES' | 'LOGIN_MAX_FAILURES' | 'SESSION_ABSOLUTE_HOURS'
  >;
  db: Db;
  sessions: SessionManager;
  /** The login attempt counters (decisions B30, B52). */
  throttle: Throttle;
  /** Whether the member is Active, for the voter role (decision B53). */
  membership: Pick<CanisterClients['membership'], 'get_membership_status'>;
  /** The email's blind index under the bridge's key (identity/email.ts). */
  blindIndex(email: string): Uint8Array;
  /** Checks a password against the stored hash (decision B5). */
  passwords: Pick<Passwords, 'verify'>;
  frontendOrigins: ReadonlySet<string>;
  guards: Guards;
  /** Sign-ins, lockouts and ended sessions are audited (decision B61). */
  audit: AuditRecorder;
  /** Refused passwords and lockouts, counted (decision B69). */
  signIn?: SignInCounters;
}

/** The account's ceiling over every client address, as a multiple of LOGIN_MAX_FAILURES (decision B30). */
export const ACCOUNT_CEILING_FACTOR = 20;

const LoginBody = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 254 }), password: Type.String({ minLength: 1, maxLength: 1024 }) },
  { additionalProperties: true },
);

/** Spec 2 Roles rule 1: a user with no explicit roles carries `user`. */
export function effectiveRoles(roles: string[]): string[] {
  return roles.length > 0 ? [...roles] : ['user'];
}

/**
 * Decision B53: spec 2's membership table adds the `voter` role when a membership becomes Active. It is
 * derived from the membership canister's answer, never stored or granted: a session carries it while
 * the membership is Active, and loses it when the membership lapses or is revoked.
 */
export const VOTER = 'voter';
export function withVoter(roles: string[], active: boolean): string[] {
  const rest = roles.filter((r) => r !== VOTER);
  return active ? [...rest, VOTER] : rest;
}

export function sessionBody(s: Pick<Session, 'user_id' | 'email' | 'roles'>) {
  return { authenticated: true as const, user_id: s.user_id, email: s.email, roles: s.roles };
}

export default async function authRoutes(
  app: BridgeApp,
  {
    config,
    db,
    sessions,
    throttle,
    membership,
    blindIndex,
    passwords,
    frontendOrigins,
    guards,
    audit,
    signIn,
  }: AuthOptions,
): Promise<void> {
  const { currentSession } = guards;
  const csrf = csrfGuard(frontendOrigins, SESSION_COOKIE);
  const domain = config.COOKIE_DOMAIN;
  const invalid = () => new HttpError(401, 'INVALID_CREDENTIALS', 'the email address or the password is wrong');

  app.post('/auth/login', { schema: { ...routeSchema(loginDoc), body: LoginBody } }, async (req, reply) => {
    // Login CSRF: only a configured front end may sign someone in.
    csrf(req, req.headers.origin !== undefined);
    const { email, password } = req.body;
    const index = blindIndex(email);
    const account = Buffer.from(index).toString('hex');
    const windowMs = config.LOGIN_WINDOW_MINUTES * 60_000;
    const max = config.LOGIN_MAX_FAILURES;
    // Decision B30: the guess is reserved before the password is checked, (account, address) first, so
    // a client blocked there never counts against the account's ceiling, which other clients share.
    // Decision B119: an IPv6 client is its /64, which one host holds whole.
    const client = clientNetwork(req.ip);
    const pairKey = `login:${account}:${client}`;
    const keys = [pairKey, `login-address:${client}`, `login-account:${account}`];
    const wait = await throttle.reserve([
      { key: pairKey, limit: max, windowMs },
      { key: keys[1]!, limit: max * 10, windowMs },
      { key: keys[2]!, limit: max * ACCOUNT_CEILING_FACTOR, windowMs },
    ]);
    if (wait > 0) {
      signIn?.lockedOut();
      await audit.record(req, {
        event: 'auth.login_locked_out',
        outcome: 'denied',
        detail: { retry_after_seconds: wait },
      });
      throw new HttpError(429, 'TOO_MANY_ATTEMPTS', `too many failed logins; try again in ${wait} seconds`, {
        'retry-after': String(wait),
      });
    }
    const user = await db
      .selectFrom('users')
      .select(['id', 'principal', 'password_hash', 'roles', 'email_verified_at'])
      .where('email_index', '=', index)
      .executeTakeFirst();
    // Same work and the same answer for an unknown email and a wrong password.
    if (!(await passwords.verify(user?.password_hash, password)) || !user) {
      // The account an attempt named is its subject; an address with no account names none (decision B63).
      await audit.record(req, {
        event: 'auth.login_failed',
        subject: user?.id,
        outcome: 'failure',
        detail: { reason: 'invalid_credentials' },
      });
      signIn?.failed();
      throw invalid();
    }
    // The right password: the attempt was not a failure, and the client's own count starts again.
    await throttle.release(keys.slice(1));
    await throttle.clear(pairKey);
    // Decision B32: only someone holding the password learns that the address is not verified yet.
    if (user.email_verified_at === null) {
      await audit.record(req, {
        event: 'auth.login_failed',
        subject: user.id,
        outcome: 'failure',
        detail: { reason: 'email_not_verified' },
      });
      throw new HttpError(
        403,
        'EMAIL_NOT_VERIFIED',
        'confirm your email address first: follow the link in the email we sent (POST /api/auth/resend-verification sends a new one)',
      );
    }
    // A new id at every login; the one the browser held (if any) dies now.
    await sessions.destroy(req.cookies[SESSION_COOKIE]);
    // Roles are cached at login (spec 2 Roles rule 5), `voter` with them when the membership is Active
    // (decision B53). A membership canister that does not answer costs only `voter`, until
    // GET /api/auth/session hears the status.
    let active = false;
    try {
      active = (await membership.get_membership_status(user.principal))?.status === 'Active';
    } catch (e) {
      req.log.warn(
        { event: 'canister.unavailable', canister: 'membership', err: e instanceof Error ? e.message : String(e) },
        'membership status unavailable at login: no voter role until it answers',
      );
    }
    const session = {
      user_id: user.id,
      email: normaliseEmail(email),
      principal: user.principal,
      roles: withVoter(effectiveRoles(user.roles), active),
    };
    const { id } = await sessions.create(session);
    setSessionCookie(reply, domain, id, config.SESSION_ABSOLUTE_HOURS * 3600);
    await audit.record(req, {
      event: 'auth.login_succeeded',
      actor: user.id,
      outcome: 'success',
      detail: { roles: session.roles.join(',') },
    });
    return sessionBody(session);
  });

  app.get('/auth/session', { schema: routeSchema(getSessionDoc) }, async (req) => {
    const s = await currentSession(req);
    return s ? sessionBody(s) : { authenticated: false };
  });

  /** Spec 2: the bridge validates the cookie, resolves the principal and asks the membership canister. */
  app.get('/api/auth/session', { schema: routeSchema(getSessionWithMembershipDoc) }, async (req) => {
    const s = await currentSession(req);
    if (!s) return { authenticated: false };
    let token;
    try {
      token = await membership.get_membership_status(s.principal);
    } catch (e) {
      req.log.warn(
        { event: 'canister.unavailable', canister: 'membership', err: e instanceof Error ? e.message : String(e) },
        'membership status unavailable',
      );
      throw new HttpError(503, 'MEMBERSHIP_UNAVAILABLE', 'the membership canister did not answer; try again');
    }
    // Decision B53: this endpoint hears the membership's status, so it keeps `voter` true to it (the
    // membership became Active, or lapsed) in the answer and in the session /auth/session reads.
    const roles = withVoter(s.roles, token?.status === 'Active');
    if (roles.join() !== s.roles.join()) await sessions.setRoles(req.cookies[SESSION_COOKIE]!, roles);
    return { ...sessionBody({ ...s, roles }), ...(token && { membership_status: token.status }) };
  });

  // Decision F9: a member sees their own live sessions and can end them all.
  app.get('/api/me/sessions', { schema: routeSchema(listMySessionsDoc) }, async (req, reply) => {
    const s = await currentSession(req);
    if (!s) throw new HttpError(401, 'UNAUTHORIZED', 'sign in first');
    reply.header('cache-control', 'private, no-store');
    return { sessions: await sessions.listFor(s.user_id) };
  });

  app.delete('/api/me/sessions', { schema: routeSchema(endMySessionsDoc) }, async (req, reply) => {
    csrf(req);
    const s = await currentSession(req);
    if (!s) throw new HttpError(401, 'UNAUTHORIZED', 'sign in first');
    const ended = await sessions.destroyAllFor(s.user_id);
    clearSessionCookie(reply, domain);
    await audit.record(req, {
      event: 'sessions.ended',
      actor: s.user_id,
      outcome: 'success',
      detail: { scope: 'everywhere', sessions_ended: ended },
    });
    return { authenticated: false, sessions_ended: ended };
  });

  app.post('/auth/logout', { schema: routeSchema(logoutDoc) }, async (req, reply) => {
    csrf(req);
    const s = await currentSession(req);
    await sessions.destroy(req.cookies[SESSION_COOKIE]);
    clearSessionCookie(reply, domain);
    if (s)
      await audit.record(req, {
        event: 'sessions.ended',
        actor: s.user_id,
        outcome: 'success',
        detail: { scope: 'logout', sessions_ended: 1 },
      });
    return { authenticated: false };
  });
}
