// The `session` cookie exactly as spec 2's table sets it: Domain (leading dot) from COOKIE_DOMAIN,
// Path /, HttpOnly, Secure, SameSite=Lax; logout clears it with Max-Age 0 on the same domain.
import type { FastifyReply } from 'fastify';

/** The session cookie's name (spec 2). */
export const SESSION_COOKIE = 'session';

export function setSessionCookie(
  reply: FastifyReply,
  domain: string | undefined,
  id: string,
  maxAgeSeconds: number,
): void {
  reply.setCookie(SESSION_COOKIE, id, {
    ...(domain !== undefined && { domain }),
    path: '/',
    httpOnly: true,
    secure: true,
    sameSite: 'lax',
    maxAge: maxAgeSeconds,
  });
}

export function clearSessionCookie(reply: FastifyReply, domain: string | undefined): void {
  reply.setCookie(SESSION_COOKIE, '', {
    ...(domain !== undefined && { domain }),
    path: '/',
    httpOnly: true,
    secure: true,
    sameSite: 'lax',
    maxAge: 0,
    expires: new Date(0),
  });
}
