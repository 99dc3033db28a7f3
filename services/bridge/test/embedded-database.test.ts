// Decision P13: the embedded database is PostgreSQL 18 (PGlite 0.5) with 16 MB of shared buffers, a new
// data directory is created by a child process and renamed into place, and a PostgreSQL 17 directory
// left by an earlier release (PGlite 0.3) is carried over at start: every row and sequence copied into
// a new directory, the old one kept as `<dir>.postgres17`. A crash at any step of that leaves either
// the old directory in place (the upgrade runs again) or a complete new one (the swap is finished).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { sql } from 'kysely';
import { PGlite as PGlite17 } from 'pglite-pg17';
import { vector as vector17 } from 'pglite-pg17/vector';
import { migrateLite } from '../src/core/db/migrate.ts';
import { openDatabase } from '../src/core/db/connect.ts';
import { EMBEDDED_START_PARAMS, openEmbedded, type OpenEmbeddedOptions } from '../src/core/db/embedded.ts';
import { EmbeddedDatabaseFailed } from '../src/core/db/errors.ts';
import { copyDatabase } from '../src/core/db/embedded-upgrade.ts';
import type { Lite } from '../src/core/db/pglite-dialect.ts';
import { bridge, type Bridge } from './harness.ts';
import { initdbFromTemplate, seedEmbeddedDatabase } from './embedded-template.ts';

const EMAIL = 'early@example.org';
const DIM = 4096;

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-embedded-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const version = (dir: string) => readFileSync(join(dir, 'PG_VERSION'), 'utf8').trim();

/** Every file's path and bytes under `dir`: equal hashes, an untouched directory. */
function treeHash(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      h.update(`${rel}/${e.name}\n`);
      if (e.isDirectory()) walk(join(d, e.name), `${rel}/${e.name}`);
      else h.update(readFileSync(join(d, e.name)));
    }
  };
  walk(dir, '');
  return h.digest('hex');
}

type PGlite17Lite = Lite & { waitReady: Promise<void>; close(): Promise<void> };
let emptyPostgres17: Promise<string> | undefined;
const pg17Templates = mkdtempSync(join(tmpdir(), 'domdao-pg17-'));
after(() => rmSync(pg17Templates, { recursive: true, force: true }));

/**
 * A new PostgreSQL 17 directory (PGlite 0.3) with this release's schema and no rows: made once per file
 * (initdb and the migrations in the old engine took about 3.5 s) and copied for each test (decision R13).
 */
async function newPostgres17(dir: string): Promise<PGlite17Lite> {
  emptyPostgres17 ??= (async () => {
    const template = join(pg17Templates, 'pg17');
    const lite = new PGlite17(template, { extensions: { vector: vector17 } }) as unknown as PGlite17Lite;
    await lite.waitReady;
    await migrateLite(lite);
    await lite.close();
    return template;
  })();
  cpSync(await emptyPostgres17, dir, { recursive: true });
  const lite = new PGlite17(dir, { extensions: { vector: vector17 } }) as unknown as PGlite17Lite;
  await lite.waitReady;
  return lite;
}

/**
 * What an earlier release left: the same rows, in a PostgreSQL 17 directory written by PGlite 0.3
 * (this release's rows copied back into the old engine, at the same schema).
 */
async function rewriteAsPostgres17(pgdir: string): Promise<void> {
  const from = new PGlite(pgdir, { extensions: { vector }, startParams: [...EMBEDDED_START_PARAMS] });
  const old17 = `${pgdir}-17`;
  const [old] = await Promise.all([newPostgres17(old17), from.waitReady]);
  const copied = await copyDatabase(from, old);
  assert.ok(copied.rows > 0);
  await from.close();
  await old.close();
  rmSync(pgdir, { recursive: true });
  renameSync(old17, pgdir);
  assert.equal(version(pgdir), '17');
}

async function withEarlyMember(): Promise<{ h: Bridge; pgdir: string }> {
  const h = await bridge();
  after(() => h.close());
  await h.member(EMAIL);
  const vec = `[${Array.from({ length: DIM }, (_, i) => (i % 7) / 7).join(',')}]`;
  await sql`insert into ai_embeddings values ('p-1', 'A title', 'An excerpt', ${'0'.repeat(64)}, 'test-model', ${vec}::vector, now())`.execute(
    h.opened.db,
  );
  await h.app.close();
  return { h, pgdir: join(h.env.DATA_DIR!, 'pglite') };
}

