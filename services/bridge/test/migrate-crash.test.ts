// test-lane: replica
// Decision W30 with a real crash: `npm run migrate` is killed (SIGKILL, by its PID) at the one point where
// the two systems disagree, after the deployed canisters sealed the imported state and before the
// PostgreSQL transaction committed. The server rolls the database back (its connection is gone), the
// canisters keep the sealed state. Run again, the migration finds each canister sealed with exactly what it
// would import, keeps it, restores the database and commits: every table, store and the ledger's tip match,
// the bridge in IC mode serves the DAO as it was, nothing lost and nothing doubled. The crash point exists
// only with deployed canisters (--keep-embedded-canisters has no canister step), hence the replica (a copy
// of the run's deployed replica, decision R54), with a DAO of four members to keep it short.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { EMBEDDED_CANISTER_IDS } from '@domdao/canisters';
import type { RunningReplica } from '@domdao/replica';
import { START_DEV_FLAGS } from '@domdao/test-helpers';
import { startDeployedReplica } from '@domdao/replica/fixture';
import { EMBEDDED_BRIDGE_PRINCIPAL } from '../src/compose/canisters.ts';
import { bridge, freshPostgres } from './harness.ts';
import { runMigrate, seedPlatform, servedView, type Seeded } from './migrate-seed.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');

const settings = (file: string) =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => /^IC_[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  ) as Record<string, string>;

const tables = async (url: string) => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return Number(
      (await c.query<{ n: string }>(`select count(*)::text as n from pg_tables where schemaname = 'public'`)).rows[0]!
        .n,
    );
  } finally {
    await c.end();
  }
};

describe('decision W30: npm run migrate killed between the canisters’ seal and the database’s commit, then run again', () => {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-migrate-crash-'));
  const dataDir = join(dir, 'data');
  let r: RunningReplica | undefined;
  let seeded: Seeded;
  let view: unknown;
  let endedAt = 0;
  const dbs: Array<{ drop(): Promise<void> }> = [];

  before(async () => {
    const h = await bridge(undefined, { DATA_DIR: dataDir, DEV_FAUCET_DOM: '100' });
    try {
      h.advance(Date.now() - h.now());
      seeded = await seedPlatform(h, 4);
      view = await servedView(
        (url, jar) => h.request({ method: 'GET', url, ...(jar && { jar }) }),
        seeded,
        seeded.members.map((m) => m.jar),
      );
      endedAt = h.now();
    } finally {
      await h.close();
    }
  });
  after(async () => {
    await r?.stop();
    for (const d of dbs) await d.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('SIGKILL before the commit: the database is empty, the canisters sealed; the rerun keeps them, commits, and the DAO is served whole, once', async () => {
    const out = join(dir, 'deployed.env');
    r = await startDeployedReplica(join(dir, 'replica'), out);
    const env = settings(out);
    const target = await freshPostgres('migrate_crash');
    dbs.push(target);

    const proc = spawn(
      process.execPath,
      [...START_DEV_FLAGS, 'scripts/migrate.ts', '--from', dataDir, '--to-database', target.url],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env, MIGRATE_TEST_PAUSE: 'before-commit' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    after(() => proc.kill('SIGKILL'));
    let said = '';
    proc.stdout.on('data', (d) => (said += d));
    proc.stderr.on('data', (d) => (said += d));
    for (let i = 0; i < 3000 && !said.includes('PAUSED before-commit'); i++) {
      if (proc.exitCode !== null) break;
      await new Promise((ok) => setTimeout(ok, 100));
    }
    assert.ok(said.includes('PAUSED before-commit'), `the migration reached the point before its commit: ${said}`);
    assert.equal(said.match(/: sealed, \d+ entries/g)?.length, 6, said);
    process.kill(proc.pid!, 'SIGKILL');
    await once(proc, 'exit');

    // What the crash left: no table committed (the server rolled back the dropped connection's transaction).
    assert.equal(await tables(target.url), 0);

    const again = await runMigrate(['--from', dataDir, '--to-database', target.url, '--json'], env);
    assert.equal(again.code, 0, again.err + again.out);
    assert.equal(again.err.match(/already sealed with this export, kept/g)?.length, 6, again.err);
    const report = JSON.parse(again.out) as {
      ok: boolean;
      database: { tables: Array<{ table: string; rows: number; ok: boolean }>; unbound_rows: number };
      canisters: {
        stores: Array<{
          canister: string;
          store: string;
          source: { count: number };
          target: { count: number } | null;
          ok: boolean;
        }>;
        ledger_tip: { ok: boolean };
      };
    };
    assert.equal(report.ok, true);
    assert.ok(report.database.tables.every((t) => t.ok));
    assert.ok(report.canisters.stores.every((s) => s.ok && s.target?.count === s.source.count));
    assert.equal(report.canisters.ledger_tip.ok, true);
    // Counted: as many ledger blocks and users as the source holds, not one more.
    const count = (canister: string, store: string) =>
      report.canisters.stores.find((s) => s.canister === canister && s.store === store)!;
    assert.ok(count('ledger', 'blocks').source.count > seeded.members.length);
    const rows = (table: string) => report.database.tables.find((t) => t.table === table)!.rows;
    assert.equal(rows('users'), seeded.members.length);

    // The bridge on the moved DAO serves what the embedded one served.
    await r.advance(Math.max(0, endedAt - Date.now()));
    const moved = await bridge(undefined, { ...env, DATA_DIR: dataDir, DATABASE_URL: target.url });
    try {
      moved.advance(endedAt - moved.now());
      assert.equal(moved.opened.canisters.mode, 'ic');
      const jars = [];
      for (const m of seeded.members) jars.push((await moved.login(m.email)).jar);
      const served = await servedView(
        (url, jar) => moved.request({ method: 'GET', url, ...(jar && { jar }) }),
        seeded,
        jars,
      );
      let expected = JSON.stringify(view);
      for (const [name, id] of Object.entries(EMBEDDED_CANISTER_IDS))
        expected = expected.replaceAll(id, env[`IC_${name.toUpperCase()}_CANISTER_ID`]!);
      expected = expected.replaceAll(EMBEDDED_BRIDGE_PRINCIPAL, moved.opened.canisters.principal);
      assert.deepEqual(JSON.parse(JSON.stringify(served)), JSON.parse(expected));
    } finally {
      await moved.close();
    }
  });
});
