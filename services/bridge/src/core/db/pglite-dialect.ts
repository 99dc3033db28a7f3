// Kysely over PGlite (Postgres compiled to wasm, in-process): the pg-shaped pool Kysely's
// PostgresDialect expects. PGlite is one connection, so a connection is lent to one user at a time
// (a transaction's statements must not interleave with another's).
import { PostgresDialect } from 'kysely';

type Release = () => void;

/** What this dialect and the carry-over use of a PGlite instance (PostgreSQL 17's PGlite 0.3 and 18's alike). */
export interface Lite {
  query<T>(
    sql: string,
    parameters?: unknown[],
    options?: { blob?: Blob },
  ): Promise<{ rows: T[]; affectedRows?: number; blob?: Blob }>;
  exec(sql: string): Promise<unknown>;
  close(): Promise<void>;
}

export function pgliteDialect(db: Lite): PostgresDialect {
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
