// `npm run bench ledger` (decisions L1–L8): embedded DOM transfers per second, each journaled in the
// write-ahead log before its answer (durable across a process crash; with fsync, across power loss),
// against a yardstick in the same run: the bare embedded host doing one journaled single-key update per
// call on the same disk. The ratio shows what the ledger's rules (fees, dedup, the block log) cost.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import autocannon from 'autocannon';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedHost } from '../packages/canister-kit/src/embedded/index.ts';
import { EmbeddedPlatform } from '../platform/canisters/src/embedded/index.ts';
import { principalFromSeed } from '../platform/canisters/src/principals.ts';
import { loadColumns, medianOf, startChild, table, type Child, type LoadResult } from './lib.ts';

const ACCOUNTS = 1000;
const E8S = 100_000_000n;
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

async function transfers(n: number, fsync: boolean, concurrency: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-bench-ledger-'));
  let now = BigInt(Date.now()) * 1_000_000n;
  const platform = await EmbeddedPlatform.open({ dir, fsync, clock: () => now, scheduler: false });
  try {
    const owners = Array.from({ length: ACCOUNTS }, (_, i) => principalFromSeed(`bench-${i}`));
    const minter = platform.as(platform.ids.governance).ledger;
    for (const owner of owners) await minter.icrc1_transfer({ to: { owner }, amount: 1_000_000n * E8S });
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i += concurrency) {
      await Promise.all(
        Array.from({ length: Math.min(concurrency, n - i) }, async (_, j) => {
          const k = i + j;
          now += 1000n;
          // With created_at_time and a memo: the deduplication path every platform movement takes.
          const r = await platform.as(owners[k % ACCOUNTS]!).ledger.icrc1_transfer({
            to: { owner: owners[(k * 7 + 1) % ACCOUNTS]! },
            amount: E8S,
            memo: new TextEncoder().encode(`bench:${k}`),
            created_at_time: now,
          });
          if (!('Ok' in r)) throw new Error(`transfer refused: ${Object.keys(r.Err)[0]}`);
        }),
      );
    }
    return (n / ms(t0)) * 1000;
  } finally {
    platform.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function yardstick(n: number, fsync: boolean, concurrency: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-bench-yardstick-'));
  const host = EmbeddedHost.open({ dir, fsync });
  try {
    const store = host.store<bigint, bigint>('bench', 'values');
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i += concurrency) {
      await Promise.all(
        Array.from({ length: Math.min(concurrency, n - i) }, (_, j) =>
          host.update('bench', () => store.set(BigInt((i + j) % ACCOUNTS), BigInt(i + j))),
        ),
      );
    }
    return (n / ms(t0)) * 1000;
  } finally {
    host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchLedger(): Promise<string> {
  const N = Number(process.env.BENCH_TRANSFERS ?? 20_000);
  const NF = Number(process.env.BENCH_TRANSFERS_FSYNC ?? 2_000);
  const rows = [];
  for (const [label, n, fsync] of [
    ['journaled (survives a process crash)', N, false],
    ['journaled + fsync (survives power loss)', NF, true],
  ] as const) {
    const y = await yardstick(n, fsync, 50);
    const t = await transfers(n, fsync, 50);
    rows.push({
      durability: label,
      'icrc1_transfer/s': t.toFixed(0),
      'yardstick: bare journaled updates/s': y.toFixed(0),
      'transfer / yardstick': (t / y).toFixed(2),
      calls: n,
    });
  }
  return [
    `## DOM ledger on the embedded host (${ACCOUNTS} accounts, 50 calls in flight, each answered after its log write)`,
    '',
    table(rows),
    '',
    await benchContributions(),
  ].join('\n');
}

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const GIVERS = 100;

/** Contributions per second through POST /api/campaigns/{id}/contributions at 50 connections, against a bare node:http POST in the same run. */
async function benchContributions(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-contributions-'));
  const seedFile = join(dir, 'seed.json');
  let child: Child | undefined;
  const rows: Array<Record<string, string | number>> = [];
  try {
    child = await startChild(
      'bench/contributions-bridge.ts',
      {
        NODE_ENV: 'development',
        LOG_LEVEL: 'error',
        DATA_DIR: join(dir, 'data'),
        DEV_OUTBOX_FILE: join(dir, 'outbox.jsonl'),
        PUBLIC_URL: 'http://127.0.0.1:1',
        FRONTEND_ORIGINS: 'http://bench.local',
        REGISTRATION_LIMIT_PER_CLIENT: '100000',
        EMAIL_LIMIT_PER_RECIPIENT: '1000',
        DEV_FAUCET_DOM: '1000000',
        BENCH_MEMBERS: String(GIVERS),
        BENCH_SEED_FILE: seedFile,
      },
      '/health',
      180_000,
    );
    const seed = JSON.parse(readFileSync(seedFile, 'utf8')) as { cookies: string[]; campaign: string; origin: string };
    let next = 0;
    const load = (name: string, seconds: number) =>
      new Promise<LoadResult>((resolve, reject) => {
        autocannon(
          {
            url: child!.url,
            connections: 50,
            duration: seconds,
            requests: [
              {
                method: 'POST',
                path: `/api/campaigns/${seed.campaign}/contributions`,
                setupRequest: (req: Record<string, unknown>) => {
                  const k = next++;
                  return {
                    ...req,
                    headers: {
                      'content-type': 'application/json',
                      origin: seed.origin,
                      cookie: seed.cookies[k % seed.cookies.length]!,
                      'idempotency-key': `bench-${k}`,
                    },
                    body: JSON.stringify({ amount: { dom_e8s: '100000000' } }),
                  };
                },
              },
            ],
          } as unknown as autocannon.Options,
          (err, result) =>
            err
              ? reject(err instanceof Error ? err : new Error(String(err)))
              : resolve({
                  name,
                  rps: Math.round(result.requests.average),
                  p50: result.latency.p50,
                  p99: result.latency.p99,
                  non2xx: result.non2xx,
                  errors: result.errors,
                }),
        );
      });
    await load('warm-up', 1);
    const rounds: LoadResult[] = [];
    for (let round = 0; round < ROUNDS; round++)
      rounds.push(await load('POST /api/campaigns/{id}/contributions (approve + transfer_from, durable)', SECONDS));
    const r = medianOf(rounds[0]!.name, rounds);
    rows.push({ ...loadColumns(r), 'requests sent': next, 'non-2xx': r.non2xx, errors: r.errors });
  } finally {
    await child?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const bare = await startChild('bench/bare-server.ts', {}, '/');
  try {
    const rounds: LoadResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const r = await autocannon({
        url: `${bare.url}/api/campaigns/1/contributions`,
        method: 'POST',
        connections: 50,
        duration: SECONDS,
        headers: { 'content-type': 'application/json' },
        body: '{"amount":{"dom_e8s":"100000000"}}',
      });
      rounds.push({
        name: 'bare node:http POST, same body (ceiling)',
        rps: Math.round(r.requests.average),
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors,
      });
    }
    const r = medianOf(rounds[0]!.name, rounds);
    rows.push({ ...loadColumns(r), 'requests sent': '', 'non-2xx': r.non2xx, errors: r.errors });
  } finally {
    await bare.stop();
  }
  const ceiling = Number(rows.at(-1)!['req/s (median)']);
  for (const row of rows) row['vs bare'] = `${((Number(row['req/s (median)']) / ceiling) * 100).toFixed(1)} %`;
  return [
    `## Contributions through the bridge (50 connections, ${ROUNDS} rounds × ${SECONDS} s, medians; ${GIVERS} signed-in members, embedded canisters, PGlite sessions; each contribution an approve and a transfer_from in the write-ahead log before its answer)`,
    '',
    table(rows),
  ].join('\n');
}
