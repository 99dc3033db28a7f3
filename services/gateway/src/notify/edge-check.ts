// The /notify checks made at the edge, before a byte is forwarded (spec 3 Authentication 1, decisions
// E3–E5): a browser is refused (the service token is for services and never reaches a browser), then
// the bearer token is checked constant-time exactly as the service checks it (service-kit's
// TokenRegistry, decision D1), so a wrong or foreign-scoped token never reaches the service.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseForeignTokens, TokenRegistry, tokenPrefix } from '@domdao/service-kit';
import type { GatewayConfig } from '../config.ts';
import { declaredTooLarge } from '../upstream.ts';
import { notifyError } from './errors.ts';

/** The bridge's session cookie (spec 2 "Session cookie"): its presence marks a browser. */
const SESSION_COOKIE = /(?:^|;\s*)session=/;

/**
 * Why a request looks like it comes from a browser, or undefined (decisions E4, E15). `Sec-Fetch-Mode`
 * alone is no mark: Node's own fetch (undici) sends `Sec-Fetch-Mode: cors` on every request, while a
 * browser always sends `Sec-Fetch-Site` with it.
 */
export function browserMark(headers: FastifyRequest['headers']): { field: string; message: string } | undefined {
  if (headers.origin !== undefined)
    return { field: 'Origin', message: 'browser requests may not call /notify: the service token is for services' };
  // Fetch metadata: every current browser sends it, and page scripts cannot remove it.
  if (headers['sec-fetch-site'] !== undefined)
    return {
      field: 'Sec-Fetch-Site',
      message: 'browser requests may not call /notify: the service token is for services',
    };
  const cookie = headers.cookie;
  if (cookie !== undefined && SESSION_COOKIE.test(cookie))
    return { field: 'Cookie', message: 'requests carrying the session cookie may not call /notify' };
  return undefined;
}

/** Health is public at the service (spec 3 Authentication 1); the edge mirrors it. */
const PUBLIC = new Set(['/notify/api/v1/health']);

export function notifyEdgeCheck(config: GatewayConfig) {
  const registry = new TokenRegistry(
    'notification',
    config.NOTIFICATION_SERVICE_TOKEN,
    parseForeignTokens(config.FOREIGN_SERVICE_TOKENS, config.NOTIFICATION_SERVICE_TOKEN, 'notification'),
  );
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const path = request.url.split('?', 1)[0]!;
    // Fail-closed as the service itself (spec 3 Authentication 2): no token configured, nothing passes.
    if (!registry.configured) return void notifyError(reply, 503, 'service_unavailable');
    const browser = browserMark(request.headers);
    if (browser) {
      request.log.warn(
        { event: 'edge.browser_refused', path, reason: browser.field },
        '/notify refused a browser request',
      );
      return void notifyError(reply, 403, 'forbidden', [browser]);
    }
    if (declaredTooLarge(request, config.MAX_BODY_BYTES)) return void notifyError(reply, 413, 'payload_too_large');
    if (PUBLIC.has(path)) return done();
    const authorization = request.headers.authorization;
    const result = registry.check(authorization);
    if (result.ok) return done();
    request.log.warn(
      { event: 'edge.unauthorized', path, token_prefix: tokenPrefix(authorization), reason: result.reason },
      '/notify request rejected at the edge',
    );
    void (result.status === 403 ? notifyError(reply, 403, 'forbidden') : notifyError(reply, 401, 'unauthorized'));
  };
}
