// `npm start`'s local fake price source (decision O14): a tiny JSON-over-HTTP server on loopback that
// the bridge's `json-http` adapter polls like a real exchange, so development exercises the fetch,
// the JSON pointers, the timestamp and the weighted median. The price wanders within ±1 % of the
// development price so the history chart moves. It listens on `port`: PRICE_SOURCE_PORT under
// `npm start`, 0 by default (the system picks a free one, which the banner names; decision R16).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DevPriceSource {
  url: string;
  close(): Promise<void>;
}

export async function startDevPriceSource(price: number, port = 0, host = '127.0.0.1'): Promise<DevPriceSource> {
  const server: Server = createServer((req, res) => {
    if (req.url !== '/dom-usd') return void res.writeHead(404).end();
    const wandered = Math.round(price * (1 + (Math.random() - 0.5) / 50) * 1e6) / 1e6;
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ pair: 'DOM/USD', data: { price: wandered.toString(), time: new Date().toISOString() } }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}/dom-usd`,
    // Closed after the bridge, its only client: a connection it kept alive has nothing left to answer.
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The development PRICE_SOURCES: a fixed source and the local fake, equal weights. */
export function devPriceSources(price: number, fakeUrl: string): string {
  return JSON.stringify([
    { name: 'dev-fixed', kind: 'fixed', weight: 1, price },
    {
      name: 'dev-local-json',
      kind: 'json-http',
      weight: 1,
      url: fakeUrl,
      price_pointer: '/data/price',
      timestamp_pointer: '/data/time',
      timeout_ms: 1000,
      max_age_seconds: 120,
    },
  ]);
}
