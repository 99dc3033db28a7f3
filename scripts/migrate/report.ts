// The report `npm run migrate` prints after it verified the copy: per table and sequence, per canister
// store, the ledger's tip hash before and after, and the time each step took (text, or JSON with --json).
import type { TableCompare } from './checksums.ts';
import type { Rebound } from './target.ts';

export interface StoreCompare {
  canister: string;
  store: string;
  source: { count: number; checksum: string };
  target: { count: number; checksum: string } | null;
  ok: boolean;
}

export interface MigrationReport {
  ok: boolean;
  from: string;
  to_database: string;
  target_server: string;
  schema_migrations: number;
  canister_set: Rebound | null;
  database: {
    tables: TableCompare[];
    sequences: Array<{ sequence: string; source: string | null; target: string | null; ok: boolean }>;
    /** Tagged rows that do not name the new set after the rebind (decision B113): 0. */
    unbound_rows: number;
  };
  canisters: {
    stores: StoreCompare[];
    ledger_tip: { source: string | null; target: string | null; ok: boolean };
  } | null;
  /** Milliseconds per step. */
  times_ms: Record<string, number>;
  problems: string[];
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));

export function reportText(r: MigrationReport): string {
  const out: string[] = [];
  out.push(
    `migration report: ${r.from} -> ${r.to_database} (PostgreSQL ${r.target_server}, ${r.schema_migrations} schema migrations)`,
  );
  if (r.canister_set) out.push(`canister set: ${r.canister_set.from} -> ${r.canister_set.to}`);
  out.push('', `${pad('table', 32)} ${pad('rows', 8)} ${pad('checksum', 32)} match`);
  for (const t of r.database.tables)
    out.push(
      `${pad(t.table, 32)} ${pad(String(t.rows), 8)} ${pad(t.checksum, 32)} ${t.ok ? 'yes' : `NO (target: ${t.target ? `${t.target.rows} rows, ${t.target.checksum}` : 'missing'})`}`,
    );
  for (const s of r.database.sequences)
    out.push(
      `sequence ${pad(s.sequence, 23)} ${pad(String(s.source), 41)} ${s.ok ? 'yes' : `NO (target: ${s.target})`}`,
    );
  if (r.canisters) {
    out.push('', `${pad('canister store', 40)} ${pad('count', 8)} ${pad('checksum', 64)} match`);
    for (const s of r.canisters.stores)
      out.push(
        `${pad(`${s.canister}.${s.store}`, 40)} ${pad(String(s.source.count), 8)} ${pad(s.source.checksum, 64)} ${s.ok ? 'yes' : `NO (target: ${s.target ? `${s.target.count}, ${s.target.checksum}` : 'missing'})`}`,
      );
    out.push(
      `ledger tip hash: ${r.canisters.ledger_tip.source ?? 'none'} -> ${r.canisters.ledger_tip.target ?? 'none'} ${r.canisters.ledger_tip.ok ? 'yes' : 'NO'}`,
    );
  }
  out.push(
    '',
    `times: ${Object.entries(r.times_ms)
      .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
      .join(', ')}`,
  );
  out.push(
    r.ok ? 'verified: every table, sequence and canister store matches' : `NOT verified: ${r.problems.join('; ')}`,
  );
  return `${out.join('\n')}\n`;
}
