// The bridge benchmark: GET /auth/session req/s and p99 with sessions in the database (PostgreSQL) and
// in Redis, against express-session + connect-redis on the same machine in the same run (target:
// at least 2× its req/s), and login latency at the chosen argon2id cost.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { encryptRegistration } from '@domdao/registration/seal';
import { verificationPath } from './outbox.ts';
import { load, medianOf, startChild, table, type Child, type LoadResult, loadColumns } from './lib.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PG = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PASSWORD = 'correct horse battery staple';

async function cookieFrom(res: Response): Promise<string> {
  const set = res.headers.getSetCookie().find((c) => c.startsWith('session=') || c.startsWith('connect.sid='));
  if (!res.ok || !set) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  return set.split(';')[0]!;
}

/** Registered, verified through the development outbox's link (no session before verification, decision B32), signed in. */
async function bridgeSession(url: string, email: string, outbox: string): Promise<string> {
  const key = (await (await fetch(`${url}/api/auth/registration-key`)).json()) as { public_key: string };
  const fields = await encryptRegistration(key.public_key, { email, name: 'Bench Member', dob: '1990-05-01' });
  const r = await fetch(`${url}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...fields, password: PASSWORD, tos_accepted: true }),
  });
  if (r.status !== 201) throw new Error(`register failed: ${r.status} ${await r.text()}`);
  const v = await fetch(`${url}${verificationPath(outbox, email)}`);
  if (v.status !== 200) throw new Error(`verification failed: ${v.status} ${await v.text()}`);
  return cookieFrom(
    await fetch(`${url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    }),
  );
}

export async function benchBridge(): Promise<string> {
  // A database per bridge: each runs embedded canisters of its own, and a database belongs to one canister set
  // (decision B100).
  const dbNames = [`bridge_bench_${Date.now()}_db`, `bridge_bench_${Date.now()}_redis`];
  const admin = new pg.Client({ connectionString: PG });
  await admin.connect();
  for (const name of dbNames) await admin.query(`create database ${name}`);
  const dbUrls = dbNames.map((name) => Object.assign(new URL(PG), { pathname: `/${name}` }).href);
  const dirs = [mkdtempSync(join(tmpdir(), 'bench-bridge-')), mkdtempSync(join(tmpdir(), 'bench-bridge-'))];
  const prefix = `bench:${randomUUID()}:`;
  const common = { NODE_ENV: 'development', LOG_LEVEL: 'info' };
  const children: Child[] = [];
  try {
    const outbox = (dir: string) => join(dir, 'dev-outbox.jsonl');
    const dbBridge = await startChild(
      'services/bridge/src/main.ts',
      {
        ...common,
        DATABASE_URL: dbUrls[0]!,
        DATA_DIR: dirs[0]!,
        DEV_OUTBOX_FILE: outbox(dirs[0]!),
        SESSION_STORE: 'database',
      },
      '/health',
    );
    children.push(dbBridge);
    const redisBridge = await startChild(
      'services/bridge/src/main.ts',
      {
        ...common,
        DATABASE_URL: dbUrls[1]!,
        DATA_DIR: dirs[1]!,
        DEV_OUTBOX_FILE: outbox(dirs[1]!),
        SESSION_STORE: 'redis',
        SESSION_REDIS_URL: REDIS,
        SESSION_KEY_PREFIX: `${prefix}bridge:`,
      },
      '/health',
    );
    children.push(redisBridge);
    const peer = await startChild(
      'bench/peer-express-session.ts',
      { REDIS_URL: REDIS, PEER_PREFIX: `${prefix}peer:` },
      '/health',
    );
    children.push(peer);

    const scenarios: Array<[string, string, string]> = [
      [
        'bridge, sessions in PostgreSQL',
        dbBridge.url,
        await bridgeSession(dbBridge.url, 'bench-db@example.org', outbox(dirs[0]!)),
      ],
      [
        'bridge, sessions in Redis',
        redisBridge.url,
        await bridgeSession(redisBridge.url, 'bench-redis@example.org', outbox(dirs[1]!)),
      ],
      [
        'express-session + connect-redis (peer)',
        peer.url,
        await cookieFrom(
          await fetch(`${peer.url}/auth/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"email":"peer@example.org"}',
          }),
        ),
      ],
    ];
    for (const [, url, cookie] of scenarios) {
      const check = (await (await fetch(`${url}/auth/session`, { headers: { cookie } })).json()) as {
        authenticated: boolean;
      };
      if (!check.authenticated) throw new Error(`${url}: the benchmark cookie is not a session`);
      await load('warm-up', { url: `${url}/auth/session`, headers: { cookie }, seconds: 2 });
    }
    const rounds = new Map<string, LoadResult[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, url, cookie] of scenarios)
        rounds.set(name, [
          ...(rounds.get(name) ?? []),
          await load(name, { url: `${url}/auth/session`, headers: { cookie }, seconds: SECONDS }),
        ]);
    }
    const results = scenarios.map(([name]) => medianOf(name, rounds.get(name)!));
    const peerRps = results[2]!.rps;

    // Login latency at the chosen argon2id cost (m=19 MiB, t=2, p=1), one at a time.
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      await cookieFrom(
        await fetch(`${redisBridge.url}/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'bench-redis@example.org', password: PASSWORD }),
        }),
      );
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    return [
      `## Bridge sessions: GET /auth/session (50 connections, ${ROUNDS} interleaved rounds × ${SECONDS} s, medians)`,
      '',
      table(
        results.map((r) => ({
          ...loadColumns(r),
          'vs peer': `${(r.rps / peerRps).toFixed(2)}×`,
          'non-2xx': r.non2xx,
        })),
      ),
      '',
      `Login (POST /auth/login, argon2id m=19456 KiB, t=2, p=1, sequential, 20 logins): median ${times[10]!.toFixed(0)} ms, p95 ${times[18]!.toFixed(0)} ms.`,
    ].join('\n');
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    for (const name of dbNames) await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  }
}
