// The target database of `npm run migrate` (decision P22): an empty PostgreSQL database. The schema is
// made by the bridge's own migrations (the same as a bridge's first start on PostgreSQL: pgvector or
// real[] by what the server offers, decision A15), then the source's rows are restored from its dump,
// the canister-set row is rebound (decision B113) and the copy is verified, all in one transaction:
// anything that fails leaves the database as empty as it was found.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { migrate } from '../../services/bridge/src/core/db/migrate.ts';
import type { CanisterSet } from '../../services/bridge/src/core/canister-set/identity.ts';
import { Refusal } from './refusal.ts';

export interface Target {
  url: string;
  /** Every statement runs on this one connection (the pool never has a second), inside `begin`. */
  db: Kysely<unknown>;
  pool: pg.Pool;
  close(): Promise<void>;
}

const redact = (url: string) => {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.href;
  } catch {
    return url;
  }
};

export async function openTarget(url: string): Promise<Target> {
  if (!/^postgres(ql)?:\/\//.test(url))
    throw new Refusal(`--to-database ${redact(url)} is not a PostgreSQL URL (postgres://user@host:port/database)`);
  const pool = new pg.Pool({ connectionString: url, max: 1, idleTimeoutMillis: 0, connectionTimeoutMillis: 10_000 });
  pool.on('error', () => undefined);
  try {
    await pool.query('select 1');
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw new Refusal(
      `the target database ${redact(url)} cannot be reached (${(e as Error).message}): create it and give a URL the migration can connect to`,
    );
  }
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  return {
    url,
    db,
    pool,
    async close() {
      // Kysely ends the pool only if it used it: a refusal before the schema step did not.
      await db.destroy();
      if (!pool.ending) await pool.end();
    },
  };
}

/** Refused unless the target holds no relation of its own (tables, views, sequences) in any schema. */
export async function checkTargetEmpty(t: Target): Promise<void> {
  const { rows } = await t.pool.query<{ n: string; sample: string | null }>(
    `select count(*)::text as n, min(n.nspname || '.' || c.relname) as sample from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p', 'v', 'm', 'S', 'f') and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'`,
  );
  const n = Number(rows[0]!.n);
  if (n > 0)
    throw new Refusal(
      `the target database ${redact(t.url)} is not empty (${n} tables, views or sequences, e.g. ${rows[0]!.sample}): the migration restores into a new, empty database only`,
    );
}

/**
 * The dump's statements the target can run: its header's psql meta-commands and settings the server does
 * not know left out. Only the header (before the first row): a row's text may hold any line.
 */
export async function restorable(t: Target, dump: string): Promise<string> {
  const known = new Set((await t.pool.query<{ name: string }>('select name from pg_settings')).rows.map((r) => r.name));
  const lines = dump.split('\n');
  const body = lines.findIndex((l) => l.startsWith('INSERT INTO '));
  const header = body < 0 ? lines : lines.slice(0, body);
  const kept = header.filter((line) => {
    // pg_dump 18's `\restrict KEY` guards a psql session; this is no psql session.
    if (line.startsWith('\\')) return false;
    const set = /^SET ([a-z_]+) = /.exec(line);
    // A PostgreSQL 18 dump sets transaction_timeout, which an older server does not know.
    return !set || known.has(set[1]!);
  });
  return [...kept, ...(body < 0 ? [] : lines.slice(body))].join('\n');
}

/** Opens the transaction and makes the schema (the migrations, as the bridge runs them). */
export async function makeSchema(t: Target): Promise<void> {
  await t.pool.query('begin');
  await t.pool.query("set local timezone = 'UTC'");
  await migrate(t.db, undefined, true);
}

/** The source's rows into the new tables; vectors into real[] where the server has no pgvector (decision A15). */
export async function restoreRows(t: Target, sqlText: string): Promise<void> {
  const vectorless =
    (
      await t.pool.query<{ t: string }>(
        `select format_type(a.atttypid, a.atttypmod) as t from pg_attribute a where a.attrelid = to_regclass('public.ai_embeddings') and a.attname = 'embedding'`,
      )
    ).rows[0]?.t === 'real[]';
  // The dump writes a vector as its text, '[1,2]': taken as text, then read as an array.
  if (vectorless) await t.pool.query('alter table public.ai_embeddings alter column embedding type text');
  await t.pool.query(sqlText);
  // The dump cleared search_path for its own statements (pg_dump's safety rule); ours name no schema.
  await t.pool.query('reset search_path');
  if (vectorless)
    await t.pool.query(
      `alter table public.ai_embeddings alter column embedding type real[] using translate(embedding, '[]', '{}')::real[]`,
    );
}

export interface Rebound {
  from: string;
  to: string;
  rows: Record<string, number>;
}

/** Tables whose rows name the canister set they were written for (migration 070). */
const TAGGED = [
  'bridge_events',
  'bridge_outbox',
  'wallet_ledger_blocks',
  'wallet_account_blocks',
  'wallet_ledger_cursor',
];

/**
 * Decision B113: the database belonged to the embedded set of DATA_DIR/canisters; its canisters' state
 * now lives in `set` (same events, same ledger blocks), so the row and every tagged row name `set`.
 */
export async function rebindCanisterSet(t: Target, set: CanisterSet): Promise<Rebound> {
  const row = (await t.pool.query<{ set_id: string }>('select set_id from bridge_canister_set')).rows[0];
  const from = row?.set_id ?? '';
  const rows: Record<string, number> = {};
  if (from === set.id) return { from, to: set.id, rows };
  const description = JSON.stringify({ mode: set.mode, where: set.where, canisters: set.ids });
  if (row)
    await t.pool.query(
      'update bridge_canister_set set set_id = $1, mode = $2, description = $3::jsonb, holder = null',
      [set.id, set.mode, description],
    );
  for (const table of TAGGED) {
    const r = await t.pool.query(`update ${table} set canister_set = $1 where canister_set = $2 or canister_set = ''`, [
      set.id,
      from,
    ]);
    rows[table] = r.rowCount ?? 0;
  }
  await t.pool.query('update wallet_ledger_cursor set ledger_id = $1 where canister_set = $2', [
    set.ids.ledger,
    set.id,
  ]);
  return { from, to: set.id, rows };
}

export async function commit(t: Target): Promise<void> {
  await t.pool.query('commit');
}

export async function rollback(t: Target): Promise<void> {
  await t.pool.query('rollback').catch(() => undefined);
}

/** For the report: the target server's version. */
export async function serverVersion(t: Target): Promise<string> {
  return (await t.pool.query<{ server_version: string }>('show server_version')).rows[0]!.server_version;
}
