// A local HTTP server that records every request and answers as the test says: stands in for an
// email provider's API, on 127.0.0.1 only.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the recorded JSON as they assert on it
  json(): any;
  at: number;
}

export type Responder = (
  req: RecordedRequest,
  index: number,
) =>
  | { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number }
  | Promise<{ status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number }>;

export interface Recorder {
  url: string;
  requests: RecordedRequest[];
  /** Most requests being handled at the same moment. */
  maxConcurrent: number;
  respond(fn: Responder): void;
  close(): Promise<void>;
}

export async function startRecorder(initial?: Responder): Promise<Recorder> {
  let responder: Responder = initial ?? ((_req, i) => ({ status: 200, body: { id: `msg_${i + 1}` } }));
  const requests: RecordedRequest[] = [];
  let active = 0;
  const rec: Recorder = {
    url: '',
    requests,
    maxConcurrent: 0,
    respond(fn) {
      responder = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    active++;
    rec.maxConcurrent = Math.max(rec.maxConcurrent, active);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body,
      json: () => JSON.parse(body) as unknown,
      at: Date.now(),
    };
    const index = requests.push(recorded) - 1;
    const answer = await responder(recorded, index);
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    active--;
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(
      answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body),
    );
  };
  // node:http ignores a handler's promise: a responder that throws drops the connection, which the caller sees.
  const server = createServer(
    (req, res) =>
      void handle(req, res).catch((err: unknown) => res.destroy(err instanceof Error ? err : new Error(String(err)))),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rec.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return rec;
}
