// How the gateway talks to a service (decision E6): @fastify/reply-from over an undici pool per
// route group, bodies streamed both ways, the request id and the client's address handed on.
import { finished, Transform, type Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IDLE_CLOSE_MS, traceOf, traceparentOf } from '@domdao/service-kit';
import type { GatewayConfig } from './config.ts';
import { earlyAnswerConnector } from './early-answer.ts';
import { continueBody } from './expect-continue.ts';

/**
 * Decisions E19 and E20: how long an idle connection to a service is kept for the next request, half
 * the idle bound after which a closing service closes a quiet connection itself (IDLE_CLOSE_MS,
 * decisions R27 and R48: 3 s, so 1.5 s here). The gateway so never sends a request on a connection the
 * service may be closing at that moment (the request would be lost unanswered, a 503 here and a 502 at
 * a proxy that does not retry a POST), even when it went 1.5 s without CPU.
 */
export const UPSTREAM_IDLE_MS = IDLE_CLOSE_MS / 2;

/** undici pool settings for every upstream: bounded connections, decided timeouts, early answers relayed (decision E17). */
export function poolOptions(config: GatewayConfig) {
  return {
    connections: 128,
    pipelining: 1,
    connect: earlyAnswerConnector({ timeout: config.UPSTREAM_CONNECT_TIMEOUT_MS }),
    headersTimeout: config.UPSTREAM_TIMEOUT_MS,
    bodyTimeout: config.UPSTREAM_TIMEOUT_MS,
    // Both: a service's `Keep-Alive: timeout=72` hint would otherwise set undici's to 70 s.
    keepAliveTimeout: UPSTREAM_IDLE_MS,
    keepAliveMaxTimeout: UPSTREAM_IDLE_MS,
  };
}

/**
 * Headers the service sees: the gateway's request id, its trace context (decision E16: the caller's
 * trace continued, or a new one, with the gateway's span as the parent), and X-Forwarded-* it can
 * trust (decision E7).
 * `Expect` is met at the edge (decision E14) and undici refuses to send it, so it stays here.
 */
export function forwardHeaders(request: FastifyRequest, headers: Record<string, string | string[] | undefined>) {
  const peer = request.socket.remoteAddress ?? '';
  // A client's own X-Forwarded-For is kept only when it came through a trusted proxy (TRUST_PROXY).
  const forwarded = request.headers['x-forwarded-for'];
  const prior =
    request.ips !== undefined && request.ips.length > 1
      ? Array.isArray(forwarded)
        ? forwarded.join(', ')
        : forwarded
      : undefined;
  const { expect: _expect, ...rest } = headers;
  return {
    ...rest,
    'x-request-id': request.id,
    traceparent: traceparentOf(traceOf(request.raw)),
    'x-forwarded-for': prior ? `${prior}, ${peer}` : peer,
    'x-forwarded-proto': request.protocol,
    'x-forwarded-host': request.host,
  };
}

export class BodyTooLarge extends Error {}

/** A declared `Content-Length` over the limit, refused before a byte of the body is read (decisions D8, E5). */
export function declaredTooLarge(request: FastifyRequest, maxBytes: number): boolean {
  const declared = request.headers['content-length'];
  return declared !== undefined && !(Number(declared) <= maxBytes);
}

/**
 * Content-type parser that hands the body on as a stream (never buffered: a 25 MiB attachment passes
 * through in 64 KiB chunks) and cuts it off past MAX_BODY_BYTES, declared or not.
 */
export function streamedBody(maxBytes: number) {
  return (
    request: FastifyRequest,
    payload: NodeJS.ReadableStream,
    done: (err: Error | null, body?: unknown) => void,
  ): void => {
    // The checks before the body passed: a client waiting on `Expect: 100-continue` may send it now.
    continueBody(request.raw);
    let seen = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        seen += chunk.length;
        if (seen > maxBytes) cb(new BodyTooLarge(`request body over ${maxBytes} bytes`));
        else cb(null, chunk);
      },
    });
    payload.pipe(counted);
    // A client that goes away, or a body cut past the limit, ends both sides. A forwarded body that
    // closes without an error (the service answered before reading it all) leaves the client's
    // request alone: its answer still has to reach the client, which lingers on the rest (E17).
    finished(payload, (err) => void (err && counted.destroy(err)));
    counted.once('error', () => (payload as Readable).destroy());
    counted.once('close', () => payload.unpipe(counted));
    done(null, counted);
  };
}

export type UpstreamFailure = { status: 502 | 503 | 504; reason: 'unreachable' | 'timeout' | 'bad_response' };

/** reply-from's errors as what the caller is told (decision E8). */
export function upstreamFailure(error: { statusCode?: number; code?: string; cause?: unknown }): UpstreamFailure {
  // reply-from wraps undici's error; the cause's code says what happened (ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT, …).
  const codes: string[] = [];
  for (let e: unknown = error; e && codes.length < 5; e = (e as { cause?: unknown }).cause) {
    const c = (e as { code?: unknown }).code;
    codes.push(typeof c === 'string' ? c : '');
  }
  const code = codes.join(' ');
  if (error.statusCode === 504 || /TIMEOUT/.test(code)) return { status: 504, reason: 'timeout' };
  if (error.statusCode === 503 || /ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|SOCKET|CONNECT/.test(code))
    return { status: 503, reason: 'unreachable' };
  return { status: 502, reason: 'bad_response' };
}

export function logFailure(
  reply: FastifyReply,
  upstream: string,
  error: { code?: string; message?: string },
  failure: UpstreamFailure,
): void {
  reply.request.log.error(
    { event: 'upstream.failed', upstream, code: error.code, reason: failure.reason, status: failure.status },
    `${upstream} ${failure.reason}`,
  );
}

/**
 * Decision E21 (RFC 9110 §7.6.1): a proxy does not relay the hop-by-hop headers of its upstream connection:
 * `Connection`, the fields it names, `Keep-Alive` and `Proxy-Connection`. The service's `Keep-Alive: timeout=72`
 * and `Connection: keep-alive` (or a closing service's `close`) describe the gateway's pooled connection to it, not
 * the client's to the gateway: Node then writes the gateway's own `Connection` and `Keep-Alive` for that one, and
 * `Connection: close` where the gateway ends it (while it closes, R27; an answer before the request's body was read,
 * which reply-from marks itself, E17).
 */
export function dropHopByHop<H extends Record<string, unknown>>(headers: H): H {
  const connection = headers.connection;
  const named = (typeof connection === 'string' ? connection : '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', ...named]);
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !hopByHop.has(name.toLowerCase()))) as H;
}
