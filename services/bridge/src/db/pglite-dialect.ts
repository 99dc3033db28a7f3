// Kysely over PGlite (Postgres compiled to wasm, in-process): the pg-shaped pool Kysely's
// PostgresDialect expects. PGlite is one connection, so a connection is lent to one user at a time
// (a transaction's statements must not interleave with another's).
import type { PGlite } from '@electric-sql/pglite';
import { PostgresDialect } from 'kysely';

type Release = () => void;

export function pgliteDialect(db: PGlite): PostgresDialect {
  let tail: Promise<void> = Promise.resolve();
  const client = {
    async query(sql: string, parameters: unknown[]) {
      const r = await db.query<Record<string, unknown>>(sql, parameters);
      const command = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SELECT';
      return { rows: r.rows, command, rowCount: r.affectedRows ?? r.rows.length };
    },
  };
  const pool = {
    async connect() {
      let release!: Release;
      const previous = tail;
      tail = new Promise<void>((r) => (release = r));
      await previous;
      return { ...client, release };
    },
    async end() {
      await tail;
    },
  };
  return new PostgresDialect({ pool: pool as never });
}
