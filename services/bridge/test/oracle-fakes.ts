// Local fake price sources for the oracle tests: one node:http server on 127.0.0.1 whose paths each
// answer what the test set (status, raw body, delay), counting hits per path.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeAnswer {
  status?: number;
  /** JSON-serialised unless a string. */
  body: unknown;
  delayMs?: number;
  /** Sent with Transfer-Encoding: chunked (no Content-Length). */
  chunked?: boolean;
  headers?: Record<string, string>;
}

export interface FakeSources {
  url(path: string): string;
  set(path: string, answer: FakeAnswer): void;
  hits(path?: string): number;
  close(): Promise<void>;
}

export async function startFakeSources(): Promise<FakeSources> {
  const answers = new Map<string, FakeAnswer>();
  const hits = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const a = answers.get(path);
    const send = () => {
      if (res.destroyed) return;
      if (!a) return void res.writeHead(404).end();
      const body = typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
      // Not chunked: Content-Length declared (writeHead alone would send chunked encoding).
      res.writeHead(a.status ?? 200, {
        'content-type': 'application/json',
        ...(!a.chunked && { 'content-length': Buffer.byteLength(body) }),
        ...a.headers,
      });
      if (a.chunked) {
        res.write(body);
        res.end();
      } else res.end(body);
    };
    if (a?.delayMs) {
      const t = setTimeout(() => {
        timers.delete(t);
        send();
      }, a.delayMs);
      timers.add(t);
    } else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => `${base}${path}`,
    set: (path, answer) => void answers.set(path, answer),
    hits: (path) => (path ? (hits.get(path) ?? 0) : [...hits.values()].reduce((s, n) => s + n, 0)),
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
