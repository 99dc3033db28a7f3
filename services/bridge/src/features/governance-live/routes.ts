// GET /api/governance/live (decision V32): server-sent events that tell the web app a proposal
// changed (a vote arrived through the bridge, voting opened, it was tallied, executed…), so the
// proposal page and the list refresh without a polling loop per client. One reader per bridge
// instance follows the event log (decision V1) while anyone listens, at LIVE_POLL_MS, and at once
// when this instance published; every stream of the instance is fed from it. An event says which
// proposal and what happened, never who voted: the client reads the proposal again. Who gets a
// stream is admission.ts's (decision V37), a reader that falls behind is slow-readers.ts's (V38).
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { EventLog, EventType } from '../../core/events/bus.ts';
import { HttpError } from '../../core/http/errors.ts';
import { Int8Text } from '../../core/http/decimal.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { StreamAdmission, visitorKey, type RefusalReason, type StreamKind } from './admission.ts';
import { BoundedWriter } from './slow-readers.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import { streamGovernanceChangesDoc } from './route-docs.ts';

/** What changes a proposal's page or its row in the list. */
export const LIVE_TYPES: readonly EventType[] = [
  'MemberVoted',
  'ProposalCreated',
  'ProposalOpened',
  'ProposalTallied',
  'ProposalApproved',
  'ProposalRejected',
  'ProposalExecuted',
  'ProposalExpired',
  'ExecutionFailed',
];
const PAGE = 100;
/** A client's reconnection delay, told in the stream (EventSource's `retry`). */
const RETRY_MS = 3_000;
/** Retry-After of a refused stream, in seconds. */
const RETRY_AFTER = '10';

export interface GovernanceLiveOptions {
  events: Pick<EventLog, 'tail' | 'lastSeq' | 'onPublish'>;
  /** How often the reader looks for events other instances published. */
  pollMs: number;
  /** A comment line this often keeps proxies from closing an idle stream. */
  heartbeatMs: number;
  /** Streams this instance serves at once; one more is answered 503 (decisions V32, V37). */
  maxStreams: number;
  /** Of those, streams without a session at most; the rest is kept for members (decision V37). */
  maxAnonymousStreams: number;
  /** Streams one client holds at once: a member by account, a visitor by address (decision V37). */
  streamsPerClient: number;
  /** Bytes a stream may have waiting for a slow reader; past them it is dropped (decision V38). */
  maxBufferBytes: number;
  /** The signed-in user behind the request, if any. */
  signedIn(req: FastifyRequest): Promise<string | undefined>;
  /** Counts refusals and drops, and reads the open streams at scrape time (decisions V37, V38). */
  counters?: LiveStreamCounters;
  log: { warn(obj: object, msg: string): void };
}

export interface LiveStreamCounters {
  refused(reason: RefusalReason): void;
  dropped(reason: 'slow_reader'): void;
  open(read: () => Record<StreamKind, number>): void;
}

interface Listener {
  proposal: string | undefined;
  write(chunk: string): void;
  end(): void;
}

/** The one reader of an instance: follows the log from its end while there are listeners. */
class LiveReader {
  readonly listeners = new Set<Listener>();
  #cursor: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #closed = false;
  readonly #stopPublish: () => void;

  constructor(private readonly o: GovernanceLiveOptions) {
    this.#stopPublish = o.events.onPublish(() => this.wake());
  }

  /** Where a new stream starts: the log's end (it is told what happens from now on). */
  async start(): Promise<string> {
    return this.#cursor ?? (await this.o.events.lastSeq());
  }

  add(l: Listener, from: string): void {
    // Asked for on an open connection while the bridge closes (decision R27 serves such requests):
    // answered and ended at once, so it does not hold the close; the client reconnects elsewhere.
    if (this.#closed) return l.end();
    this.#cursor ??= from;
    this.listeners.add(l);
    this.#schedule();
  }

  remove(l: Listener): void {
    this.listeners.delete(l);
    if (this.listeners.size === 0) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      // Nobody listens: the next listener starts again from the end of the log.
      this.#cursor = undefined;
    }
  }

  wake(): void {
    if (this.listeners.size === 0) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#pass().finally(() => {
      this.#running = undefined;
      if (this.#again) {
        this.#again = false;
        this.wake();
      } else this.#schedule();
    });
  }

  close(): void {
    this.#closed = true;
    this.#stopPublish();
    clearTimeout(this.#timer);
    for (const l of this.listeners) l.end();
    this.listeners.clear();
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    if (this.listeners.size > 0) this.#timer = setTimeout(() => this.wake(), this.o.pollMs).unref();
  }

  async #pass(): Promise<void> {
    try {
      for (;;) {
        const from = this.#cursor;
        if (from === undefined) return;
        const page = await this.o.events.tail(from, LIVE_TYPES, PAGE);
        for (const e of page) {
          const proposal = String((e.data as { proposal_id?: string }).proposal_id ?? '');
          const chunk = `id: ${e.seq}\nevent: proposal\ndata: ${JSON.stringify({ type: e.type, proposal_id: proposal })}\n\n`;
          for (const l of this.listeners) if (l.proposal === undefined || l.proposal === proposal) l.write(chunk);
          this.#cursor = e.seq;
        }
        if (page.length < PAGE) return;
      }
    } catch (err) {
      // The database is away: the streams stay open and the next pass reads what was missed.
      this.o.log.warn(
        { event: 'live.read_failed', err: err instanceof Error ? err.message : String(err) },
        'the live stream could not read the event log; retrying',
      );
    }
  }
}

