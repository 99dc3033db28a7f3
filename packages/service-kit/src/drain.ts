// A close that answers every request that reaches a connection (decisions R14, R27, R48).
// - The listener stops first, at a quiet turn of the event loop (QUIET_TURN_MS): a connection made
//   after that is refused, so its request was never sent.
// - The connections already open are served on. From then on every answer says `Connection: close`,
//   so Node ends its connection once it is written and the client's next connection is refused.
// - The server itself closes a connection only once it has been quiet for idleMs (IDLE_CLOSE_MS): no
//   answer in progress and not a byte read since its last answer ended (or since it was opened: a
//   client's spare connection, on which nothing was ever sent), counted from then even when that was
//   before the close began, and checked again after the event loop has read what had arrived by then.
//   A request whose bytes have begun to arrive is never cut here: the caller's grace period bounds it
//   (npm start's SHUTDOWN_GRACE_SECONDS).
// - A connection the kernel completed in the instant between the event loop's last accept and the
//   listener's close is reset by the kernel, unread: no single listener can prevent it (decision R55).
//   The close logs every connection it served (drain.closed), so such a reset can be told apart.
// Node's server.close() and Fastify's close() destroy instead every connection idle at the instant
// the close begins, and a keep-alive client may just have sent a request on one: under load 1 to 5
// requests were reset at each SIGTERM (ECONNRESET; 502s behind a proxy), and a client could not tell
// whether its POST had been acted on.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long a connection must have been quiet since its last answer before a closing server closes it
 * (decisions R27, R48): longer than a keep-alive client takes to send its next request on the same
 * connection, a round trip (well under a millisecond on loopback or in a data centre, a few hundred
 * across the internet) plus the time its process may go without CPU: a client whose process was
 * starved across the close for 2.4 s (one CPU busy elsewhere, load 12) read its last kept-alive answer
 * and sent its next requests on a connection the server had closed at 1 s, and they were reset.
 * The gateway keeps an idle connection to a service for half of it (decisions E19, E20), so it never
 * sends on one a closing service may be closing.
 */
export const IDLE_CLOSE_MS = 3000;

/** What drainOnClose needs of a Fastify instance (this package does not depend on Fastify). */
export interface DrainableApp {
  readonly server: {
    close(): unknown;
    closeIdleConnections(): void;
    on(event: 'connection', listener: (socket: Socket) => void): unknown;
    on(event: 'request', listener: (req: IncomingMessage, res: ServerResponse) => void): unknown;
    once(event: 'close', listener: () => void): unknown;
  };
  addHook(name: string, hook: (...args: never[]) => unknown): unknown;
  readonly log: { info(fields: object, message: string): void };
}

interface Reply {
  header(name: string, value: string): unknown;
  readonly raw: { readonly headersSent: boolean; removeHeader(name: string): void };
}

/** Node's own record of the response a socket is answering (set from a request's headers to its answer's end). */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

export interface DrainOptions {
  /** IDLE_CLOSE_MS unless a test says otherwise. */
  idleMs?: number;
}

/**
 * When to stop listening. A connection the kernel has queued and Node has not yet accepted is reset
 * when the listener closes, after its client sent a request on it. Node accepts in its event loop's
 * poll phase, so the listener is closed in a check phase right after a turn that accepted nothing
 * and took under QUIET_TURN_MS (little ran between the poll and the close, so little time for a
 * connection to arrive unseen), or once QUIET_WAIT_MS have passed without such a turn.
 */
export const QUIET_TURN_MS = 1;
export const QUIET_WAIT_MS = 500;

/** At most this many peers named in drain.closed (the count is always whole). */
export const PEERS_LOGGED = 1000;

/** A socket's peer as `address:port` (`[address]:port` for IPv6). */
function peer(socket: Socket): string {
  const address = socket.remoteAddress ?? 'unknown';
  return `${address.includes(':') ? `[${address}]` : address}:${socket.remotePort ?? 0}`;
}

/**
 * Registers the hooks on `app`; call it on the root instance before any plugin. Build the instance
 * with `return503OnClosing: false`: Fastify would otherwise answer 503 to every request routed once
 * the close has begun, instead of serving it.
 */
