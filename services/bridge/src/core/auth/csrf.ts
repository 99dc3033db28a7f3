// Cross-site protection of cookie-authenticated mutations (decision B8). SameSite=Lax does not stop a
// sibling subdomain of the shared parent domain, so every unsafe request that carries the session
// cookie (and every login) must come from a configured front-end origin (Origin header, or Referer's
// origin when a browser omits Origin) and must be JSON or carry X-Requested-With, which a plain HTML
// form cannot send cross-site without a CORS preflight.
import '@fastify/cookie';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../http/errors.ts';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The request's origin: the Origin header when present (`null` included, refused by the guard), else Referer's. */
export function requestOrigin(req: FastifyRequest): string | undefined {
  const origin = req.headers.origin;
  // `Origin: null` (sandboxed frames, data: URLs, some redirects) is never trusted: a Referer sent with
  // it may name a front end while the request's real context is opaque (decision B8).
  if (typeof origin === 'string') return origin;
  const referer = req.headers.referer;
  if (typeof referer === 'string') {
    try {
      return new URL(referer).origin;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export function csrfGuard(allowed: ReadonlySet<string>, cookieName: string) {
  return (req: FastifyRequest, force = false): void => {
    if (!UNSAFE.has(req.method)) return;
    const hasCookie = typeof req.cookies?.[cookieName] === 'string';
    if (!hasCookie && !force) return;
    const origin = requestOrigin(req);
    if (origin === undefined)
      throw new HttpError(403, 'CSRF_REJECTED', 'cross-site check failed: the request carries no Origin');
    if (origin === 'null')
      throw new HttpError(403, 'CSRF_REJECTED', 'cross-site check failed: an opaque (null) Origin is never trusted');
    if (!allowed.has(origin))
      throw new HttpError(403, 'CSRF_REJECTED', 'cross-site check failed: this origin is not a configured front end');
    const type = String(req.headers['content-type'] ?? '');
    const json = /^application\/json\b/i.test(type);
    if (
      !json &&
      req.headers['x-requested-with'] === undefined &&
      req.headers['content-length'] !== undefined &&
      req.headers['content-length'] !== '0'
    ) {
      throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'send JSON (Content-Type: application/json)');
    }
  };
}
