// `npm run bench durability` (decisions P1, P7, P9): governance cast_vote on the embedded host, every vote fsynced
// before its answer (the default, decision P1: group commit), against the database a user would pick instead:
// PostgreSQL (127.0.0.1:5432, a private database dropped afterwards) doing one INSERT per transaction with
// synchronous_commit on. Both with 50 clients in flight (a closed loop: each client sends its next call when the
// previous one is answered), same machine (every CPU for both), same run, rounds alternated so load from elsewhere hits
// both; medians and ranges over the rounds.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { EmbeddedPlatform } from '../platform/canisters/src/embedded/index.ts';
import { principalFromSeed } from '../platform/canisters/src/principals.ts';
import { pinning, table } from './lib.ts';
import { makeMember, ok } from './members.ts';

const CLIENTS = 50;
const HOUR = 3_600_000_000_000n;
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

/** `n` calls through `clients` concurrent closed loops; returns calls per second. */
async function closedLoop(
  n: number,
  clients: number,
  call: (i: number, client: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = next++; i < n; i = next++) await call(i, c);
    }),
  );
  return (n / ms(t0)) * 1000;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const summary = (xs: number[], d = 0) =>
  `${median(xs).toFixed(d)} (${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)})`;

async function embedded(
  fsync: boolean,
  members: number,
  rounds: number,
): Promise<{ open: () => Promise<number>; close: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), `domdao-bench-durability-${fsync ? 'fsync' : 'nosync'}-`));
  let now = BigInt(Date.parse('2026-03-10T12:00:00Z')) * 1_000_000n;
  const admin = principalFromSeed('admin');
  const bridge = principalFromSeed('bridge');
  const platform = await EmbeddedPlatform.open({
    dir,
    fsync,
    clock: () => now,
    scheduler: false,
    admins: [admin],
    registrars: [bridge],
  });
  const b = platform.as(bridge);
  const principals = Array.from({ length: members }, (_, i) => principalFromSeed(`member-${i}`));
  await closedLoop(members, CLIENTS, async (i) => {
    const principal = principals[i]!;
    await makeMember(b.user, principal, now);
  });
  const proposals: bigint[] = [];
  for (let r = 0; r < rounds; r++)
    proposals.push(
      ok(
        await platform
          .as(admin)
          .governance.create_proposal({ title: `Bench ${r}`, body: 'One vote per member', category: 'General' }),
      ),
    );
  now += HOUR;
  const votes = ['Yes', 'Yes', 'No', 'Abstain'] as const;
  let round = 0;
  return {
    open: async () => {
      const proposal = proposals[round++]!;
      return closedLoop(members, CLIENTS, (i) =>
        platform
          .as(principals[i]!)
          .governance.cast_vote(proposal, votes[i % 4]!)
          .then(ok),
      );
    },
    close: () => {
      platform.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgres(members: number): Promise<{ round: () => Promise<number>; close: () => Promise<void> }> {
  const database = `bench_durability_${process.pid}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database}`);
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(PG_URL);
  url.pathname = `/${database}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: CLIENTS });
  // What a vote is in a relational design: one row, unique per (proposal, voter).
  await pool.query(
    `CREATE TABLE votes (proposal_id bigint NOT NULL, voter text NOT NULL, choice text NOT NULL, cast_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (proposal_id, voter))`,
  );
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => pool.connect()));
  for (const c of clients) {
    await c.query('SET synchronous_commit = on');
    const { rows } = await c.query<{ synchronous_commit: string; fsync: string }>(
      'SELECT current_setting($1) AS synchronous_commit, current_setting($2) AS fsync',
      ['synchronous_commit', 'fsync'],
    );
    if (rows[0]!.synchronous_commit !== 'on' || rows[0]!.fsync !== 'on')
      throw new Error(`PostgreSQL is not durable here: ${JSON.stringify(rows[0])}`);
  }
  const principals = Array.from({ length: members }, (_, i) => principalFromSeed(`member-${i}`));
  const votes = ['Yes', 'Yes', 'No', 'Abstain'];
  let round = 0;
  return {
    round: async () => {
      const proposal = ++round;
      // Autocommit: each INSERT is its own transaction, committed (WAL flushed) before its answer.
      return closedLoop(members, CLIENTS, (i, c) =>
        clients[c]!.query({
          name: 'vote',
          text: 'INSERT INTO votes (proposal_id, voter, choice) VALUES ($1, $2, $3)',
          values: [proposal, principals[i]!, votes[i % 4]!],
        }),
      );
    },
    close: async () => {
      for (const c of clients) c.release();
      await pool.end();
      await admin.query(`DROP DATABASE IF EXISTS ${database}`);
      await admin.end();
    },
  };
}

export async function benchDurability(): Promise<string> {
  // Both systems get every CPU (PostgreSQL's backends are not pinned): lift the load generator's
  // pinning from bench/lib.ts for this benchmark, and put it back afterwards.
  const lifted = pinning
    ? spawnSync('taskset', ['-a', '-pc', pinning.all, String(process.pid)], { encoding: 'utf8' })
    : undefined;
  // Under a cpuset without those CPUs the lift fails, and the embedded side would quietly have one CPU.
  const warning =
    lifted && lifted.status !== 0
      ? `\n\n**Not on every CPU:** taskset could not give this process CPUs ${pinning!.all} (${lifted.stderr.trim() || `exit ${lifted.status}`}); the embedded side ran on CPU ${pinning!.client} only (decision P18).`
      : '';
  try {
    return (await measure()) + warning;
  } finally {
    if (pinning) spawnSync('taskset', ['-a', '-pc', pinning.client, String(process.pid)]);
  }
}

async function measure(): Promise<string> {
  const members = Number(process.env.BENCH_VOTERS ?? 10_000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 9);
  const synced = await embedded(true, members, rounds);
  const unsynced = await embedded(false, members, rounds);
  const db = await postgres(members);
  const r = {
    synced: [] as number[],
    unsynced: [] as number[],
    pg: [] as number[],
    ratio: [] as number[],
    ratioUnsynced: [] as number[],
  };
  try {
    for (let i = 0; i < rounds; i++) {
      const p = await db.round();
      const s = await synced.open();
      const u = await unsynced.open();
      r.pg.push(p);
      r.synced.push(s);
      r.unsynced.push(u);
      r.ratio.push(s / p);
      r.ratioUnsynced.push(u / p);
    }
  } finally {
    synced.close();
    unsynced.close();
    await db.close();
  }
  return [
    `## Durable votes: embedded cast_vote vs PostgreSQL (${members.toLocaleString('en')} votes per round, ${CLIENTS} clients in flight, ${rounds} rounds; median (range))`,
    '',
    table([
      {
        system: 'embedded cast_vote, fsynced before each answer (default, group commit)',
        'calls/s': summary(r.synced),
        '÷ PostgreSQL (same round)': summary(r.ratio, 2),
      },
      {
        system: 'embedded cast_vote, written not synced (CANISTERS_FSYNC=false)',
        'calls/s': summary(r.unsynced),
        '÷ PostgreSQL (same round)': summary(r.ratioUnsynced, 2),
      },
      {
        system: 'yardstick: PostgreSQL, one INSERT per transaction, synchronous_commit on',
        'calls/s': summary(r.pg),
        '÷ PostgreSQL (same round)': '1.00',
      },
    ]),
  ].join('\n');
}
