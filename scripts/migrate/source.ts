// The source of `npm run migrate` (decision P22): a stopped `npm start` data directory. Its lock is taken
// for the whole run (a running platform holds it: refused), its embedded database (DATA_DIR/pglite,
// PostgreSQL 18 in PGlite) is opened as the bridge opens it, and its rows are dumped by PGlite's own
// pg_dump (@electric-sql/pglite-tools, decision R36).
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { pgDump } from '@electric-sql/pglite-tools/pg_dump';
import { DirectoryLockedError, lockDirectory, type DirectoryLock } from '@domdao/canisters/embedded';
import { openEmbedded } from '../../services/bridge/src/core/db/embedded.ts';
import { MIGRATION_NAMES } from '../../services/bridge/src/core/db/migrate.ts';
import { Refusal } from './refusal.ts';

/** Tables the target's own migrations fill (the migrator's bookkeeping): not copied, compared by level. */
export const MIGRATOR_TABLES = ['kysely_migration', 'kysely_migration_lock'];

export interface Source {
  dir: string;
  lite: PGlite;
  close(): Promise<void>;
}

/** Locks DATA_DIR and opens its database; every refusal before anything is opened or written. */
export async function openSource(dataDir: string): Promise<Source> {
  const dir = resolve(dataDir);
  if (!existsSync(dir)) throw new Refusal(`--from ${dir} does not exist: give the DATA_DIR of the stopped npm start`);
  const pgdir = join(dir, 'pglite');
  const version = existsSync(join(pgdir, 'PG_VERSION'))
    ? readFileSync(join(pgdir, 'PG_VERSION'), 'utf8').trim()
    : undefined;
  if (version === undefined)
    throw new Refusal(`${dir} holds no embedded database (${pgdir}): it is not the DATA_DIR of an npm start`);
  if (!existsSync(join(dir, 'canisters')))
    throw new Refusal(
      `${dir} holds no embedded canisters (${join(dir, 'canisters')}): it is not the DATA_DIR of an npm start`,
    );
  let lock: DirectoryLock;
  try {
    lock = lockDirectory(dir);
  } catch (e) {
    if (e instanceof DirectoryLockedError)
      throw new Refusal(
        `${dir} is in use by a running platform (PID ${e.pid}): stop npm start first, the migration moves a stopped data directory only`,
      );
    throw e;
  }
  try {
    if (version !== '18')
      throw new Refusal(
        `${pgdir} holds a PostgreSQL ${version} database, not this release's 18: start it once with this release's npm start (which carries it over), stop it, and migrate again`,
      );
    const lite = await openEmbedded(pgdir, {
      // Only a PostgreSQL 17 directory is migrated at open, and that was refused above.
      migrate: () => Promise.reject(new Error('the source database is never migrated by npm run migrate')),
    });
    return {
      dir,
      lite,
      async close() {
        try {
          await lite.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (e) {
    lock.release();
    throw e;
  }
}

/** The migration names the source database has run, in this release's terms: refused unless they are exactly this release's. */
export async function checkSourceLevel(lite: PGlite): Promise<string[]> {
  const table = await lite.query<{ t: string | null }>(`select to_regclass('public.kysely_migration')::text as t`);
  const names = table.rows[0]?.t
    ? (await lite.query<{ name: string }>('select name from kysely_migration order by name')).rows.map((r) => r.name)
    : [];
  const ours = [...MIGRATION_NAMES].sort();
  const unknown = names.filter((n) => !ours.includes(n));
  const missing = ours.filter((n) => !names.includes(n));
  if (unknown.length > 0)
    throw new Refusal(
      `the source database has run migrations this release does not know (${unknown.join(', ')}): it was written by a newer release; migrate with that release`,
    );
  if (missing.length > 0)
    throw new Refusal(
      `the source database is at an older schema level (it has not run ${missing.join(', ')}): start it once with this release's npm start (which migrates it), stop it, and migrate again`,
    );
  return names;
}

/** Every row of the source's tables (not the migrator's), as SQL INSERTs: PGlite's pg_dump, data only. */
export async function dumpRows(lite: PGlite): Promise<string> {
  const file = await pgDump({
    pg: lite,
    args: [
      '--data-only',
      '--no-owner',
      '--no-privileges',
      '--schema=public',
      ...MIGRATOR_TABLES.map((t) => `--exclude-table=public.${t}`),
    ],
  });
  return file.text();
}
