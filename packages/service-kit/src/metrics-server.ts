// Where Prometheus scrapes (decision B70): a listener of its own, never a route of the public origin.
// It binds METRICS_HOST (loopback by default) on METRICS_PORT and answers GET /metrics only; with
// METRICS_TOKEN set, only a request presenting it as a bearer token (compared in constant time, as
// every service token).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '@domdao/config';
import { TokenRegistry } from './bearer.ts';
import type { Metrics } from './metrics.ts';

export const METRICS_PATH = '/metrics';

export interface MetricsListenerOptions {
  metrics: Metrics;
  host: string;
  port: number;
  /** Bearer token a scrape must present; undefined: none (the listener's address is the protection). */
  token?: string | undefined;
  log?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

export interface MetricsListener {
  readonly port: number;
  /** `http://host:port/metrics` as a scraper on this machine reaches it. */
  readonly url: string;
  close(): Promise<void>;
}

export async function serveMetrics(o: MetricsListenerOptions): Promise<MetricsListener> {
  o.metrics.enableProcessMetrics();
  const tokens = o.token === undefined ? undefined : new TokenRegistry('metrics', o.token, []);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    const answer = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (path !== METRICS_PATH) return answer(404, 'not found: metrics are at /metrics\n');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return answer(405, 'method not allowed\n', { allow: 'GET, HEAD' });
    if (tokens) {
      const result = tokens.check(req.headers.authorization);
      if (!result.ok) {
        // A refused scrape is security-relevant: it leaves a line (the token is never logged).
        o.log?.warn({ event: 'metrics.unauthorized', reason: result.reason }, 'metrics scrape refused');
        return answer(401, 'unauthorized\n', { 'www-authenticate': 'Bearer realm="metrics"' });
      }
    }
    o.metrics.text().then(
      (text) => answer(200, text, { 'content-type': o.metrics.contentType }),
      (err: unknown) => {
        o.log?.error(
          { event: 'metrics.collect_failed', err: err instanceof Error ? err.message : String(err) },
          'collecting metrics failed',
        );
        answer(500, 'collecting metrics failed\n');
      },
    );
  });
  server.keepAliveTimeout = 70_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host =
    address.address === '0.0.0.0' || address.address === '::'
      ? '127.0.0.1'
      : address.family === 'IPv6'
        ? `[${address.address}]`
        : address.address;
  return {
    port: address.port,
    url: `http://${host}:${address.port}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

interface ListeningApp {
  readonly metrics: Metrics;
  readonly log: NonNullable<MetricsListenerOptions['log']>;
  addHook(name: 'onClose', hook: () => Promise<void>): unknown;
  close(): Promise<unknown>;
}

/**
 * A service's metrics listener as its configuration says (METRICS_PORT 0: none), closed with the app.
 * Call before `app.listen` (hooks cannot be added after). A port that cannot be had closes the app and
 * throws a ConfigError, said in one line like every configuration problem.
 */
export async function listenForMetrics(
  app: ListeningApp,
  config: { METRICS_PORT: number; METRICS_HOST: string; METRICS_TOKEN?: string | undefined },
): Promise<MetricsListener | undefined> {
  if (config.METRICS_PORT === 0) return undefined;
  let listener: MetricsListener;
  try {
    listener = await serveMetrics({
      metrics: app.metrics,
      host: config.METRICS_HOST,
      port: config.METRICS_PORT,
      token: config.METRICS_TOKEN,
      log: app.log,
    });
  } catch (err) {
    await app.close();
    throw new ConfigError([
      `METRICS_PORT: cannot listen on ${config.METRICS_HOST}:${config.METRICS_PORT} (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    ]);
  }
  app.addHook('onClose', () => listener.close());
  return listener;
}
