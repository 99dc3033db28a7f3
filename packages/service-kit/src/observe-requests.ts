// Every answered request, once (decisions D50, B69): the access line and the HTTP metrics, from one
// onResponse hook. The line is `request.completed` with method, route template, status, ms, bytes and
// the client's address class; the request's logger adds request_id (and trace_id, decision E16).
// LOG_REQUESTS=true (the default) writes it at info for every request but successful health checks;
// LOG_REQUESTS=false writes it at info for failures only (debug otherwise), as before (decision D24).
import { sourceIpClass } from './ip-class.ts';
import { UNMATCHED_ROUTE, type Metrics } from './metrics.ts';

export interface AccessLineFields {
  event: 'request.completed';
  method: string;
  /** The route template (`/api/users/:id`), never the path: paths can carry tokens (unsubscribe links). */
  route: string;
  status: number;
  /** Time to the end of the answer, ms with one decimal. */
  ms: number;
  /** The answer's declared Content-Length; absent for a streamed answer without one. */
  bytes?: number;
  source_ip_class: string;
  trace_id?: string;
}

export function accessLine(
  method: string,
  route: string,
  status: number,
  ms: number,
  bytes: number | undefined,
  ip: string | undefined,
): AccessLineFields {
  const line: AccessLineFields = {
    event: 'request.completed',
    method,
    route,
    status,
    ms: Math.round(ms * 10) / 10,
    source_ip_class: sourceIpClass(ip),
  };
  if (bytes !== undefined && Number.isFinite(bytes)) line.bytes = bytes;
  return line;
}

/** The level of a request's access line: failures always at info; successes at info when logged, else debug. */
export function accessLevel(logRequests: boolean, status: number, quiet: boolean): 'info' | 'debug' {
  return status >= 400 || (logRequests && !quiet) ? 'info' : 'debug';
}

export interface ObserveOptions {
  service: string;
  metrics: Metrics;
  /** LOG_REQUESTS. */
  logRequests: boolean;
  /** Requests whose successful answers leave no line at info: health checks (decision D50). */
  quiet?: (request: Req, route: string) => boolean;
  /** Put the request's trace id in the line (where the request's logger does not bind it). */
  traceId?: (request: Req) => string | undefined;
}

interface Req {
  method: string;
  url: string;
  ip: string;
  routeOptions: { url?: string | undefined };
  log: {
    info(obj: object, msg: string): void;
    debug(obj: object, msg: string): void;
    isLevelEnabled?(level: string): boolean;
  };
}
interface Rep {
  statusCode: number;
  elapsedTime: number;
  getHeader(name: string): unknown;
}
interface HookApp {
  addHook(name: 'onResponse', hook: (request: Req, reply: Rep, done: () => void) => void): unknown;
}

export function observeRequests(app: HookApp, o: ObserveOptions, debugEnabled: boolean): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const status = reply.statusCode;
    const ms = reply.elapsedTime;
    o.metrics.observeHttp(o.service, request.method, route, status, ms / 1000);
    const level = accessLevel(o.logRequests, status, o.quiet?.(request, route) ?? false);
    if (level === 'debug' && !debugEnabled) return done();
    const declared = reply.getHeader('content-length');
    const line = accessLine(
      request.method,
      route,
      status,
      ms,
      declared === undefined ? undefined : Number(declared),
      request.ip,
    );
    const traceId = o.traceId?.(request);
    if (traceId !== undefined) line.trace_id = traceId;
    request.log[level](line, 'request completed');
    done();
  });
}
