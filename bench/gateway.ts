// The gateway benchmark (decision E1): what the platform gateway costs. The yardstick is a bare node:http server called
// directly; the same server is then reached through the gateway as a bridge route, as /notify with
// the token checked at the edge, and a wrong token refused there. Both servers share the pinned server
// CPU, so "via gateway" is the throughput of the pair: the ratio is the price of the extra hop.
import { load, loadColumns, medianOf, startChild, table, type LoadResult } from './lib.ts';

const TOKEN = 'bench-gateway-service-token-0123456789';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

export async function benchGateway(): Promise<string> {
  const bare = await startChild('bench/bare-server.ts', {}, '/');
  const gw = await startChild(
    'services/gateway/src/main.ts',
    { BRIDGE_URL: bare.url, NOTIFICATION_URL: bare.url, NOTIFICATION_SERVICE_TOKEN: TOKEN, LOG_LEVEL: 'warn' },
    '/gateway/health',
  );
  const body = JSON.stringify({
    type: 'welcome',
    to: 'ada@example.com',
    domain: 'domdao.example',
    data: { user_name: 'Ada' },
  });
  const json = { 'content-type': 'application/json' };
  const scenarios: Array<[string, string, Record<string, string>]> = [
    ['bare node:http, direct (yardstick)', `${bare.url}/api/v1/send`, json],
    ['via gateway: a bridge route', `${gw.url}/api/auth/register`, json],
    [
      'via gateway: /notify, token checked',
      `${gw.url}/notify/api/v1/send`,
      { ...json, authorization: `Bearer ${TOKEN}` },
    ],
    [
      'via gateway: /notify, wrong token (401 at the edge)',
      `${gw.url}/notify/api/v1/send`,
      { ...json, authorization: 'Bearer not-the-token-0123456789' },
    ],
  ];
  try {
    for (const [, url, headers] of scenarios) await load('warm-up', { url, method: 'POST', headers, body, seconds: 2 });
    const rounds = new Map<string, LoadResult[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, url, headers] of scenarios)
        rounds.set(name, [
          ...(rounds.get(name) ?? []),
          await load(name, { url, method: 'POST', headers, body, seconds: SECONDS }),
        ]);
    }
    const results = scenarios.map(([name]) => medianOf(name, rounds.get(name)!));
    const yardstick = results[0]!.rps;
    return [
      `## Gateway (issue 17): ${ROUNDS} rounds of ${SECONDS} s, 50 connections, medians`,
      '',
      table(
        results.map((r) => ({
          ...loadColumns(r),
          'vs direct': `${(r.rps / yardstick).toFixed(2)}×`,
          'non-2xx': r.non2xx,
          errors: r.errors,
        })),
      ),
    ].join('\n');
  } finally {
    await gw.stop();
    await bare.stop();
  }
}
