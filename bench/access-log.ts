// `npm run bench access-log`: what the access line costs (decision D50). The notification service's
// welcome send (its hot path, the front door) with LOG_REQUESTS=true and =false, two processes up at
// once and their rounds interleaved, so the ratio is taken in one run on one machine state. Its stdout
// goes to /dev/null: the cost measured is making and writing the line, not a terminal.
import { templates } from '../services/notification/src/templates/catalog.ts';
import { load, medianOf, startChild, table, type LoadResult } from './lib.ts';

const TOKEN = 'bench-access-log-token-0123456789';
const BRANDS = { BRAND_DAO_DOMAIN: 'domdao.example.org', BRAND_PRODUCT_DOMAIN: 'domapp.example.org' };
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

export async function benchAccessLog(): Promise<string> {
  const env = { SERVICE_TOKEN: TOKEN, NODE_ENV: 'production', LOG_LEVEL: 'info', ...BRANDS };
  const body = JSON.stringify({
    type: 'welcome',
    to: 'ada@example.com',
    domain: BRANDS.BRAND_DAO_DOMAIN,
    data: templates.welcome.example,
  });
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const on = await startChild('services/notification/src/main.ts', { ...env, LOG_REQUESTS: 'true' }, '/api/v1/health');
  const off = await startChild(
    'services/notification/src/main.ts',
    { ...env, LOG_REQUESTS: 'false' },
    '/api/v1/health',
  );
  const runs: Record<string, LoadResult[]> = { 'LOG_REQUESTS=true': [], 'LOG_REQUESTS=false': [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, child] of [
        ['LOG_REQUESTS=true', on],
        ['LOG_REQUESTS=false', off],
      ] as const)
        runs[name]!.push(
          await load(name, { url: `${child.url}/api/v1/send`, method: 'POST', headers, body, seconds: SECONDS }),
        );
    }
  } finally {
    await on.stop();
    await off.stop();
  }
  const results = Object.entries(runs).map(([name, r]) => medianOf(name, r));
  const ratio = results[0]!.rps / results[1]!.rps;
  return [
    `### Access line (decision D50): notification welcome send, ${ROUNDS} interleaved rounds of ${SECONDS} s, medians`,
    '',
    table(
      results.map((r) => ({
        scenario: r.name,
        'req/s': r.rps,
        range: `${r.minRps}–${r.maxRps}`,
        'p50 ms': r.p50,
        'p99 ms': r.p99,
        non2xx: r.non2xx,
      })),
    ),
    '',
    `Same-run ratio on/off: ${ratio.toFixed(3)} (${((1 - ratio) * 100).toFixed(1)} % fewer requests per second with the access line).`,
  ].join('\n');
}
