// The front door for the one request shape that carries nearly all traffic (decision D44): an
// authenticated `POST /api/v1/send` with a JSON body of known size that fits the small lane at once.
// Such a request is served on Node's HTTP objects directly: Fastify's request and reply objects,
// routing, hook runners and child logger were a third of a send's CPU. Every other request, and every
// such request this door does not take (no or bad token, other content types or paths, a query
// string, a chunked or empty or large body, a full lane, shutdown under way), goes to Fastify as
// before. The door runs the same send flow (`createSender`), the same body parser, budget, read
// deadline and shutdown rules, and writes the same status, headers, body and log lines. Its answers
// are written together at the end of each turn of the event loop (decision D48): one wake-up of the
// peer per batch instead of one per answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';
import type { Metrics, TokenRegistry } from '@domdao/service-kit';
import { accessLevel, accessLine, requestIdFor, traceOf } from '@domdao/service-kit';
import type { ByteBudget } from './byte-budget.ts';
import { parseJsonBody } from './json-body.ts';
import { fail, type SendAnswer, type SendRequest } from '../routes/send.ts';

export const SEND_PATH = '/api/v1/send';

/**
 * A request this door took, until it is answered or its connection ends; once its body is parsed, the
 * send's request too. Its logger is made on first use (decision D45): a send that goes well logs one
 * line, written from the parent's pieces. A class, not an object literal with a getter: V8 gives each
 * such literal a map of its own, and one per request made garbage collection a third of the CPU.
 */
class Entry implements SendRequest {
  /** Epoch ms by which the body must have arrived (D32); 0 once it has or the request ended. */
  deadline: number;
  readonly started = performance.now();
  private made: FastifyBaseLogger | undefined;
  /** The parsed body, once it has arrived. */
  body: unknown;
  /** The answer, once the send has one; written with its turn's batch (D48). */
  answer: SendAnswer | undefined;
  closeAfter = false;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly id: string,
    readonly traceId: string,
    readonly parentLog: Logger,
    readonly held: number,
    readTimeoutMs: number,
  ) {
    this.deadline = Date.now() + readTimeoutMs;
  }

  get log(): FastifyBaseLogger {
    return (this.made ??= this.parentLog.child({ request_id: this.id, trace_id: this.traceId }) as FastifyBaseLogger);
  }

  get idempotencyKey(): string | string[] | undefined {
    return this.req.headers['idempotency-key'];
  }
}

export interface FrontDoorOptions {
  registry: TokenRegistry;
  logger: Logger;
  lane: ByteBudget;
  /** Bodies this door takes: declared sizes from 1 to this many bytes (the small lane, D32). */
  maxBytes: number;
  readTimeoutMs: number;
  sender: (request: SendRequest) => SendAnswer | Promise<SendAnswer>;
  debugEnabled: boolean;
  /** LOG_REQUESTS (decision D50). */
  logRequests: boolean;
  metrics: Metrics;
  /** The client's address as Fastify's request.ip (TRUST_PROXY), for the access line's source_ip_class. */
  clientAddress: (req: IncomingMessage) => string | undefined;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const DIGITS = /^[0-9]{1,7}$/;
/** Answers queued for one write (D48); about 4 ms of sends on the bench machine. */
export const BATCH_LIMIT = 64;

export class FrontDoor {
  private readonly entries = new Set<Entry>();
  /** Answers given in this turn of the event loop, written together once it ends (D48). */
  private outgoing: Entry[] = [];
  private closing = false;
  /** Requests this door has taken (tests check that it serves what it should). */
  served = 0;
  /** Batches of answers written (tests check that one turn's answers go out together, D48). */
  batches = 0;

  /** Requests taken and not yet answered or gone, and the bytes of the small lane they hold (tests). */
  get open(): { requests: number; bytes: number } {
    let bytes = 0;
    for (const entry of this.entries) bytes += entry.held;
    return { requests: this.entries.size, bytes };
  }

  constructor(private readonly o: FrontDoorOptions) {}

  /** Serves `req` and returns true, or returns false (having done nothing) for Fastify to serve it. */
  take(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.closing || req.method !== 'POST' || req.url !== SEND_PATH) return false;
    const h = req.headers;
    if (h['content-type'] !== 'application/json' || h['transfer-encoding'] !== undefined) return false;
    const declared = h['content-length'];
    if (declared === undefined || !DIGITS.test(declared)) return false;
    const size = Number(declared);
    if (size === 0 || size > this.o.maxBytes) return false;
    if (!this.o.registry.check(h.authorization).ok) return false;
    const held = this.o.lane.tryAcquire(size);
    if (held === undefined) return false;