export function drainOnClose(app: DrainableApp, options: DrainOptions = {}): void {
  const idleMs = options.idleMs ?? IDLE_CLOSE_MS;
  /** The close has begun (Fastify routes new requests as closing). */
  let stopping = false;
  /** The listener is closed: every answer says `Connection: close`. */
  let closing = false;
  let accepted = 0;
  const sockets = new Set<HttpSocket>();
  /** Every connection the close served: open when it began, or accepted before the listener closed (R55). */
  const served = new Set<string>();
  /**
   * A quiet connection (decision R48): since when (its opening or its last answer's end, before the
   * close or during it), and how many bytes it had read then (more means a request has begun).
   */
  const quiet = new Map<HttpSocket, { since: number; bytes: number }>();
  const settle = (socket: HttpSocket) => {
    if (socket._httpMessage || socket.destroyed) quiet.delete(socket);
    else quiet.set(socket, { since: performance.now(), bytes: socket.bytesRead });
  };
  app.server.on('connection', (socket) => {
    accepted++;
    sockets.add(socket);
    if (stopping) served.add(peer(socket));
    quiet.set(socket, { since: performance.now(), bytes: 0 });
    socket.once('close', () => {
      sockets.delete(socket);
      quiet.delete(socket);
    });
  });
  // Node's own 'finish' listener detaches the response first: then the socket is quiet, or answers the next one.
  app.server.on('request', (req, res) => res.once('finish', () => settle(req.socket)));

  /** Runs `then` in a check phase after a quiet turn of the event loop (see QUIET_TURN_MS). */
  const atQuietTurn = (then: () => void) => {
    const start = performance.now();
    const step = (before: number, from: number) =>
      setImmediate(() => {
        const now = performance.now();
        if ((accepted === before && now - from < QUIET_TURN_MS) || now - start >= QUIET_WAIT_MS) then();
        else step(accepted, now);
      });
    // The first step runs in a check phase; each later one a turn later, after that turn's poll phase.
    setImmediate(() => step(accepted, performance.now()));
  };

  app.addHook('preClose', (done: () => void) => {
    stopping = true;
    const began = performance.now();
    const server = app.server;
    for (const socket of sockets) served.add(peer(socket));
    server.once('close', () => {
      const peers = [...served];
      app.log.info(
        {
          event: 'drain.closed',
          connections: peers.length,
          peers: peers.slice(0, PEERS_LOGGED),
          ms: Math.round(performance.now() - began),
        },
        `closed after serving ${peers.length} connections`,
      );
    });
    // Node's server.close() (here and again in Fastify's close) would destroy the idle connections at once.
    server.closeIdleConnections = () => undefined;
    atQuietTurn(() => {
      server.close();
      closing = true;
      watchQuiet();
      done();
    });
  });

  /** From the close on: closes each connection once it has been quiet for idleMs. */
  function watchQuiet(): void {
    const server = app.server;
    for (const socket of sockets) {
      const q = quiet.get(socket);
      // Bytes read since its last answer (a request begun before the close): quiet from now at most.
      if (q === undefined || q.bytes !== socket.bytesRead) settle(socket);
    }
    const isIdle = (socket: HttpSocket, now: number) => {
      const q = quiet.get(socket);
      return q !== undefined && !socket._httpMessage && socket.bytesRead === q.bytes && now - q.since >= idleMs;
    };
    const sweep = setInterval(
      () => {
        const now = performance.now();
        // A connection whose answer ended unseen (a pipelined one) is quiet from now.
        for (const socket of sockets) if (!socket._httpMessage && !quiet.has(socket)) settle(socket);
        const due = [...sockets].filter((socket) => isIdle(socket, now));
        // After this turn's poll phase: a request that had arrived by now is read first, and keeps its connection.
        if (due.length > 0) setImmediate(() => due.forEach((socket) => isIdle(socket, now) && socket.destroy()));
        if (sockets.size === 0) clearInterval(sweep);
      },
      Math.max(1, Math.min(100, Math.floor(idleMs / 10))),
    );
    sweep.unref();
    server.once('close', () => clearInterval(sweep));
  }

  app.addHook('onSend', async (_request: unknown, reply: Reply, payload: unknown) => {
    if (reply.raw.headersSent) return payload;
    if (closing) reply.header('connection', 'close');
    // Fastify says `Connection: close` on a request routed once its close began; while still listening
    // that would only send the client to open a new connection as the listener closes.
    else if (stopping) reply.raw.removeHeader('connection');
    return payload;
  });
}
