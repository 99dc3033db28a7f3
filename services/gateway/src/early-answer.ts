// A service's early answer relayed as itself (decision E17). A service may answer before it has read
// the whole body (the bridge's 413 past its 128 KiB, a 401 or 400 from a check that needs no body)
// and close the connection; its kernel then resets it, because unread bytes were left, and the
// gateway's next write of the body fails (EPIPE or ECONNRESET) while the answer is already waiting
// to be read. undici fails the request on that write error and the answer is lost: the client was
// told 502 UPSTREAM_UNAVAILABLE (issue 45 item 12, nodejs/node#12339). The gateway's upstream sockets
// instead drop the rest of the body once a write finds the peer gone, and keep reading: the answer
// arrives and is relayed, and the connection's own end or read error then ends it, as before.
import type { Socket } from 'node:net';
import { buildConnector } from 'undici';

/** Write errors that say the service closed the connection, not that this side is broken. */
const PEER_GONE = new Set(['EPIPE', 'ECONNRESET']);

type WriteCallback = (error?: Error | null) => void;

/** Makes a socket discard what is written after the peer went away instead of failing on it. */
function keepReadingAfterPeerGone(socket: Socket): void {
  let gone = false;
  const tolerate =
    (cb: WriteCallback): WriteCallback =>
    (error) => {
      if (error && PEER_GONE.has((error as NodeJS.ErrnoException).code ?? '')) {
        gone = true;
        return cb();
      }
      cb(error);
    };
  const write = socket._write.bind(socket);
  socket._write = (chunk: unknown, encoding: BufferEncoding, cb: WriteCallback) =>
    gone ? cb() : write(chunk, encoding, tolerate(cb));
  const writev = socket._writev?.bind(socket);
  if (writev)
    socket._writev = (chunks: Array<{ chunk: unknown; encoding: BufferEncoding }>, cb: WriteCallback) =>
      gone ? cb() : writev(chunks, tolerate(cb));
}

/** undici's own connector (timeouts, TLS, keep-alive), its sockets made to keep reading after the peer went away. */
export function earlyAnswerConnector(options: buildConnector.BuildOptions): buildConnector.connector {
  const connect = buildConnector(options);
  return (opts, callback) =>
    connect(opts, (error, socket) => {
      if (socket) keepReadingAfterPeerGone(socket);
      (callback as (e: Error | null, s: Socket | null) => void)(error, socket);
    });
}