    this.served++;
    const entry = new Entry(
      req,
      res,
      requestIdFor(h['x-request-id']),
      traceOf(req).traceId,
      this.o.logger,
      held,
      this.o.readTimeoutMs,
    );
    this.entries.add(entry);
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
    });
    req.once('end', () => {
      entry.deadline = 0;
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      this.handle(entry, body);
    });
    // A connection that ends first (client gone, read deadline, shutdown) frees the reservation (release
    // runs once; `on` rather than `once` spares a wrapper per request).
    res.on('close', () => this.release(entry));
    return true;
  }

  private handle(entry: Entry, body: Buffer): void {
    let parsed: unknown;
    let parseError = false;
    parseJsonBody(undefined, body, (err, value) => {
      parseError = err !== null;
      parsed = value;
    });
    // As Fastify answers its parser's errors (D3, D39): 400 and the connection closed after it.
    if (parseError)
      return this.answer(
        entry,
        fail(400, 'invalid_request', entry.id, [{ field: 'body', message: 'is not valid JSON' }]),
        true,
      );
    entry.body = parsed;
    let answer: SendAnswer | Promise<SendAnswer>;
    try {
      answer = this.o.sender(entry);
    } catch (err) {
      return this.failed(entry, err);
    }
    // A send with nothing to wait for (stub mode, no Idempotency-Key) is answered in this turn (D45).
    if (answer instanceof Promise)
      answer.then(
        (a) => this.answer(entry, a, false),
        (err: unknown) => this.failed(entry, err),
      );
    else this.answer(entry, answer, false);
  }

  /** As Fastify's error handler (D3): a bug is logged and answered 500 without details. */
  private failed(entry: Entry, err: unknown): void {
    entry.log.error({ event: 'request.failed', err }, 'unhandled error');
    this.answer(entry, fail(500, 'internal_error', entry.id), false);
  }

  /**
   * Queues the answer; it is written with the others of this turn of the event loop (decision D48).
   * The body's reservation is released now: its bytes are parsed and no longer held.
   */
  private answer(entry: Entry, answer: SendAnswer, closeAfter: boolean): void {
    if (entry.res.destroyed || entry.answer !== undefined) return;
    entry.answer = answer;
    entry.closeAfter = closeAfter;
    this.release(entry);
    const queued = this.outgoing.push(entry);
    if (queued === 1) setImmediate(this.writeOutgoing);
    // A poll of the event loop can bring hundreds of requests: the first answers do not wait for all.
    else if (queued === BATCH_LIMIT) this.writeOutgoing();
  }

  /**
   * Writes every answer queued since the last call, in the order they were given. Also called when a
   * connection's client ends its side: Node's server ends the socket as soon as it reads that (it does
   * not keep half-open connections), so an answer still waiting for its batch would never be sent.
   */
  readonly writeOutgoing = (): void => {
    const batch = this.outgoing;
    // The immediate of a batch written at BATCH_LIMIT finds nothing, or the start of the next.
    if (batch.length === 0) return;
    this.outgoing = [];
    this.batches++;
    for (const entry of batch) this.write(entry);
  };

  private write(entry: Entry): void {
    const { res } = entry;
    const answer = entry.answer!;
    // The client may have gone while the answer waited for its batch.
    if (res.destroyed || res.headersSent) return;
    const payload = JSON.stringify(answer.body);
    // Name, value, name, value: Node writes a flat list as it is, without walking an object's keys.
    const headers = ['x-request-id', entry.id];
    if (answer.replayed) headers.push('idempotent-replayed', 'true');
    if (entry.closeAfter || this.closing) headers.push('connection', 'close');
    const bytes = Buffer.byteLength(payload);
    headers.push('content-type', JSON_TYPE, 'content-length', String(bytes));
    res.writeHead(answer.status, headers);
    res.end(payload);
    // The access line and the HTTP metrics, as Fastify's onResponse hook writes them (decisions D24, D50).
    const ms = performance.now() - entry.started;
    this.o.metrics.observeHttp('notification', 'POST', SEND_PATH, answer.status, ms / 1000);
    const level = accessLevel(this.o.logRequests, answer.status, false);
    if (level === 'info' || this.o.debugEnabled) {
      entry.log[level](
        accessLine('POST', SEND_PATH, answer.status, ms, bytes, this.o.clientAddress(entry.req)),
        'request completed',
      );
    }
  }

  private release(entry: Entry): void {
    if (!this.entries.delete(entry)) return;
    entry.deadline = 0;
    this.o.lane.release(entry.held);
  }

  /** D32: ends the connections whose body is past its read deadline; returns nothing. */
  sweep(now: number): void {
    for (const entry of this.entries) {
      if (entry.deadline === 0 || entry.deadline > now || entry.req.complete) continue;
      entry.deadline = 0;
      entry.log.warn(
        {
          event: 'request.body_timeout',
          declared_bytes: Number(entry.req.headers['content-length']),
          timeout_ms: this.o.readTimeoutMs,
        },
        'request body too slow; connection closed',
      );
      entry.req.socket.destroy();
      // A request queued behind another on its connection (pipelining) has no socket of its own yet,
      // and its response never closes: without this its reservation would be held for good.
      this.release(entry);
    }
  }

  /** D29 (amended by R27): no new requests (Fastify serves them); answers still to come, bodies still arriving included, close their connection. */
  close(): void {
    this.closing = true;
  }
}
