// Issue 2 benchmark: stub-mode throughput and latency per template against a bare node:http ceiling,
// and peak memory while 25 MiB attachments arrive on 4 connections.
import { templates } from '../services/notification/src/templates/index.ts';
import { load, memoryOf, startChild, table, type LoadResult } from './lib.ts';

const TOKEN = 'bench-notification-token-0123456789';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

function body(type: keyof typeof templates, data?: Record<string, unknown>) {
  return JSON.stringify({ type, to: 'ada@example.com', domain: 'domdao.example', data: data ?? templates[type].example });
}

function digest50() {
  const items = Array.from({ length: 50 }, (_, i) => ({
    title: `Proposal #${i + 1} moved to voting: community garden phase ${i + 1}`,
    body: 'Quorum 31%, 78% yes so far. Voting closes in three days; read the full proposal before you vote.',
    deep_link: `https://app.domdao.example/proposals/${i + 1}`,
    created_at: '2026-11-20T12:00:00Z',
    category: 'governance',
  }));
  return body('notification-digest', { ...templates['notification-digest'].example, items, total_count: 50 });
}

export async function benchNotification(): Promise<string> {
  const env = { SERVICE_TOKEN: TOKEN, NODE_ENV: 'production', BRAND_DAO_DOMAIN: 'domdao.example.org', BRAND_PRODUCT_DOMAIN: 'domapp.example.org', LOG_LEVEL: 'info' };
  const bodies = {
    welcome: body('welcome').replace('domdao.example"', 'domdao.example.org"'),
    'notification-digest (50 items)': digest50().replace('"domain":"domdao.example"', '"domain":"domdao.example.org"'),
    'event-reminder': body('event-reminder').replace('"domain":"domdao.example"', '"domain":"domdao.example.org"'),
  };
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const results: LoadResult[] = [];

  const bare = await startChild('bench/bare-server.ts', {}, '/');
  await load('warm-up', { url: bare.url, method: 'POST', headers, body: bodies.welcome, seconds: 2 });
  results.push(await load('bare node:http (ceiling)', { url: bare.url, method: 'POST', headers, body: bodies.welcome, seconds: SECONDS }));
  await bare.stop();

  const svc = await startChild('services/notification/src/main.ts', env, '/api/v1/health');
  await load('warm-up', { url: `${svc.url}/api/v1/send`, method: 'POST', headers, body: bodies.welcome, seconds: 2 });
  for (const [name, b] of Object.entries(bodies)) {
    results.push(await load(name, { url: `${svc.url}/api/v1/send`, method: 'POST', headers, body: b, seconds: SECONDS }));
  }
  const idle = memoryOf(svc.proc.pid!);
  await svc.stop();

  // Memory: 10 sends of a 25 MiB attachment each, 4 at a time, on a fresh process.
  const mem = await startChild('services/notification/src/main.ts', env, '/api/v1/health');
  const before = memoryOf(mem.proc.pid!);
  const big = JSON.stringify({
    ...JSON.parse(bodies.welcome),
    attachments: [{ filename: 'large.bin', content: Buffer.alloc(25 * 1024 * 1024, 0x5a).toString('base64') }],
  });
  let next = 0;
  let ok = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < 10) {
        next++;
        const res = await fetch(`${mem.url}/api/v1/send`, { method: 'POST', headers, body: big });
        if (res.ok) ok++;
        await res.arrayBuffer();
      }
    }),
  );
  const largeSeconds = (Date.now() - started) / 1000;
  const after = memoryOf(mem.proc.pid!);
  await mem.stop();

  const ceiling = results[0]!.rps;
  const welcome = results[1]!;
  const rows = results.map((r) => ({
    scenario: r.name,
    'req/s': r.rps,
    'p50 ms': r.p50,
    'p99 ms': r.p99,
    'vs ceiling': `${Math.round((r.rps / ceiling) * 100)} %`,
    'non-2xx': r.non2xx + r.errors,
  }));
  return [
    `### Notification service (stub mode, 50 connections, ${SECONDS} s each, service and load generator in separate processes)`,
    '',
    table(rows),
    '',
    `Targets: welcome ≥ 35 % of the bare server → ${Math.round((welcome.rps / ceiling) * 100)} % ${welcome.rps / ceiling >= 0.35 ? 'MET' : 'NOT MET'}; ` +
      `welcome p99 < 25 ms → ${welcome.p99} ms ${welcome.p99 < 25 ? 'MET' : 'NOT MET'}.`,
    '',
    `Memory: idle after the load runs ${idle.rssMiB} MiB RSS. 10 × 25 MiB attachments on 4 concurrent connections: ` +
      `${ok}/10 answered 200 in ${largeSeconds.toFixed(1)} s; RSS before ${before.rssMiB} MiB, peak RSS (VmHWM) ${after.peakMiB} MiB, after ${after.rssMiB} MiB.`,
  ].join('\n');
}
