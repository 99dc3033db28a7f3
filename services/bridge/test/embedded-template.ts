// Decision R13: a bridge test on PGlite starts from a copy of a new, migrated embedded database instead of making one.
// Making one (initdb in a child process, then every migration) took about 4 s of CPU a bridge, and the suite opens well
// over a hundred; copying the directory and opening it, as a restart does, takes about 0.5 s. The template is made once
// by the production path (`openDatabase` on a new directory, then a clean close) and shared by every file of one `npm
// test` run through `TEST_RUN_CACHE_DIR`, which scripts/test.mjs makes and removes; a file run on its own keeps one for
// its process. Its name carries the migrations' hash (decision R28), as PostgreSQL's template's does: a migration
// changed while a cache holds a template makes a new one. What only a new directory does (initdb in a child, the
// rename, the first sync of the tree) is tested by embedded-database.test.ts on its own directories.
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateLite } from '../src/core/db/migrate.ts';
import { openDatabase } from '../src/core/db/connect.ts';
import { initdbChild, openEmbedded } from '../src/core/db/embedded.ts';
import type { Lite } from '../src/core/db/pglite-dialect.ts';
import { migrationsHash } from './migrations-hash.ts';

const TEMPLATE = 'bridge-pglite';
const INITDB = 'pglite-initdb';

let cacheDir: string | undefined;
let made: Promise<string> | undefined;

function cache(): string {
  if (cacheDir) return cacheDir;
  const shared = process.env.TEST_RUN_CACHE_DIR;
  if (shared) {
    mkdirSync(shared, { recursive: true });
    return (cacheDir = shared);
  }
  const own = mkdtempSync(join(tmpdir(), 'domdao-test-cache-'));
  process.once('exit', () => rmSync(own, { recursive: true, force: true }));
  return (cacheDir = own);
}

/**
 * `name` in the run's cache, made by `build` by whichever process of the run needs it first. Built in
 * a directory of this process's own (the embedded database discards other builds beside it as a
 * crash's leftovers), then renamed in: another worker that won the race keeps its.
 */
