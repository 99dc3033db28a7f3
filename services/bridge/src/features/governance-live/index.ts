// GET /api/governance/live (decision V32): server-sent events that tell the web app a proposal
// changed (a vote arrived through the bridge, voting opened, it was tallied, executed…), so the
// proposal page and the list refresh without a polling loop per client. One reader per bridge
// instance follows the event log (decision V1) while anyone listens, at LIVE_POLL_MS, and at once
// when this instance published; every stream of the instance is fed from it. An event says which
// proposal and what happened, never who voted: the client reads the proposal again.
import { Type } from '@sinclair/typebox';
import type { EventLog, EventType } from '../../core/events/index.ts';
import { HttpError } from '../../core/http/errors.ts';
import { Int8Text } from '../../core/http/decimal.ts';
import type { BridgeApp } from '../../core/http/typed.ts';

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

export interface GovernanceLiveOptions {
  events: Pick<EventLog, 'tail' | 'lastSeq' | 'onPublish'>;
  /** How often the reader looks for events other instances published. */
  pollMs: number;
  /** A comment line this often keeps proxies from closing an idle stream. */
  heartbeatMs: number;
  /** Streams this instance serves at once; one more is answered 503 (decision V32). */
  maxStreams: number;
  log: { warn(obj: object, msg: string): void };
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

const Query = Type.Object({ proposal_id: Type.Optional(Int8Text('only this proposal’s events', 0n)) }, { additionalProperties: false });

export default async function governanceLive(app: BridgeApp, opts: GovernanceLiveOptions): Promise<void> {
  const reader = new LiveReader(opts);
  // Open streams would hold a graceful shutdown (SIGTERM) until they end: end them first.
  app.addHook('preClose', async () => reader.close());

  app.get('/api/governance/live', { schema: { querystring: Query } }, async (req, reply) => {
    if (reader.listeners.size >= opts.maxStreams) {
      req.log.warn({ event: 'live.stream_refused', streams: reader.listeners.size }, 'live stream refused: LIVE_MAX_STREAMS reached');
      throw new HttpError(503, 'LIVE_STREAMS_FULL', 'too many live streams on this instance; try again shortly', { 'retry-after': '10' });
    }
    // Before the stream is opened, so a database that is away is an ordinary error answer.
    const from = await reader.start();
    const raw = reply.raw;
    // The headers set so far (request id, CORS) go out with the stream's own.
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) raw.setHeader(name, value);
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
    raw.write(`retry: ${RETRY_MS}\n: live\n\n`);
    let ended = false;
    const listener: Listener = {
      proposal: req.query.proposal_id,
      write: (chunk) => void (ended || raw.write(chunk)),
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
    const heartbeat = setInterval(() => listener.write(': heartbeat\n\n'), opts.heartbeatMs);
    heartbeat.unref();
    // The response's close: the client went away (or the stream was ended here).
    raw.once('close', () => {
      listener.end();
      reader.remove(listener);
    });
    reader.add(listener, from);
  });
}
