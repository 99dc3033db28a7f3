// `npm run migrate` (decisions P22, P23, B113, B114): every refusal is one sentence, exit 2, with the target
// database and the source as they were; with --keep-embedded-canisters a seeded `npm start` data directory
// moves to a new PostgreSQL database, the report (and --json) shows every table's count and checksum
// matching, and the bridge on that database with the same DATA_DIR serves the same members, sessions,
// balances, histories, proposals and tallies; a vote and a transfer work after the move.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { bridge, freshPostgres, type Bridge } from './harness.ts';
import { runMigrate, seedPlatform, servedView, type Seeded } from './migrate-seed.ts';

const E8S = 100_000_000n;

/** The relations of a database (what a refusal must leave as it was: none). */
async function relations(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ n: string }>(
      `select count(*)::text as n from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'`,
    );
    return Number(rows[0]!.n);
  } finally {
    await c.end();
  }
}

describe('npm run migrate: refusals and the database move (decisions P22, P23, B113, B114)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-migrate-'));
  const dataDir = join(dir, 'data');
  let h: Bridge | undefined;
  let seeded: Seeded;
  let target: { url: string; drop(): Promise<void> };
  let endedAt = 0;
  let view: unknown;

  before(async () => {
    h = await bridge(undefined, { DATA_DIR: dataDir, DEV_FAUCET_DOM: '100' });
    h.advance(Date.now() - h.now());
    seeded = await seedPlatform(h, 4);
    const source = h;
    view = await servedView(
      (url, jar) => source.request({ method: 'GET', url, ...(jar && { jar }) }),
      seeded,
      seeded.members.map((m) => m.jar),
    );
    target = await freshPostgres('migrate_test');
  });
  after(async () => {
    await h?.close();
    await target?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('decision P23: a running source (its DATA_DIR locked) is refused in one sentence; nothing changed', async () => {
    const r = await runMigrate(['--from', dataDir, '--to-database', target.url, '--keep-embedded-canisters']);
    assert.equal(r.code, 2, r.err + r.out);
    assert.match(
      r.err,
      /^migrate: \S+ is in use by a running platform \(PID \d+\): stop npm start first, the migration moves a stopped data directory only\n$/,
    );
    assert.equal(await relations(target.url), 0);
  });

  it('decision P23: missing options, missing IC_* settings, an unreachable or non-empty target: one sentence each, exit 2, nothing changed', async () => {
    endedAt = h!.now();
    await h!.close();
    h = undefined;
    const full = await freshPostgres('migrate_full');
    const c = new pg.Client({ connectionString: full.url });
    await c.connect();
    await c.query('create table keep_me (id int)');
    await c.end();
    try {
      const cases: Array<[string[], Record<string, string>, RegExp]> = [
        [['--to-database', target.url], {}, /^migrate: --from DATA_DIR is required: /],
        [['--from', dataDir], {}, /^migrate: --to-database URL is required: /],
        [
          ['--from', dataDir, '--to-database', target.url],
          {},
          /^migrate: the IC_\* settings of the deployed canisters are missing \(IC_HOST, IC_IDENTITY_PEM_FILE, .*IC_LEDGER_CANISTER_ID\): deploy with npm run deploy -- --out FILE/,
        ],
        [
          ['--from', join(dir, 'absent'), '--to-database', target.url, '--keep-embedded-canisters'],
          {},
          /^migrate: --from \S+absent does not exist: /,
        ],
        [
          ['--from', dataDir, '--to-database', 'mysql://x', '--keep-embedded-canisters'],
          {},
          /^migrate: --to-database mysql:\/\/x is not a PostgreSQL URL/,
        ],
        [
          ['--from', dataDir, '--to-database', 'postgres://postgres@127.0.0.1:1/none', '--keep-embedded-canisters'],
          {},
          /^migrate: the target database \S+ cannot be reached \(/,
        ],
        [
          ['--from', dataDir, '--to-database', full.url, '--keep-embedded-canisters'],
          {},
          /^migrate: the target database \S+ is not empty \(1 tables, views or sequences, e\.g\. public\.keep_me\): the migration restores into a new, empty database only\n$/,
        ],
      ];
      for (const [args, env, message] of cases) {
        const r = await runMigrate(args, env);
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}${r.out}`);
        assert.match(r.err, message);
        assert.equal(r.err.trim().split('\n').length, 1, r.err);
        // Decision R51: beside the sentence, one structured line in the services' form.
        assert.equal(r.logs.length, 1, JSON.stringify(r.logs));
        assert.deepEqual(
          { service: r.logs[0]!.service, level: r.logs[0]!.level, event: r.logs[0]!.event, reason: r.logs[0]!.reason },
          {
            service: 'migrate',
            level: 'warn',
            event: 'migrate.refused',
            reason: r.err.trim().replace(/^migrate: /, ''),
          },
        );
        assert.equal(await relations(target.url), 0);
      }
      assert.equal(await relations(full.url), 1, 'the non-empty target is as it was');
    } finally {
      await full.drop();
    }
  });

  it('decision P23: a source at another schema level or PostgreSQL version is refused; nothing changed', async () => {
    const copy = join(dir, 'copy');
    cpSync(dataDir, copy, { recursive: true });
    const edit = async (statement: string) => {
      const lite = new PGlite(join(copy, 'pglite'), { extensions: { vector } });
      await lite.exec(statement);
      await lite.close();
    };
    await edit(`delete from kysely_migration where name = '070-canister-set'`);
    let r = await runMigrate(['--from', copy, '--to-database', target.url, '--keep-embedded-canisters']);
    assert.equal(r.code, 2, r.err);
    assert.match(
      r.err,
      /^migrate: the source database is at an older schema level \(it has not run 070-canister-set\): start it once with this release's npm start/,
    );
    const old = join(dir, 'old');
    mkdirSync(join(old, 'pglite'), { recursive: true });
    mkdirSync(join(old, 'canisters'));
    writeFileSync(join(old, 'pglite', 'PG_VERSION'), '17\n');
    r = await runMigrate(['--from', old, '--to-database', target.url, '--keep-embedded-canisters']);
    assert.equal(r.code, 2, r.err);
    assert.match(
      r.err,
      /^migrate: \S+ holds a PostgreSQL 17 database, not this release's 18: start it once with this release's npm start/,
    );
    assert.equal(await relations(target.url), 0);
  });

  it('decisions P22, B114: --keep-embedded-canisters moves every table (counts and checksums match, --json); the bridge on PostgreSQL with the same DATA_DIR serves the same DAO; a vote and a transfer work', async () => {
    const r = await runMigrate(['--from', dataDir, '--to-database', target.url, '--keep-embedded-canisters', '--json']);
    assert.equal(r.code, 0, r.err + r.out);
    const report = JSON.parse(r.out) as {
      ok: boolean;
      database: {
        tables: Array<{ table: string; rows: number; ok: boolean }>;
        sequences: Array<{ ok: boolean }>;
        unbound_rows: number;
      };
      canister_set: unknown;
      times_ms: Record<string, number>;
    };
    assert.equal(report.ok, true);
    assert.equal(report.canister_set, null, 'the embedded set stays the database set (B114)');
    assert.ok(report.database.tables.every((t) => t.ok));
    const rows = Object.fromEntries(report.database.tables.map((t) => [t.table, t.rows]));
    assert.equal(rows.users, seeded.members.length);
    assert.ok(rows.wallet_transfers! >= seeded.members.length, 'every transfer is there');
    console.log(`migrate --keep-embedded-canisters: ${JSON.stringify(rows)} times ${JSON.stringify(report.times_ms)}`);

    // The same DATA_DIR (its keys and its canisters) with DATABASE_URL: the same DAO.
    const moved = await bridge(undefined, { DATA_DIR: dataDir, DATABASE_URL: target.url });
    try {
      moved.advance(endedAt - moved.now());
      assert.equal(moved.opened.dbKind, 'postgres');
      const jars = [];
      for (const m of seeded.members) jars.push((await moved.login(m.email)).jar);
      const after = await servedView(
        (url, jar) => moved.request({ method: 'GET', url, ...(jar && { jar }) }),
        seeded,
        jars,
      );
      assert.deepEqual(after, view);
      const b = seeded.members[1]!;
      const vote = await moved.request({
        method: 'POST',
        url: '/api/governance/vote',
        jar: jars[jars.length - 1]!,
        payload: { proposal_id: seeded.proposals.open, vote: 'No' },
      });
      assert.equal(vote.statusCode, 200, vote.body);
      const sent = await moved.request({
        method: 'POST',
        url: '/api/me/transfers',
        jar: jars[0]!,
        payload: { to: b.principal, amount_e8s: String(E8S), fee_e8s: '10000' },
        headers: { 'idempotency-key': 'after-the-move' },
      });
      assert.equal(sent.statusCode, 201, sent.body);
      assert.equal((sent.json() as { state: string }).state, 'done');
    } finally {
      await moved.close();
    }
  });
});
