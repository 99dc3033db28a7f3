// What `npm run migrate` compares (decision P22): per table the row count and a checksum of its rows,
// per sequence its last value, computed the same way on the source (PGlite) and on the target inside the
// restore's transaction. A row is its JSON form (UTC times, sorted keys), so the two servers' text
// forms agree; rows are ordered bytewise ("C"), not by either server's collation.
import { MIGRATOR_TABLES } from './source.ts';

/** Runs one query and returns its rows (PGlite's `query` or pg's `pool.query`). */
export type Query = <R>(text: string) => Promise<R[]>;

/**
 * Columns rebound to the deployed canister set (decision B113) are left out of the row checksum and
 * checked on their own (every row names the new set).
 */
export const REBOUND_COLUMNS: Record<string, string[]> = {
  bridge_canister_set: ['set_id', 'mode', 'description', 'holder'],
  bridge_events: ['canister_set'],
  bridge_outbox: ['canister_set'],
  wallet_ledger_blocks: ['canister_set'],
  wallet_account_blocks: ['canister_set'],
  wallet_ledger_cursor: ['canister_set', 'ledger_id'],
};

export interface TableSum {
  rows: number;
  checksum: string;
}

export interface DatabaseSums {
  tables: Record<string, TableSum>;
  sequences: Record<string, string | null>;
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function columns(q: Query, table: string): Promise<string[]> {
  const rows = await q<{ c: string }>(
    `select a.attname as c from pg_attribute a where a.attrelid = 'public.${ident(table)}'::regclass and a.attnum > 0 and not a.attisdropped order by a.attname`,
  );
  return rows.map((r) => r.c);
}

export async function databaseSums(q: Query): Promise<DatabaseSums> {
  await q("set timezone = 'UTC'");
  const names = (
    await q<{ t: string }>(
      `select tablename as t from pg_tables where schemaname = 'public' order by tablename collate "C"`,
    )
  )
    .map((r) => r.t)
    .filter((t) => !MIGRATOR_TABLES.includes(t));
  const tables: Record<string, TableSum> = {};
  for (const table of names) {
    const cols = await columns(q, table);
    const excluded = REBOUND_COLUMNS[table] ?? [];
    // A vector (PGlite's pgvector) and a real[] (a server without it, decision A15) as one text form.
    const parts = cols
      .filter((c) => !excluded.includes(c))
      .map((c) =>
        table === 'ai_embeddings' && c === 'embedding'
          ? `'${c}', translate(t.${ident(c)}::text, '[]', '{}')`
          : `'${c.replace(/'/g, "''")}', t.${ident(c)}`,
      );
    // jsonb_build_object takes at most 100 arguments: the row is built from pieces of 40 columns.
    const pieces: string[] = [];
    for (let i = 0; i < parts.length; i += 40) pieces.push(`jsonb_build_object(${parts.slice(i, i + 40).join(', ')})`);
    const row = pieces.length ? pieces.join(' || ') : `'{}'::jsonb`;
    const [r] = await q<{ n: string; sum: string }>(
      `select count(*)::text as n, md5(coalesce(string_agg(r, E'\\n' order by r collate "C"), '')) as sum from (select (${row})::text as r from public.${ident(table)} t) s`,
    );
    tables[table] = { rows: Number(r!.n), checksum: r!.sum };
  }
  const sequences: Record<string, string | null> = {};
  for (const s of await q<{ name: string; last: string | null }>(
    `select sequencename as name, last_value::text as last from pg_sequences where schemaname = 'public' order by sequencename collate "C"`,
  ))
    sequences[s.name] = s.last;
  return { tables, sequences };
}

export interface TableCompare extends TableSum {
  table: string;
  target: TableSum | null;
  ok: boolean;
}

export function compareDatabases(
  source: DatabaseSums,
  target: DatabaseSums,
): {
  tables: TableCompare[];
  sequences: Array<{ sequence: string; source: string | null; target: string | null; ok: boolean }>;
} {
  const names = [...new Set([...Object.keys(source.tables), ...Object.keys(target.tables)])].sort();
  const tables = names.map((table) => {
    const s = source.tables[table] ?? { rows: 0, checksum: 'missing' };
    const t = target.tables[table] ?? null;
    return { table, ...s, target: t, ok: t !== null && s.rows === t.rows && s.checksum === t.checksum };
  });
  const seqNames = [...new Set([...Object.keys(source.sequences), ...Object.keys(target.sequences)])].sort();
  const sequences = seqNames.map((sequence) => {
    const s = source.sequences[sequence] ?? null;
    const t = target.sequences[sequence] ?? null;
    return {
      sequence,
      source: s,
      target: t,
      ok: s === t && sequence in source.sequences && sequence in target.sequences,
    };
  });
  return { tables, sequences };
}
