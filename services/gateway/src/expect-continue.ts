// `Expect: 100-continue` at the edge (decision E14). curl, .NET and PHP clients send it with large
// bodies and wait for `100 Continue` before sending one. Node answers it at once by default, before
// any check; the gateway instead answers it only when it starts reading the body to forward it, so a
// refusal (401, 403, 413, 503) is the final answer and the body is never sent. undici, which forwards
// the body, does not support the header, so it is never passed on: the expectation is met here.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

const awaiting = new WeakMap<IncomingMessage, ServerResponse>();

/** Routes `checkContinue` to the ordinary request handler without answering 100 yet. */
export function deferContinue(server: Server): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    awaiting.set(req, res);
    server.emit('request', req, res);
  });
}

/** Tells a client waiting for `100 Continue` to send its body (once; a no-op for any other request). */
export function continueBody(req: IncomingMessage): void {
  const res = awaiting.get(req);
  if (!res) return;
  awaiting.delete(req);
  if (!res.headersSent && !res.writableEnded) res.writeContinue();
}
