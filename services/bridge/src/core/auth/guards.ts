// Who may call a route: the session behind the cookie, a signed-in user, a member acting through the
// governance gateway, an admin. Features take these through their options; an admin scope adds
// `guards.admin` once as its preHandler (it runs after body validation, where the handlers used to
// call it, so a malformed request still answers 400 before 401) and reads the admin with `signedIn`.
import '@fastify/cookie';
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { HttpError } from '../http/errors.ts';
import { SESSION_COOKIE } from './cookie.ts';
import { csrfGuard } from './csrf.ts';
import type { Session, SessionManager } from './sessions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The session a guard's preHandler accepted (null outside a guarded scope). */
    session: Session | null;
  }
}

export interface GuardOptions {
  sessions: Pick<SessionManager, 'read'>;
  /** Origins allowed to send cookie-authenticated mutations (decision B8). */
  frontendOrigins: ReadonlySet<string>;
  /** Where the bridge is reached: the login link of the bearer-defect answer (decision V10). */
  publicUrl: string;
}

export interface Guards {
  /** The live session behind the request's cookie, if any. */
  currentSession(req: FastifyRequest): Promise<Session | undefined>;
  /** Cross-site rule, then a signed-in user (401 UNAUTHORIZED otherwise). */
  requireSession(req: FastifyRequest): Promise<Session>;
  /** As requireSession, after refusing a bearer token without the cookie (spec 1 Authentication rule 6, decision V10). */
  requireMember(req: FastifyRequest): Promise<Session>;
  /** As requireSession, then the admin role (403 FORBIDDEN otherwise). */
  requireAdmin(req: FastifyRequest): Promise<Session>;
  /** preHandler of an admin scope: requireAdmin, the session kept on `req.session`. */
  admin: preHandlerAsyncHookHandler;
}

export function createGuards(o: GuardOptions): Guards {
  const csrf = csrfGuard(o.frontendOrigins, SESSION_COOKIE);
  const currentSession = (req: FastifyRequest) => o.sessions.read(req.cookies[SESSION_COOKIE]);
  const requireSession = async (req: FastifyRequest): Promise<Session> => {
    csrf(req);
    const s = await currentSession(req);
    if (!s) throw new HttpError(401, 'UNAUTHORIZED', 'sign in first');
    return s;
  };
  const requireAdmin = async (req: FastifyRequest): Promise<Session> => {
    const s = await requireSession(req);
    if (!s.roles.includes('admin'))
      throw Object.assign(new HttpError(403, 'FORBIDDEN', 'admin role required'), { actor: s.user_id });
    return s;
  };
  return {
    currentSession,
    requireSession,
    requireAdmin,
    async requireMember(req) {
      // A bearer token without the session cookie is the known front-end defect: answer 401 telling
      // the client to sign in again, never a half-session.
      if (
        /^bearer\s/i.test(String(req.headers.authorization ?? '')) &&
        typeof req.cookies?.[SESSION_COOKIE] !== 'string'
      ) {
        const origin =
          typeof req.headers.origin === 'string' && o.frontendOrigins.has(req.headers.origin)
            ? req.headers.origin
            : o.publicUrl;
        const login = `${o.publicUrl.replace(/\/+$/, '')}/login?returnUrl=${encodeURIComponent(origin)}`;
        throw new HttpError(
          401,
          'SESSION_REQUIRED',
          `this endpoint uses the session cookie, not a bearer token: sign in again at ${login}`,
          {
            'x-login-url': login,
          },
        );
      }
      return requireSession(req);
    },
    async admin(req) {
      req.session = await requireAdmin(req);
    },
  };
}

/** The session a guard's preHandler accepted; a route outside a guarded scope is a programming error. */
export function signedIn(req: FastifyRequest): Session {
  if (!req.session) throw new Error(`${req.method} ${req.routeOptions.url}: no guard ran before the handler`);
  return req.session;
}
