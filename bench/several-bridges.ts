// Votes per second with one and with two bridge instances in the same run (issue 46 item 3, decision
// B112): `npm run replica` and the bridges as processes of their own, in IC mode, on one PostgreSQL
// database and one Redis key prefix, with the members signed in and EmergencyAction proposals open;
// each vote a distinct (member, proposal) pair, a signed update call to the replica before its answer.
// Rounds alternate one and two instances so drift of the machine falls on both; the figure is the
// ratio of the medians (two / one), read against each other, never against a fixed target.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { icClientsFromEnv } from '@domdao/canisters/ic';
import { freshPostgres } from '../services/bridge/test/harness.ts';
import {
  clusterSecrets,
  CLUSTER_ORIGIN,
  signUp,
  startBridgeProcess,
  type BridgeProcess,
} from '../services/bridge/test/bridge-cluster.ts';
import { redisUrlForTests, uniquePrefix } from '@domdao/test-helpers';
import { freePort, medianOf, pinning, root, table, loadColumns, type LoadResult } from './lib.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MEMBERS = 20;
const PROPOSALS = 100;
const CONNECTIONS = 20;

/** Servers started while this process is pinned to the client's CPUs would inherit that: they get all of them. */
function unpinned<T>(start: () => Promise<T>): Promise<T> {
  if (pinning) spawnSync('taskset', ['-pc', pinning.all, String(process.pid)]);
  return start().finally(() => {
    if (pinning) spawnSync('taskset', ['-pc', pinning.client, String(process.pid)]);
  });
}

async function startReplicaProcess(dir: string) {
  const port = await freePort();
  const proc = spawn(process.execPath, ['--import', 'tsx', 'platform/replica/src/main.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, REPLICA_DIR: dir, REPLICA_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (d) => {
      out += d;
      if (/^ready in /m.test(out)) resolve();
    });
    proc.once('exit', (code) => reject(new Error(`the replica exited (${code}): ${out}`)));
  });
  const env = Object.fromEntries(
    readFileSync(join(dir, 'ic.env'), 'utf8')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  ) as Record<string, string>;
  return {
    env,
    async stop() {
      if (proc.exitCode !== null) return;
      proc.kill('SIGTERM');
      await once(proc, 'exit');
    },
  };
}

export async function benchSeveralBridges(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-several-'));
  const db = await freshPostgres('bench_several', { migrated: true });
  const stops: Array<() => Promise<void>> = [];
  try {
    const replica = await unpinned(() => startReplicaProcess(join(dir, 'replica')));
    stops.push(() => replica.stop());
    const env = {
      ...replica.env,
      ...(await clusterSecrets()),
      NODE_ENV: 'development',
      LOG_LEVEL: 'error',
      DATABASE_URL: db.url,
      SESSION_STORE: 'redis',
      SESSION_REDIS_URL: redisUrlForTests,
      SESSION_KEY_PREFIX: uniquePrefix('bench-several'),
      FRONTEND_ORIGINS: CLUSTER_ORIGIN,
      REGISTRATION_LIMIT_PER_CLIENT: '100000',
      EMAIL_LIMIT_PER_RECIPIENT: '1000',
    };
    const bridges: BridgeProcess[] = [];
    for (const name of ['a', 'b']) {
      const b = await unpinned(() => startBridgeProcess(name, env));
      bridges.push(b);
      stops.push(() => b.stop());
    }
    const registrar = await icClientsFromEnv(replica.env);
    const cookies: string[] = [];
    for (let i = 0; i < MEMBERS; i++) {
      const m = await signUp(bridges[i % 2]!.url, bridges, `voter-${i}@bench.example`, `Voter ${i}`);
      if (!('Ok' in (await registrar.clients.user.record_kyc(m.principal, true)))) throw new Error('kyc failed');
      const up = await registrar.clients.user.upgrade_membership_to_active({
        principal: m.principal,
        kyc_proof: new Uint8Array([1]),
        payment_proof: new Uint8Array([2]),
      });
      if (!('Ok' in up)) throw new Error('upgrade failed');
      cookies.push(`session=${m.jar.cookie}`);
    }
    // EmergencyAction opens at once, with the members above in its snapshot.
    const proposals: string[] = [];
    for (let i = 0; i < PROPOSALS; i++) {
      const r = await registrar.clients.governance.create_proposal({
        title: `Bench ${i}`,
        body: 'b',
        category: 'EmergencyAction',
      });
      if (!('Ok' in r)) throw new Error(`create_proposal: ${Object.keys(r.Err).join()}`);
      proposals.push(String(r.Ok));
    }
    let next = 0;
    const pairs = MEMBERS * PROPOSALS;
    const votes = (url: string, connections: number) =>
      new Promise<autocannon.Result>((resolve, reject) => {
        autocannon(
          {
            url,
            connections,
            duration: SECONDS,
            requests: [
              {
                method: 'POST',
                path: '/api/governance/vote',
                setupRequest: (req: Record<string, unknown>) => {
                  const k = next++ % pairs;
                  return {
                    ...req,
                    headers: {
                      'content-type': 'application/json',
                      origin: CLUSTER_ORIGIN,
                      cookie: cookies[k % MEMBERS]!,
                    },
                    body: JSON.stringify({ proposal_id: proposals[Math.floor(k / MEMBERS)]!, vote: 'Yes' }),
                  };
                },
              },
            ],
          } as unknown as autocannon.Options,
          (err, result) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(result)),
        );
      });
    const rounds: Record<'one' | 'two', LoadResult[]> = { one: [], two: [] };
    for (let round = 0; round < ROUNDS; round++)
      for (const n of ['one', 'two'] as const) {
        const targets = n === 'one' ? [bridges[0]!] : bridges;
        const results = await Promise.all(targets.map((b) => votes(b.url, CONNECTIONS / targets.length)));
        rounds[n].push({
          name: `${n === 'one' ? 'one bridge' : 'two bridges'} (${CONNECTIONS} connections)`,
          rps: Math.round(results.reduce((s, r) => s + r.requests.average, 0)),
          p50: Math.max(...results.map((r) => r.latency.p50)),
          p99: Math.max(...results.map((r) => r.latency.p99)),
          non2xx: results.reduce((s, r) => s + r.non2xx, 0),
          errors: results.reduce((s, r) => s + r.errors, 0),
        });
      }
    if (next > pairs)
      throw new Error(`out of (member, proposal) pairs after ${pairs}: raise PROPOSALS in bench/several-bridges.ts`);
    const one = medianOf(rounds.one[0]!.name, rounds.one);
    const two = medianOf(rounds.two[0]!.name, rounds.two);
    const rows = [one, two].map((r) => ({
      ...loadColumns(r),
      'non-2xx': r.non2xx,
      errors: r.errors,
      'vs one bridge': `${((r.rps / one.rps) * 100).toFixed(0)} %`,
    }));
    return [
      `## Several bridges: votes through one and two bridge instances in IC mode (one test replica over HTTP, one PostgreSQL, one Redis; ${ROUNDS} alternating rounds × ${SECONDS} s, medians; ${MEMBERS} members, each vote a distinct pair)`,
      '',
      table(rows),
      '',
      `two / one = ${(two.rps / one.rps).toFixed(2)}`,
    ].join('\n');
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
