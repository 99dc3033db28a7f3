// The governance gateway benchmark (decisions V8–V12): votes through POST /api/governance/vote per second at 50
// connections on the embedded canisters (target ≥ 2,000/s, p99 < 50 ms), each vote a distinct (member, proposal) pair,
// answered only once it is in the canisters' write-ahead log (durable against a process crash).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import pg from 'pg';
import { medianOf, startChild, table, loadColumns, type Child, type LoadResult } from './lib.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MEMBERS = 50;
// Enough distinct (member, proposal) pairs for the warm-up and every round at ~6,000 votes/s.
const PROPOSALS = 2_500;
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A database of its own on the local PostgreSQL server, dropped afterwards. */
async function scratchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `bench_votes_${randomUUID().replace(/-/g, '')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    async drop() {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export async function benchGovernance(): Promise<string> {
  const rows: Array<Record<string, string | number>> = [];
  for (const backend of ['PGlite (embedded default)', 'PostgreSQL'] as const) rows.push(await benchVotes(backend));
  // A yardstick in the same run: node:http reading a POST body and answering JSON, nothing else, so
  // the votes can be read against what this machine does at all right now.
  const bare = await startChild('bench/bare-server.ts', {}, '/');
  try {
    const rounds: LoadResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const r = await autocannon({
        url: `${bare.url}/api/governance/vote`,
        method: 'POST',
        connections: 50,
        duration: SECONDS,
        headers: { 'content-type': 'application/json' },
        body: '{"proposal_id":"1","vote":"Yes"}',
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
    rows.push({ ...loadColumns(r), target: '', 'votes sent': '', 'non-2xx': r.non2xx, errors: r.errors });
  } finally {
    await bare.stop();
  }
  const ceiling = Number(rows.at(-1)!['req/s (median)']);
  for (const row of rows) row['vs bare'] = `${((Number(row['req/s (median)']) / ceiling) * 100).toFixed(0)} %`;
  return [
    `## Governance: votes through the bridge (50 connections, ${ROUNDS} rounds × ${SECONDS} s, medians; ${MEMBERS} signed-in members, embedded canisters, each vote in their write-ahead log before its answer)`,
    '',
    table(rows),
  ].join('\n');
}

async function benchVotes(
  backend: 'PGlite (embedded default)' | 'PostgreSQL',
): Promise<Record<string, string | number>> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-governance-'));
  const seedFile = join(dir, 'seed.json');
  const database = backend === 'PostgreSQL' ? await scratchDatabase() : undefined;
  let child: Child | undefined;
  try {
    child = await startChild(
      'bench/governance-bridge.ts',
      {
        NODE_ENV: 'development',
        LOG_LEVEL: 'error',
        DATA_DIR: join(dir, 'data'),
        DEV_OUTBOX_FILE: join(dir, 'outbox.jsonl'),
        PUBLIC_URL: 'http://127.0.0.1:1',
        FRONTEND_ORIGINS: 'http://bench.local',
        REGISTRATION_LIMIT_PER_CLIENT: '100000',
        EMAIL_LIMIT_PER_RECIPIENT: '1000',
        BENCH_MEMBERS: String(MEMBERS),
        BENCH_PROPOSALS: String(PROPOSALS),
        BENCH_SEED_FILE: seedFile,
        ...(database && { DATABASE_URL: database.url }),
      },
      '/health',
      180_000,
    );
    const seed = JSON.parse(readFileSync(seedFile, 'utf8')) as {
      cookies: string[];
      proposals: string[];
      origin: string;
    };
    let next = 0;
    const pairs = seed.cookies.length * seed.proposals.length;
    // Each request the next (member, proposal) pair: members vary fastest, so 100 members hit one proposal at a time.
    const votes = (name: string, seconds: number) =>
      new Promise<LoadResult>((resolve, reject) => {
        // Out of pairs, the run stops and fails with the reason (a throw inside autocannon hangs it).
        let exhausted = false;
        const instance = autocannon(
          {
            url: child!.url,
            connections: 50,
            duration: seconds,
            requests: [
              {
                method: 'POST',
                path: '/api/governance/vote',
                setupRequest: (req: Record<string, unknown>) => {
                  let k = next++;
                  if (k >= pairs) {
                    if (!exhausted) setImmediate(() => instance.stop());
                    exhausted = true;
                    k = 0;
                  }
                  return {
                    ...req,
                    headers: {
                      'content-type': 'application/json',
                      origin: seed.origin,
                      cookie: seed.cookies[k % seed.cookies.length]!,
                    },
                    body: JSON.stringify({
                      proposal_id: seed.proposals[Math.floor(k / seed.cookies.length)]!,
                      vote: k % 3 === 0 ? 'No' : 'Yes',
                    }),
                  };
                },
              },
            ],
          } as unknown as autocannon.Options,
          (err, result) =>
            err || exhausted
              ? reject(
                  err instanceof Error
                    ? err
                    : new Error(
                        `out of (member, proposal) pairs after ${pairs}: raise PROPOSALS in bench/governance.ts`,
                      ),
                )
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
    await votes('warm-up', 1);
    const rounds: LoadResult[] = [];
    for (let round = 0; round < ROUNDS; round++)
      rounds.push(await votes(`POST /api/governance/vote, sessions in ${backend}`, SECONDS));
    const r = medianOf(rounds[0]!.name, rounds);
    return {
      ...loadColumns(r),
      target: '≥ 2,000/s, p99 < 50 ms',
      'votes sent': next,
      'non-2xx': r.non2xx,
      errors: r.errors,
    };
  } finally {
    await child?.stop();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
