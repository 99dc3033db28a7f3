// Carrying an embedded database over from PostgreSQL 17 (PGlite 0.3, earlier releases) to the
// PostgreSQL 18 of this one (decision P13). A major version's data files cannot be opened by the next,
// and PGlite has no pg_upgrade: the old directory is opened with the old engine, brought to this
// release's schema by the same migrations, and its rows and sequences are copied as COPY text (which
// both versions read and write alike) into a new directory migrated to the same schema.
import type { Lite } from './pglite-dialect.ts';

export interface CarriedOver {
  tables: number;
  rows: number;
}

/** Tables the migrations themselves fill; the new directory has its own. */
const MIGRATOR_TABLES = ['kysely_migration', 'kysely_migration_lock'];

export async function carryOverFrom17(
  dir: string,
  fresh: Lite,
  migrate: (lite: Lite) => Promise<void>,
): Promise<CarriedOver> {
  const { PGlite: PGlite17 } = await import('pglite-pg17');
  const { vector } = await import('pglite-pg17/vector');
  const old = new PGlite17(dir, { extensions: { vector } }) as unknown as Lite & { waitReady: Promise<void> };
  try {
    await old.waitReady;
    await migrate(old);
    await migrate(fresh);
    return await copyDatabase(old, fresh);
  } finally {
    await old.close();
  }
}

/**
 * Every row of `from`'s tables and every sequence's position into `to`, whose schema is the same
 * (the same migrations ran on both) and whose own rows are replaced. Either all of it lands or none.
 */
export async function copyDatabase(from: Lite, to: Lite): Promise<CarriedOver> {
  const tables = (
    await from.query<{ name: string; cols: string }>(
      `select quote_ident(c.table_name) as name, string_agg(quote_ident(c.column_name), ', ' order by c.ordinal_position) as cols
         from information_schema.columns c
         join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
        where c.table_schema = 'public' and c.is_generated = 'NEVER' and c.table_name <> all($1)
        group by c.table_name order by c.table_name`,
      [MIGRATOR_TABLES],
    )
  ).rows;
  const elsewhere = (
    await from.query<{ name: string }>(
      `select table_schema || '.' || table_name as name from information_schema.tables where table_type = 'BASE TABLE' and table_schema not in ('public', 'pg_catalog', 'information_schema') order by 1`,
    )
  ).rows;
  if (elsewhere.length > 0)
    throw new Error(
      `tables outside the public schema are not carried over: ${elsewhere.map((t) => t.name).join(', ')}`,
    );
  let rows = 0;
  await to.exec('begin');
  try {
    // Rows arrive table by table in name order, so foreign keys and triggers wait (replica role).
    await to.exec('set local session_replication_role = replica');
    if (tables.length > 0) await to.exec(`truncate ${tables.map((t) => t.name).join(', ')}`);
    for (const { name, cols } of tables) {
      const out = await from.query(`copy ${name} (${cols}) to '/dev/blob'`);
      if (out.blob && out.blob.size > 0)
        await to.query(`copy ${name} (${cols}) from '/dev/blob'`, [], { blob: out.blob });
      const [before, after] = [await count(from, name), await count(to, name)];
      if (before !== after) throw new Error(`copying ${name} moved ${after} of its ${before} rows`);
      rows += after;
    }
    // Read from each sequence itself: pg_sequences hides the position of one set with is_called false.
    const sequences = (
      await from.query<{ name: string }>(
        `select quote_ident(sequencename) as name from pg_sequences where schemaname = 'public'`,
      )
    ).rows;
    for (const { name } of sequences) {
      const at = (
        await from.query<{ last_value: string; is_called: boolean }>(`select last_value::text, is_called from ${name}`)
      ).rows[0]!;
      await to.query('select setval($1::regclass, $2::bigint, $3)', [name, at.last_value, at.is_called]);
    }
    await to.exec('commit');
  } catch (e) {
    // The copy's own error is the one worth reporting.
    await to.exec('rollback').catch(() => undefined);
    throw e;
  }
  return { tables: tables.length, rows };
}

async function count(db: Lite, table: string): Promise<number> {
  return Number((await db.query<{ n: string }>(`select count(*)::text as n from ${table}`)).rows[0]!.n);
}
