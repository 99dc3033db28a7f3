// The price oracle benchmark (decision O12): GET /api/price/dom-usd req/s and p99 at 50 connections (a memory read;
// target at least 50 % of a bare node:http server answering the same body, in the same run).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, medianOf, startChild, table, type Child, type LoadResult, loadColumns } from './lib.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

export async function benchPrice(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-price-'));
  const children: Child[] = [];
  try {
    // Two fixed sources: the price path is measured, not the network to the sources.
    const sources = JSON.stringify([
      { name: 'a', kind: 'fixed', weight: 1, price: 0.25 },
      { name: 'b', kind: 'fixed', weight: 1, price: 0.25 },
    ]);
    const bridge = await startChild(
      'services/bridge/src/main.ts',
      { NODE_ENV: 'development', LOG_LEVEL: 'warn', DATA_DIR: dir, PRICE_SOURCES: sources },
      '/api/price/dom-usd',
      120_000,
    );
    children.push(bridge);
    const bare = await startChild('bench/bare-price-server.ts', {}, '/');
    children.push(bare);
    const scenarios: Array<[string, string]> = [
      ['bridge GET /api/price/dom-usd', `${bridge.url}/api/price/dom-usd`],
      ['bare node:http, same body (ceiling)', `${bare.url}/api/price/dom-usd`],
    ];
    for (const [, url] of scenarios) await load('warm-up', { url, seconds: 2 });
    const rounds = new Map<string, LoadResult[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, url] of scenarios)
        rounds.set(name, [...(rounds.get(name) ?? []), await load(name, { url, seconds: SECONDS })]);
    }
    const results = scenarios.map(([name]) => medianOf(name, rounds.get(name)!));
    const bareRps = results[1]!.rps;
    return [
      `## Price oracle: GET /api/price/dom-usd (50 connections, ${ROUNDS} interleaved rounds × ${SECONDS} s, medians)`,
      '',
      table(
        results.map((r) => ({
          ...loadColumns(r),
          'vs bare': `${((r.rps / bareRps) * 100).toFixed(0)} %`,
          'non-2xx': r.non2xx,
          errors: r.errors,
        })),
      ),
    ].join('\n');
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}