async function assertCarried(h: Bridge, pgdir: string): Promise<void> {
  assert.equal(version(pgdir), '18');
  assert.equal(version(`${pgdir}.postgres17`), '17', 'the old directory is kept, untouched');
  assert.equal(existsSync(`${pgdir}.upgrading`), false);
  const { res } = await h.login(EMAIL);
  assert.equal(res.statusCode, 200, `the member registered before the upgrade signs in: ${res.body}`);
  const e = await sql<{
    dims: number;
    second: number;
  }>`select vector_dims(embedding) as dims, (embedding::real[])[2] as second from ai_embeddings where proposal_id = 'p-1'`.execute(
    h.opened.db,
  );
  assert.equal(e.rows.length, 1);
  assert.equal(e.rows[0]!.dims, DIM);
  assert.ok(Math.abs(e.rows[0]!.second - 1 / 7) < 1e-6, `the vector's values carried: ${e.rows[0]!.second}`);
}

describe('decision P13: the embedded database', () => {
  it('a new directory is PostgreSQL 18 with 16 MB of shared buffers, made by a child process and renamed in', async () => {
    const pgdir = join(scratch(), 'data', 'pglite');
    const d = await openDatabase({ dir: pgdir });
    after(() => d.close());
    const s = await sql<{
      name: string;
      setting: string;
    }>`select name, setting from pg_settings where name in ('shared_buffers', 'server_version_num')`.execute(d.db);
    const settings = Object.fromEntries(s.rows.map((r) => [r.name, r.setting]));
    assert.equal(settings.shared_buffers, String((16 * 1024) / 8), '16 MB in 8 kB pages');
    assert.match(settings.server_version_num!, /^18/);
    assert.equal(version(pgdir), '18');
    assert.deepEqual(readdirSync(join(pgdir, '..')), ['pglite'], 'nothing is left beside it');
  });

  it("an earlier release's PostgreSQL 17 directory is carried over at start: members, vectors, the old directory kept", async () => {
    const { h, pgdir } = await withEarlyMember();
    await rewriteAsPostgres17(pgdir);
    const before = treeHash(pgdir);
    await h.restart();
    assert.equal(
      treeHash(`${pgdir}.postgres17`),
      before,
      'the PostgreSQL 17 directory is kept byte for byte (an earlier release can still open it)',
    );
    const line = h.logs.events('database.upgraded')[0];
    assert.ok(line, 'the upgrade is logged');
    assert.equal(line.backup, `${pgdir}.postgres17`);
    assert.ok((line.rows as number) >= 3);
    await assertCarried(h, pgdir);
    // A second start opens the new directory as it is.
    await h.restart();
    assert.equal(h.logs.events('database.upgraded').length, 1);
    assert.equal((await h.login(EMAIL)).res.statusCode, 200);
  });

  it('crash before the swap: a half-built new directory is discarded and the upgrade runs again', async () => {
    const { h, pgdir } = await withEarlyMember();
    await rewriteAsPostgres17(pgdir);
    mkdirSync(`${pgdir}.upgrading`);
    writeFileSync(join(`${pgdir}.upgrading`, 'PG_VERSION'), '18\n');
    mkdirSync(`${pgdir}.creating`);
    await h.restart();
    await assertCarried(h, pgdir);
    assert.equal(existsSync(`${pgdir}.creating`), false);
  });

  it('crash between the two renames: the complete new directory is swapped in at the next start', async () => {
    const { h, pgdir } = await withEarlyMember();
    await rewriteAsPostgres17(pgdir);
    await h.restart();
    await h.app.close();
    // The state after `rename(dir, backup)`: the marked new directory waits beside no directory.
    renameSync(pgdir, `${pgdir}.upgrading`);
    writeFileSync(join(`${pgdir}.upgrading`, 'UPGRADED_FROM_POSTGRES_17'), '{}');
    await h.restart();
    await assertCarried(h, pgdir);
    assert.equal(existsSync(join(pgdir, 'UPGRADED_FROM_POSTGRES_17')), false);
  });

  it('an upgrade that fails leaves the PostgreSQL 17 directory untouched and says why', async () => {
    const pgdir = join(scratch(), 'pglite');
    const old = await newPostgres17(pgdir);
    // A table this release's schema does not have: its rows have nowhere to go.
    await old.exec("create table notes (body text); insert into notes values ('kept')");
    await old.close();
    const before = treeHash(pgdir);
    await assert.rejects(
      openDatabase({ dir: pgdir }),
      /over from PostgreSQL 17 to 18 failed, and it is left as it was: .*notes/,
    );
    assert.equal(treeHash(pgdir), before, 'not a byte of the 17 directory changed');
    assert.deepEqual(readdirSync(join(pgdir, '..')), ['pglite'], 'nothing is left beside it');
    const reopened = new PGlite17(pgdir, { extensions: { vector: vector17 } }) as unknown as Lite;
    assert.deepEqual((await reopened.query('select body from notes')).rows, [{ body: 'kept' }]);
    await reopened.close();
  });

  it('a carried-over database whose directory has gone is not replaced by an empty one', async () => {
    const { h, pgdir } = await withEarlyMember();
    await rewriteAsPostgres17(pgdir);
    await h.restart();
    await h.app.close();
    rmSync(pgdir, { recursive: true });
    await assert.rejects(
      openDatabase({ dir: pgdir }),
      /pglite is missing but .*pglite\.postgres17 holds the database it was carried over from/,
    );
    assert.equal(existsSync(pgdir), false);
    // Moved back, it is carried over again.
    renameSync(`${pgdir}.postgres17`, pgdir);
    await h.restart();
    assert.equal((await h.login(EMAIL)).res.statusCode, 200);
  });

  it('a directory that is not a database, or another major version, is refused with a clear error and left as it is', async () => {
    const base = scratch();
    const notDb = join(base, 'notdb');
    mkdirSync(notDb);
    writeFileSync(join(notDb, 'mine.txt'), 'x');
    await assert.rejects(openDatabase({ dir: notDb }), /is not empty and holds no PostgreSQL database/);
    assert.deepEqual(readdirSync(notDb), ['mine.txt']);
    const v16 = join(base, 'v16');
    mkdirSync(v16);
    writeFileSync(join(v16, 'PG_VERSION'), '16\n');
    await assert.rejects(openDatabase({ dir: v16 }), /PostgreSQL 16 database; .* carries over only 17/);
    assert.deepEqual(readdirSync(v16), ['PG_VERSION']);
    const file = join(base, 'file');
    writeFileSync(file, 'x');
    await assert.rejects(openDatabase({ dir: file }), /is not a directory/);
  });

  it("decision R25: a test's stand-in for initdb's child builds beside the directory, and what is not PostgreSQL 18, or a failure, is discarded with a sentence", async () => {
    const base = scratch();
    const made: string[] = [];
    const pgdir = join(base, 'made', 'pglite');
    const d = await openDatabase({
      dir: pgdir,
      embeddedInitdb: async (building) => (made.push(building), initdbFromTemplate(building)),
    });
    after(() => d.close());
    assert.deepEqual(made, [`${pgdir}.creating-${process.pid}`]);
    assert.equal(version(pgdir), '18');
    assert.deepEqual(readdirSync(join(pgdir, '..')), ['pglite'], 'nothing is left beside it');
    const old = join(base, 'old', 'pglite');
    const as17 = async (building: string) => (
      mkdirSync(building, { recursive: true }),
      writeFileSync(join(building, 'PG_VERSION'), '17\n')
    );
    await assert.rejects(
      openDatabase({ dir: old, embeddedInitdb: as17 }),
      /creating the embedded database in .*old\/pglite failed: no PostgreSQL 18 database was made/,
    );
    const failing = join(base, 'failing', 'pglite');
    const fails = async (building: string) => {
      mkdirSync(building, { recursive: true });
      throw new Error('out of space');
    };
    await assert.rejects(
      openDatabase({ dir: failing, embeddedInitdb: fails }),
      /creating the embedded database in .*failing\/pglite failed: out of space/,
    );
    assert.deepEqual(
      [readdirSync(join(base, 'old')), readdirSync(join(base, 'failing'))],
      [[], []],
      'no half-made directory is left',
    );
  });
});

