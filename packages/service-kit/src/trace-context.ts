// W3C Trace Context (decision E16): the gateway starts a trace or continues a caller's, the bridge and
// the notification service continue what the gateway sent, every line of a request carries its
// `trace_id`, and outgoing calls (the notification service, the inference server) carry a
// `traceparent` naming this service's span as their parent. Only `traceparent` is read; `tracestate`
// passes through untouched (the gateway forwards headers as they are).
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomFillSync } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface TraceContext {
  /** 32 lowercase hex digits, never all zero. */
  readonly traceId: string;
  /** This service's span: 16 lowercase hex digits, never all zero. */
  readonly spanId: string;
  /** Trace flags as two hex digits (`01` sampled). */
  readonly flags: string;
  /** Whether the trace was continued from the caller's `traceparent` (false: started here). */
  readonly continued: boolean;
}

// Version 00 exactly; a later version is read by its first four fields (W3C level 1, "versioning").
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The caller's trace id and flags, or undefined when the header is absent or malformed (then a new trace starts). */
export function parseTraceparent(
  header: string | string[] | undefined,
): { traceId: string; parentId: string; flags: string } | undefined {
  // Two traceparent headers are ambiguous: W3C says to start a new trace.
  if (typeof header !== 'string' || header.length < 55) return undefined;
  const m = TRACEPARENT.exec(header.trim());
  if (!m) return undefined;
  const [, version, traceId, parentId, flags, rest] = m as unknown as [
    string,
    string,
    string,
    string,
    string,
    string | undefined,
  ];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || parentId === ZERO_SPAN) return undefined;
  return { traceId, parentId, flags };
}

// Random ids from a pool refilled 4 KiB at a time: one syscall for about 170 requests.
const pool = Buffer.alloc(4096);
let offset = pool.length;
function randomHex(bytes: number): string {
  for (;;) {
    if (offset + bytes > pool.length) {
      randomFillSync(pool);
      offset = 0;
    }
    const hex = pool.toString('hex', offset, offset + bytes);
    offset += bytes;
    // All-zero ids are invalid; the chance is 2^-64 at worst, so just draw again.
    if (!/^0+$/.test(hex)) return hex;
  }
}

/** Continues the caller's trace with a new span of this service, or starts a new (sampled) trace. */
export function continueTrace(header: string | string[] | undefined): TraceContext {
  const parent = parseTraceparent(header);
  if (parent) return { traceId: parent.traceId, spanId: randomHex(8), flags: parent.flags, continued: true };
  return { traceId: randomHex(16), spanId: randomHex(8), flags: '01', continued: false };
}

/** The `traceparent` a call made from within `ctx` carries: this service's span as the parent. */
export function traceparentOf(ctx: TraceContext): string {
  return `00-${ctx.traceId}-${ctx.spanId}-${ctx.flags}`;
}

const TRACE = Symbol('domdao.trace');
type Traced = IncomingMessage & { [TRACE]?: TraceContext };

/** The request's trace context, made once from its `traceparent` header and kept on the request. */
export function traceOf(req: IncomingMessage): TraceContext {
  const r = req as Traced;
  return (r[TRACE] ??= continueTrace(req.headers.traceparent));
}

/** The trace of the work under way (a request's handlers and what they await), where a service sets it. */
export const traceStore = new AsyncLocalStorage<TraceContext>();

/** `traceparent` for an outgoing call made now, or undefined outside any trace (background work). */
export function currentTraceparent(): string | undefined {
  const ctx = traceStore.getStore();
  return ctx === undefined ? undefined : traceparentOf(ctx);
}

/**
 * Runs `fn` in the trace under way, or as the start of a new one (a scheduled job's run: its calls and
 * lines share one trace id; a run an admin's request started stays in that request's trace).
 */
export function inNewTrace<T>(fn: () => T): T {
  return traceStore.getStore() === undefined ? traceStore.run(continueTrace(undefined), fn) : fn();
}

/** What a Fastify instance needs for traceRequests (this package does not depend on Fastify). */
interface HookApp {
  addHook(
    name: 'onRequest' | 'preValidation',
    hook: (request: { raw: IncomingMessage }, reply: unknown, done: () => void) => void,
  ): unknown;
}

/**
 * Keeps the request's trace in `traceStore` while its hooks and handler run, so log lines made through
 * any logger (pino's mixin reads the store, see createLogger) and outgoing calls see it. Entered again
 * before validation: body parsing runs on the socket's callbacks, outside the request's context.
 */
export function traceRequests(app: HookApp): void {
  const enter = (request: { raw: IncomingMessage }, _reply: unknown, done: () => void) =>
    traceStore.run(traceOf(request.raw), done);
  app.addHook('onRequest', enter);
  app.addHook('preValidation', enter);
}