const Query = Type.Object(
  { proposal_id: Type.Optional(Int8Text('only this proposal’s events', 0n)) },
  { additionalProperties: false },
);

const REFUSALS: Record<
  RefusalReason,
  { code: 'LIVE_STREAMS_FULL' | 'TOO_MANY_STREAMS'; message: string; line: string }
> = {
  instance_full: {
    code: 'LIVE_STREAMS_FULL',
    message: 'too many live streams on this instance; try again shortly',
    line: 'live stream refused: LIVE_MAX_STREAMS reached',
  },
  anonymous_share_full: {
    code: 'LIVE_STREAMS_FULL',
    message: 'the live streams for visitors who are not signed in are all taken; try again shortly, or sign in',
    line: "live stream refused: the visitors' share (LIVE_ANONYMOUS_STREAMS_PERCENT) is taken",
  },
  per_client: {
    code: 'TOO_MANY_STREAMS',
    message: 'this client already holds as many live streams as one may; close one first',
    line: 'live stream refused: LIVE_STREAMS_PER_CLIENT reached',
  },
};

export default async function governanceLive(app: BridgeApp, opts: GovernanceLiveOptions): Promise<void> {
  const reader = new LiveReader(opts);
  const admission = new StreamAdmission(opts);
  opts.counters?.open(() => ({ ...admission.open }));
  // Open streams would hold a graceful shutdown (SIGTERM) until they end: end them first.
  app.addHook('preClose', async () => reader.close());

  app.get(
    '/api/governance/live',
    { schema: { ...routeSchema(streamGovernanceChangesDoc), querystring: Query } },
    async (req, reply) => {
      const user = await opts.signedIn(req);
      const kind: StreamKind = user === undefined ? 'anonymous' : 'member';
      const place = admission.admit(kind, user === undefined ? `visitor:${visitorKey(req.ip)}` : `member:${user}`);
      if (!place.admitted) {
        const r = REFUSALS[place.reason];
        opts.counters?.refused(place.reason);
        req.log.warn(
          { event: 'live.stream_refused', reason: place.reason, kind, streams: { ...admission.open } },
          r.line,
        );
        throw HttpError.of(r.code, r.message, { 'retry-after': RETRY_AFTER });
      }
      let from: string;
      try {
        // Before the stream is opened, so a database that is away is an ordinary error answer.
        from = await reader.start();
      } catch (err) {
        place.release();
        throw err;
      }
      const raw = reply.raw;
      // The headers set so far (request id, CORS) go out with the stream's own.
      for (const [name, value] of Object.entries(reply.getHeaders()))
        if (value !== undefined) raw.setHeader(name, value);
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        // nginx would otherwise buffer the stream (deploy/nginx honours this header).
        'x-accel-buffering': 'no',
        // A stream is the last answer on its connection: when it ends (at shutdown) the connection
        // closes with it, instead of idling until the keep-alive timeout holds the shutdown open.
        connection: 'close',
      });
      reply.hijack();
      let ended = false;
      const writer = new BoundedWriter(raw, opts.maxBufferBytes, (buffered) => {
        ended = true;
        clearInterval(heartbeat);
        opts.counters?.dropped('slow_reader');
        req.log.warn(
          {
            event: 'live.stream_dropped',
            reason: 'slow_reader',
            kind,
            buffered_bytes: buffered,
            written_bytes: writer.written,
            max_buffer_bytes: opts.maxBufferBytes,
          },
          'live stream dropped: its reader fell LIVE_MAX_BUFFER_BYTES behind',
        );
        // Its buffer goes with it: ending it would wait for a reader that does not read.
        raw.destroy();
      });
      const listener: Listener = {
        proposal: req.query.proposal_id,
        write: (chunk) => void (ended || writer.event(chunk)),
        end: () => {
          if (ended) return;
          ended = true;
          clearInterval(heartbeat);
          // The socket goes with the stream once its last bytes are written: a half-closed socket
          // would otherwise keep a graceful shutdown waiting for the client.
          const socket = raw.socket;
          raw.end(() => socket?.destroy());
        },
      };
      const heartbeat = setInterval(() => void (ended || writer.heartbeat(': heartbeat\n\n')), opts.heartbeatMs);
      heartbeat.unref();
      // The response's close: the client went away (or the stream was ended or dropped here).
      raw.once('close', () => {
        listener.end();
        reader.remove(listener);
        place.release();
      });
      writer.event(`retry: ${RETRY_MS}\n: live\n\n`);
      reader.add(listener, from);
    },
  );
}
