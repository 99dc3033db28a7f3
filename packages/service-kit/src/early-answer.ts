// An answer given before the request's body was read ends its connection gently (decision E17).
// Fastify answers a declared body over the route's limit with 413 and `Connection: close` before
// reading it (and a proxy relays such an answer with `Connection: close`), and Node then closes the
// socket with the body's bytes unread, which makes the kernel reset the connection instead of
// closing it. A peer still sending that body (nginx, the gateway, a client) fails its next write
// and, nginx always, loses the answer that was already on its way: the client was told 502. Here the
// service says it is done (FIN) and reads and drops what is still coming, until the peer closes too
// or LINGER_MS passed, as nginx's own lingering close does for its clients.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How long a connection whose answer went out before its body keeps reading what its peer still sends. */
export const LINGER_MS = 5_000;

/** What lingerAfterEarlyAnswers needs of a Fastify instance (this package does not depend on Fastify). */
export interface LingeringApp {
  addHook(name: string, hook: (...args: never[]) => unknown): unknown;
}

type OnSend = (
  request: { readonly raw: IncomingMessage },
  reply: { getHeader(name: string): number | string | string[] | undefined },
  payload: unknown,
  done: (error: null, payload: unknown) => void,
) => void;

function lingerOnClose(socket: Socket, request: IncomingMessage, ms: number): void {
  // Node's server calls destroySoon once a `Connection: close` answer is written; its own would
  // destroy the socket as soon as the answer left, with the body unread.
  socket.destroySoon = function (this: Socket) {
    if (this.destroyed) return;
    const timer = setTimeout(() => this.destroy(), ms).unref();
    this.once('close', () => clearTimeout(timer));
    // The peer's FIN: nothing unread is left to turn the close into a reset. (Node's own end handler
    // would only report the body it never finished parsing.)
    this.removeAllListeners('end');
    this.once('end', () => this.destroy());
    this.end();
    // The answer is out: what still arrives of the body is dropped (a proxy's upstream is done with it).
    request.unpipe();
    request.resume();
    this.resume();
  };
}

/** Lingers on the connections of answers that close them before their request's body arrived; call it on the root instance. */
export function lingerAfterEarlyAnswers(app: LingeringApp, ms = LINGER_MS): void {
  const onSend: OnSend = (request, reply, payload, done) => {
    const socket = request.raw.socket as Socket | null;
    if (socket && !request.raw.complete && String(reply.getHeader('connection')).toLowerCase() === 'close')
      lingerOnClose(socket, request.raw, ms);
    done(null, payload);
  };
  app.addHook('onSend', onSend);
}
