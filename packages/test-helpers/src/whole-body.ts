// A client that sends its whole request body before it reads the answer, as a proxy holding the body
// (nginx with request buffering) does (decision E17): whether a write failed tells whether the server
// reset the connection under the body, and the answer is what it read once the connection ended.
import { connect } from 'node:net';

export interface WholeBodyAnswer {
  /** Everything the server sent, head and body, as latin1 text. */
  answer: string;
  /** The code of the first socket error (EPIPE, ECONNRESET), if any. */
  error: string | undefined;
}

export function sendWholeBody(
  port: number,
  path: string,
  bodyBytes: number,
  headers: Record<string, string> = {},
): Promise<WholeBodyAnswer> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    let error: string | undefined;
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
    socket.on('close', () => resolve({ answer, error }));
    const fields = Object.entries({ 'content-type': 'application/json', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
    socket.write(`POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${fields.join('')}content-length: ${bodyBytes}\r\n\r\n`);
    const chunk = Buffer.alloc(1 << 20, 97);
    let left = bodyBytes;
    const pump = (): void => {
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        if (!socket.write(chunk.subarray(0, n))) return void socket.once('drain', pump);
      }
      socket.end();
    };
    pump();
  });
}