async function madeOnce(name: string, build: (out: string) => Promise<void>): Promise<string> {
  const root = cache();
  const path = join(root, name);
  if (existsSync(path)) return path;
  const scratch = mkdtempSync(join(root, `build-${process.pid}-`));
  try {
    await build(join(scratch, 'pglite'));
    try {
      renameSync(join(scratch, 'pglite'), path);
    } catch (e) {
      if (!existsSync(path)) throw e;
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return path;
}

/**
 * The template: a new directory opened and migrated by the production path, then closed cleanly, in
 * the run's cache under a name with the migrations' hash (decision R28).
 */
export function embeddedTemplate(): Promise<string> {
  return (made ??= madeOnce(`${TEMPLATE}-${migrationsHash()}`, async (out) => {
    const database = await openDatabase({ dir: out });
    await database.close();
  }));
}

let initdbMade: Promise<string> | undefined;

/**
 * Decision R25: initdb's output, made once per run by the child process the embedded database runs
 * (`initdbChild`) and copied for each new directory a harness bridge makes (an upgrade from
 * PostgreSQL 17 makes one): `openBridge`'s `embeddedInitdb`. The child itself, and what follows it
 * (the check of the version, the sync, the rename), run as in production.
 */
export async function initdbFromTemplate(building: string): Promise<void> {
  cpSync(await (initdbMade ??= madeOnce(INITDB, initdbChild)), building, { recursive: true });
}

/** Puts a new, migrated embedded database at `dir` (which must not exist yet). */
export async function seedEmbeddedDatabase(dir: string): Promise<void> {
  cpSync(await embeddedTemplate(), dir, { recursive: true });
}

/**
 * A new DATA_DIR (under the temporary directory, named from `prefix`) holding a copy of the template
 * as its embedded database, for a bridge or a whole platform a test starts as a process of its own: it
 * opens the database as a restart does, without initdb's child (about 5 CPU-s on a 2-CPU machine).
 * What a first start does is tested where it is the subject (embedded-database, start-and-register,
 * and start-signals' signal during the creation).
 */
export async function seededDataDir(prefix: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  await seedEmbeddedDatabase(join(dir, 'pglite'));
  return dir;
}

/**
 * `openDatabase({})` for tests that drive a feature's functions on PGlite: the template's database,
 * lent from the pool below (decision R24) and handed back by `close`.
 */
export async function openTemplateDatabase(): ReturnType<typeof openDatabase> {
  const loan = await lendEmbeddedDatabase();
  try {
    return await openDatabase({ lent: { lite: loan.lite, release: () => loan.giveBack() } });
  } catch (e) {
    await loan.giveBack();
    throw e;
  }
}

// Decision R24: started embedded databases are lent to one bridge (or test) at a time and used again
// by the next one in the process, reset to the template, instead of a new copy started each time:
// PGlite's start (its file bundle, the pgvector module, PostgreSQL's start) and the copy were about
// 0.25 of the 0.4 CPU-s a harness bridge took to open and close. A returned database is reset
// (DISCARD ALL, every table but the migrations' truncated, identities restarted) and used again only
// when its fingerprint (schema, triggers, functions, extensions, sequences, settings, migrations)
// equals the template's as it opened; otherwise it is closed and removed. A restart keeps its loan
// (harness.ts); a bridge whose data must outlive its app otherwise (a test that reopens DATA_DIR) gets
// the database back in its own DATA_DIR/pglite: `surrender`, and from then on it is an ordinary directory.

/** At most this many started databases wait for the next loan; more are closed as they come back. */
const IDLE_MAX = 2;

interface Pooled {
  lite: Lite;
  /** The directory its `pglite` directory is in; removed when it is closed (or the process ends). */
  home: string;
}

const idle: Pooled[] = [];
let expected: Promise<string> | undefined;
/** Every pooled database's directory not yet removed: what a process that ends leaves is removed with it. */
const homes = new Set<string>();
let removeAtExit = false;

const FINGERPRINT = `
  select md5(coalesce(string_agg(line, E'\n' order by line), '')) as fingerprint from (
    select 'relation ' || n.nspname || '.' || c.relname || ' ' || c.relkind::text || ' ' || c.relpersistence::text as line
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and n.nspname not like 'pg_temp%' and n.nspname not like 'pg_toast_temp%'
    union all select 'column ' || a.attrelid::regclass || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
      from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
      left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where n.nspname = 'public' and a.attnum > 0 and not a.attisdropped
    union all select 'constraint ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) from pg_constraint where connamespace = 'public'::regnamespace
    union all select 'index ' || pg_get_indexdef(i.indexrelid) from pg_index i join pg_class c on c.oid = i.indexrelid where c.relnamespace = 'public'::regnamespace
    union all select 'trigger ' || tgrelid::regclass || ' ' || tgname || ' ' || tgenabled::text from pg_trigger where not tgisinternal
    union all select 'function ' || p.oid::regprocedure || ' ' || md5(coalesce(p.prosrc, '')) from pg_proc p where p.pronamespace = 'public'::regnamespace
    union all select 'type ' || t.typname from pg_type t where t.typnamespace = 'public'::regnamespace
    union all select 'extension ' || extname || ' ' || extversion from pg_extension
    union all select 'schema ' || nspname from pg_namespace where nspname not like 'pg_temp%' and nspname not like 'pg_toast_temp%'
    union all select 'role ' || rolname from pg_roles
    union all select 'sequence ' || schemaname || '.' || sequencename || ' ' || coalesce(last_value::text, 'unread') from pg_sequences
    union all select 'setting ' || name || '=' || setting || ' ' || source from pg_settings
      where source not in ('default', 'override', 'configuration file', 'command line', 'environment variable', 'client')
    union all select 'migration ' || name from kysely_migration
  ) lines`;

async function fingerprint(lite: Lite): Promise<string> {
  return (await lite.query<{ fingerprint: string }>(FINGERPRINT)).rows[0]!.fingerprint;
}

/** A copy of the template, started as a bridge starts its own (fsync on, decision P16). */
async function startPooled(): Promise<Pooled> {
  if (!removeAtExit) {
    removeAtExit = true;
    process.once('exit', () => homes.forEach(remove));
  }
  const home = mkdtempSync(join(tmpdir(), 'domdao-test-pooled-'));
  homes.add(home);
  try {
    await seedEmbeddedDatabase(join(home, 'pglite'));
    const lite = await openEmbedded(join(home, 'pglite'), { migrate: migrateLite });
    expected ??= fingerprint(lite);
    return { lite, home };
  } catch (e) {
    remove(home);
    throw e;
  }
}

function remove(home: string): void {
  rmSync(home, { recursive: true, force: true });
  homes.delete(home);
}

async function discard(p: Pooled): Promise<void> {
  try {
    await p.lite.close();
  } finally {
    remove(p.home);
  }
}

/** Back to the template's state, or false when the database is not what the template was. */
async function reset(lite: Lite): Promise<boolean> {
  await lite.exec('discard all');
  const tables = (
    await lite.query<{ name: string }>(
      `select quote_ident(relname) as name from pg_class where relnamespace = 'public'::regnamespace and relkind in ('r', 'p') and relname not like 'kysely\\_%'`,
    )
  ).rows.map((r) => r.name);
  // Only what a bridge wrote to (a table with rows, or whose identity moved): truncating all 23 tables
  // took 45 ms, most of a reset.
  const dirty =
    tables.length === 0
      ? []
      : (
          await lite.query<{ name: string }>(
            `${tables.map((t) => `select ${quoteLiteral(t)} as name where exists (select from ${t})`).join(' union all ')}
             union all select distinct quote_ident(c.relname) from pg_depend d join pg_class c on c.oid = d.refobjid
               join pg_sequences s on (quote_ident(s.schemaname) || '.' || quote_ident(s.sequencename))::regclass = d.objid
               where d.classid = 'pg_class'::regclass and d.refclassid = 'pg_class'::regclass and s.last_value is not null and c.relnamespace = 'public'::regnamespace`,
          )
        ).rows.map((r) => r.name);
  // The audit log refuses TRUNCATE (decision B61) through a trigger: replica mode skips triggers.
  if (dirty.length > 0)
    await lite.exec(
      `begin; set local session_replication_role = replica; truncate ${[...new Set(dirty)].join(', ')} restart identity cascade; commit`,
    );
  return (await fingerprint(lite)) === (await expected);
}

const quoteLiteral = (s: string) => `'${s.replace(/'/g, "''")}'`;

export interface EmbeddedLoan {
  lite: Lite;
  /** Reset and kept for the next loan (or closed when it is not the template's any more, or IDLE_MAX wait). */
  giveBack(): Promise<void>;
  /** Closed, and its `pglite` directory moved to `dir` (which must not exist): a bridge's own from then on. */
  surrender(dir: string): Promise<void>;
}

/** A started embedded database in the template's state, the pool's or a new one. */
export async function lendEmbeddedDatabase(): Promise<EmbeddedLoan> {
  const p = idle.pop() ?? (await startPooled());
  let done = false;
  const once = () => {
    if (done) throw new Error('this embedded database was already given back');
    done = true;
  };
  return {
    lite: p.lite,
    async giveBack() {
      once();
      const clean = await reset(p.lite).catch(() => false);
      if (clean && idle.length < IDLE_MAX) idle.push(p);
      else await discard(p);
    },
    async surrender(dir) {
      once();
      try {
        await p.lite.close();
        renameSync(join(p.home, 'pglite'), dir);
      } finally {
        remove(p.home);
      }
    },
  };
}
