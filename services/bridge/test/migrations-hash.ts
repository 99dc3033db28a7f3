// Decisions R13, R28: what a migrated test template (PostgreSQL's, PGlite's) is made from: the
// migration files (names and content) and the code that lists and runs them (core/db/migrate.ts). A
// template's name carries this hash, so an edited or added migration makes a new one.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The bridge's core/db directory (its migrations/ and migrate.ts). */
export const DB_DIR = new URL('../src/core/db/', import.meta.url).pathname;

/** 16 hex digits of SHA-256 over the migrations under `db` (a copy in a test) and its migrate.ts. */
export function migrationsHash(db = DB_DIR): string {
  const h = createHash('sha256');
  for (const file of readdirSync(join(db, 'migrations')).sort())
    h.update(`${file}\0`).update(readFileSync(join(db, 'migrations', file)));
  h.update(readFileSync(join(db, 'migrate.ts')));
  return h.digest('hex').slice(0, 16);
}
