// Decision R13 on the real PostgreSQL server: a bridge opened by the harness on PostgreSQL starts
// from a copy of a migrated database (CREATE DATABASE … TEMPLATE) instead of running every
// migration on a new one, about 0.33 CPU-s of the server's each. The template is made once per
// migration set, by whichever process needs it first: its name carries a hash of the migrations and
// of the code that runs them, so an edited or added migration makes a new one; templates of other
// sets, and ones a killed process left half-built, are dropped then, unless something is using them.
// The other tests that take a database of their own get an empty one and migrate it themselves.
import pg from 'pg';
import { openDatabase } from '../src/core/db/connect.ts';
import { migrationsHash } from './migrations-hash.ts';

const PREFIX = 'bridge_template_';

let made: Promise<string> | undefined;

/** The name of the migrated template on the server at `adminUrl`. */
export function postgresTemplate(adminUrl: string): Promise<string> {
  return (made ??= make(adminUrl).catch((e: unknown) => {
    made = undefined;
    throw e;
  }));
}

/** Forgets the template (another run's clean-up dropped it): the next call makes or finds it again. */
export function forgetPostgresTemplate(): void {
  made = undefined;
}

/** `url` with its database replaced by `name`. */
export const withDatabase = (url: string, name: string) => Object.assign(new URL(url), { pathname: `/${name}` }).href;

/** Whether a half-built template's maker (its pid is in the name) still runs. */
function building(name: string): boolean {
  const pid = /_building_(\d+)$/.exec(name)?.[1];
  if (!pid) return false;
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch {
    return false;
  }
}

async function make(adminUrl: string): Promise<string> {
  const name = `${PREFIX}${migrationsHash()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>(
      `select datname from pg_database where datname like '${PREFIX}%'`,
    );
    if (rows.some((r) => r.datname === name)) return name;
    const scratch = `${name}_building_${process.pid}`;
    await admin.query(`create database ${scratch}`);
    try {
      const database = await openDatabase({ url: withDatabase(adminUrl, scratch) });
      await database.close();
      // The pool's connections may take a moment to end; a database in use cannot be renamed.
      for (let i = 0; ; i++) {
        try {
          await admin.query(`alter database ${scratch} rename to ${name}`);
          break;
        } catch (e) {
          if ((e as { code?: string }).code !== '55006' || i === 100) throw e;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    } catch (e) {
      await admin.query(`drop database if exists ${scratch} with (force)`);
      // 42P04: another process renamed its own in first; that one is as good.
      if ((e as { code?: string }).code !== '42P04') throw e;
    }
    for (const { datname } of rows)
      if (!building(datname)) await admin.query(`drop database if exists ${datname}`).catch(() => undefined);
    return name;
  } finally {
    await admin.end();
  }
}