// Decision P16: PGlite's file layer never reached the disk on a sync (NODEFS streams have no fsync,
// and PGlite starts PostgreSQL with -F). A power cut is out of reach here, so the syncs are observed
// where they happen: the mount reports each completed one, and its order against the answer is checked.
describe('decision P16: the embedded database syncs every commit before its answer', () => {
  const settingsOf = async (lite: Lite) =>
    Object.fromEntries(
      (
        await lite.query<{ name: string; setting: string }>(
          `select name, setting from pg_settings where name in ('fsync', 'wal_sync_method', 'synchronous_commit')`,
        )
      ).rows.map((r) => [r.name, r.setting]),
    );

  /** Each completed sync, named by its path in the directory ('' is the directory itself). */
  const recorder = (pgdir: string, events: string[]) => (fd: number) =>
    events.push(readlinkSync(`/proc/self/fd/${fd}`).slice(pgdir.length + 1));

  /**
   * A new, migrated directory, copied from the run's template (decision R13): what a first start makes
   * (the P13 case above makes one itself), without initdb's child process at every case.
   */
  async function newDirectory(): Promise<string> {
    const pgdir = join(realpathSync(scratch()), 'pglite');
    await seedEmbeddedDatabase(pgdir);
    return pgdir;
  }

  async function opened(options: Partial<OpenEmbeddedOptions> = {}) {
    const pgdir = await newDirectory();
    const events: string[] = [];
    const lite = await openEmbedded(pgdir, { migrate: migrateLite, onSync: recorder(pgdir, events), ...options });
    after(() => (lite.closed ? undefined : lite.close()));
    return { lite, events, pgdir };
  }

  it('a commit answers only after the write-ahead log it wrote is fsynced; a read syncs nothing', async () => {
    const { lite, events } = await opened();
    assert.deepEqual(await settingsOf(lite), { fsync: 'on', synchronous_commit: 'on', wal_sync_method: 'fsync' });
    await lite.exec('create table p16 (id int primary key, note text)');
    for (let i = 1; i <= 3; i++) {
      events.length = 0;
      await lite.query('insert into p16 values ($1, $2)', [i, 'acknowledged']).then(() => events.push('answered'));
      const answered = events.indexOf('answered');
      assert.ok(
        events.slice(0, answered).some((e) => e.startsWith('pg_wal/')),
        `commit ${i}: a pg_wal sync before the answer, saw ${JSON.stringify(events)}`,
      );
    }
    events.length = 0;
    await lite.query('select count(*) from p16');
    assert.equal(events.length, 0, `a read commits nothing, saw ${JSON.stringify(events)}`);
    // A new log segment is renamed into place: the directory's entry is synced too (fsync of a directory).
    await lite.query('select pg_switch_wal()');
    await lite.exec('insert into p16 values (4, null)');
    assert.ok(events.includes('pg_wal'), `the pg_wal directory is synced, saw ${JSON.stringify(events)}`);
  });

  it('a checkpoint syncs the table files it wrote and the control file, so the log before it may be recycled', async () => {
    const { lite, events } = await opened();
    await lite.exec('create table p16 (id int primary key)');
    await lite.query('insert into p16 select generate_series(1, 1000)');
    const file = (await lite.query<{ path: string }>(`select pg_relation_filepath('p16') as path`)).rows[0]!.path;
    events.length = 0;
    await lite.exec('checkpoint');
    assert.ok(events.includes(file), `the table's file ${file} is synced, saw ${events.length} syncs`);
    assert.ok(events.includes('global/pg_control'), 'the control file is synced');
  });

  it("fsync: false (what EMBEDDED_DATABASE_FSYNC=false sets): PGlite's own fsync off; the next durable start syncs the whole directory before its first statement", async () => {
    const { lite, pgdir, events } = await opened({ fsync: false });
    assert.equal((await settingsOf(lite)).fsync, 'off');
    await lite.exec('create table p16 (id int primary key); insert into p16 values (7)');
    const file = (await lite.query<{ path: string }>(`select pg_relation_filepath('p16') as path`)).rows[0]!.path;
    await lite.close();
    assert.deepEqual(events, [], 'a run with fsync off syncs nothing');
    const reopened: string[] = [];
    const again = await openEmbedded(pgdir, { migrate: migrateLite, onSync: recorder(pgdir, reopened) });
    after(() => (again.closed ? undefined : again.close()));
    for (const written of [file, 'global/pg_control', 'pg_wal', ''])
      assert.ok(reopened.includes(written), `${written || 'the directory'} synced at the durable start`);
    assert.equal((await settingsOf(again)).fsync, 'on', 'the default again');
    assert.deepEqual((await again.query<{ id: number }>('select id from p16')).rows, [{ id: 7 }]);
    // Synced whole once: the start after a durable run does not do it again.
    await again.close();
    const quiet: string[] = [];
    const third = await openEmbedded(pgdir, { migrate: migrateLite, onSync: recorder(pgdir, quiet) });
    after(() => third.close());
    assert.ok(!quiet.includes(file), `no whole-tree sync after a durable run, saw ${quiet.length} syncs`);
  });

  it('a failed sync: the commit is not acknowledged, every later statement is refused at once (EmbeddedDatabaseFailed), and a restart recovers every acknowledged commit', async () => {
    let failing = false;
    const told: Error[] = [];
    const pgdir = await newDirectory();
    const lite = await openEmbedded(pgdir, {
      migrate: migrateLite,
      onSync: () => {
        if (failing) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
      },
      onSyncFailed: (err) => told.push(err),
    });
    await lite.exec('create table p16 (id int primary key); insert into p16 values (1)');
    failing = true;
    await assert.rejects(
      lite.query('insert into p16 values (2)'),
      /could not fsync/,
      'PostgreSQL answers the commit with its PANIC',
    );
    failing = false;
    // Without the guard this statement would never return and would block the process.
    await assert.rejects(
      lite.query('select 1'),
      (e: Error) => e instanceof EmbeddedDatabaseFailed && /EIO: i\/o error/.test(e.message),
    );
    await assert.rejects(lite.exec('insert into p16 values (3)'), EmbeddedDatabaseFailed);
    await assert.rejects(
      lite.transaction(async (tx) => tx.query('select 1')),
      EmbeddedDatabaseFailed,
    );
    assert.equal(told.length, 1, 'told once');
    await lite.close();
    const resynced: string[] = [];
    const restarted = await openEmbedded(pgdir, { migrate: migrateLite, onSync: recorder(pgdir, resynced) });
    after(() => restarted.close());
    assert.ok(
      resynced.includes('global/pg_control') && resynced.includes(''),
      'a start after a run that did not close cleanly syncs the whole directory first',
    );
    const ids = (await restarted.query<{ id: number }>('select id from p16 order by id')).rows.map((r) => r.id);
    assert.equal(ids[0], 1, 'the acknowledged commit is there');
    assert.ok(!ids.includes(3), 'nothing after the failure was written');
  });

  it('the bridge after a failed sync: the request is refused, database.sync_failed is logged once, and /health answers 503 DATABASE_FAILED until a restart', async () => {
    let failing = false;
    const h: Bridge = await bridge(
      undefined,
      {},
      {
        embeddedSyncFault: () => {
          if (failing) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
        },
      },
    );
    after(() => h.close());
    assert.deepEqual((await h.request({ method: 'GET', url: '/health' })).json(), { status: 'ok' });
    failing = true;
    const refused = await h.register('p16-sync@example.org');
    assert.equal(refused.statusCode, 503, `nothing whose sync failed is acknowledged: ${refused.body}`);
    assert.equal(refused.json().error, 'DATABASE_FAILED', 'named as what it is, through the session store too');
    failing = false;
    const later = await h.register('p16-after@example.org');
    assert.equal(
      later.statusCode,
      503,
      `every later statement is refused, without blocking the process: ${later.body}`,
    );
    assert.equal(later.json().error, 'DATABASE_FAILED');
    const health = await h.request({ method: 'GET', url: '/health' });
    assert.equal(health.statusCode, 503);
    assert.equal(health.json().status, 'unavailable');
    assert.equal(health.json().error, 'DATABASE_FAILED');
    assert.match(health.json().request_id, /^[0-9a-f-]{36}$/, 'a request id, as in every bridge error');
    await h.app.jobs.tick();
    await h.app.jobs.tick();
    assert.equal(h.logs.lines().filter((l) => l.event === 'database.sync_failed').length, 1);
    // Only the statement that met the failed sync itself (PostgreSQL's PANIC) may be logged where it ran; not every
    // pass after it.
    const passes = h.logs
      .lines()
      .filter((l) => l.event === 'jobs.tick_failed' || l.event === 'events.delivery_unavailable');
    assert.deepEqual(
      passes.filter((l) => !/could not fsync/.test(String(l.err))),
      [],
      'logged once, not again at every pass',
    );
  });

  it('the bridge opens its embedded database with fsync on by default and off when told (configuration)', async () => {
    for (const [env, want] of [
      [{}, 'on'],
      [{ EMBEDDED_DATABASE_FSYNC: 'false' }, 'off'],
    ] as const) {
      const h: Bridge = await bridge(undefined, env);
      try {
        const s = await sql<{ setting: string }>`select setting from pg_settings where name = 'fsync'`.execute(
          h.opened.db,
        );
        assert.equal(s.rows[0]!.setting, want);
      } finally {
        await h.close();
      }
    }
  });
});
