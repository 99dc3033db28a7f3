// A close that waits for the requests in flight and then ends (decision R14). Node's server.close()
// closes the keep-alive connections idle at that moment only: a connection whose request was in
// flight stays open after its answer until the client drops it or keepAliveTimeout (72 s in Fastify)
// runs out, and Fastify's close() waits for it. While closing, each answer therefore says
// `Connection: close` (Node then ends the connection once it is sent), and connections that are idle
// once an answer went out (one whose headers left before the close began) are closed then.
// A connection on which no request has arrived (a client's spare one, opened ahead of need) is not
// idle to Node: it would hold the close until headersTimeout (60 s). It is closed when the close
// begins; a request still arriving on it is refused by the reset, as a stopped server refuses it.
import type { Socket } from 'node:net';

/** What drainOnClose needs of a Fastify instance (this package does not depend on Fastify). */
export interface DrainableApp {
  readonly server: { closeIdleConnections(): void; on(event: 'connection', listener: (socket: Socket) => void): unknown };
  addHook(name: string, hook: (...args: never[]) => unknown): unknown;
}

interface Reply {
  header(name: string, value: string): unknown;
  readonly raw: { readonly headersSent: boolean };
}

/** Registers the hooks on `app`; call it on the root instance before any plugin. */
export function drainOnClose(app: DrainableApp): void {
  let closing = false;
  const sockets = new Set<Socket>();
  app.server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  app.addHook('preClose', async () => {
    closing = true;
    // After the other preClose hooks (a stream ended there leaves its socket with nothing in flight).
    setImmediate(() => {
      for (const socket of sockets) if (!(socket as Socket & { _httpMessage?: unknown })._httpMessage) socket.destroy();
    });
  });
  app.addHook('onSend', async (_request: unknown, reply: Reply, payload: unknown) => {
    if (closing && !reply.raw.headersSent) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onResponse', async () => {
    if (closing) setImmediate(() => app.server.closeIdleConnections());
  });
}
