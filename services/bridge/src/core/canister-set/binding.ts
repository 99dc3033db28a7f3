// The database belongs to one canister set (decision B100), and embedded canisters to one live bridge
// (decision B101). At every start, before the canisters are opened:
//
// - embedded canisters on PostgreSQL take the database's lease: a session advisory lock held on a
//   connection of their own for as long as the bridge runs. PostgreSQL releases it when that session
//   ends, so a bridge that stopped, crashed or was killed leaves nothing to wait for; a host lost
//   without a reset is noticed by the server's TCP keep-alives (set to about 30 s on that session). A
//   second bridge finds the lock taken and is refused, named the holder (host, PID, DATA_DIR, since).
//   PGlite needs no lease: it is DATA_DIR's own database, and DATA_DIR is locked (decision B18).
// - the set is recorded at the first start and compared at every later one: another set is refused,
//   whatever the mode, for as long as the database lives.
// - rows written before the set was recorded (an earlier release's) are given the recorded set.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { sql, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database, Db } from '../db/schema.ts';
import type { CanisterSet } from './identity.ts';
import { CanisterSetRefused } from './refused.ts';

/** The session advisory lock of the bridge whose embedded canisters use the database (decision B101). */
export const EMBEDDED_LEASE_KEY = 0x646f6d20n;
/** Serialises the first record of two bridges starting at once. */
const RECORD_KEY = 0x646f6d21n;
/** After the lease's connection is lost, how often it is taken again. */
export const LEASE_RETRY_MS = 1_000;

export interface Holder {
  instance: string;
  host: string;
  pid: number;
  data_dir: string;
  since: string;
}

interface Log {
  info(o: object, m: string): void;
  warn(o: object, m: string): void;
  error(o: object, m: string): void;
  fatal(o: object, m: string): void;
}

export interface BindOptions {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** PostgreSQL's URL: the lease's own connection. */
  url?: string | undefined;
  set: CanisterSet;
  dataDir: string;
  now(): number;
  log: Log;
  /** The lease was lost for good while running (another bridge holds it now): the canisters must stop. */
  onLeaseLost(err: CanisterSetRefused): void;
  /** Decision B109: fingerprints of the secrets the rows are bound to (core/keys.ts), recorded and compared with the set. */
  keyFingerprints?: Record<string, string>;
}

export interface Binding {
  /** What this start found: `recorded` the first time, `adopted` rows of an earlier release given the set. */
  recorded: boolean;
  adopted: number;
  release(): Promise<void>;
}

const describe = (set: { mode: string; where: string }) =>
  set.mode === 'embedded' ? `embedded canisters in ${set.where}` : `IC canisters on ${set.where}`;

export async function bindCanisterSet(o: BindOptions): Promise<Binding> {
  const holder: Holder = {
    instance: randomUUID(),
    host: hostname(),
    pid: process.pid,
    data_dir: resolve(o.dataDir),
    since: new Date(o.now()).toISOString(),
  };
  const lease = o.set.mode === 'embedded' && o.kind === 'postgres' && o.url ? await Lease.take(o, holder) : undefined;
  try {
    const found = await o.db.transaction().execute((trx) => record(trx, o, lease && holder));
    if (found.recorded)
      o.log.info(
        { event: 'canister_set.recorded', canister_set: o.set.id, mode: o.set.mode, adopted: found.adopted },
        `this database now belongs to the canister set ${o.set.id} (${describe(o.set)}); only that set may use it from now on`,
      );
    else if (found.adopted > 0)
      o.log.warn(
        { event: 'canister_set.adopted', canister_set: o.set.id, adopted: found.adopted },
        'rows written by an earlier release of the bridge were given this canister set',
      );
    return { ...found, release: async () => lease?.release() };
  } catch (e) {
    await lease?.release();
    throw e;
  }
}

/** Rows of each tagged table an earlier release wrote ('' set), unless the set has the same row already. */
const ADOPT: Array<{ table: string; key: string[] }> = [
  { table: 'bridge_events', key: ['source', 'source_id'] },
  { table: 'bridge_outbox', key: [] },
  { table: 'wallet_ledger_blocks', key: ['block_index'] },
  { table: 'wallet_account_blocks', key: ['account', 'block_index'] },
  { table: 'wallet_ledger_cursor', key: ['id'] },
];

async function record(
  trx: Transaction<Database>,
  o: BindOptions,
  holder: Holder | undefined,
): Promise<{ recorded: boolean; adopted: number }> {
  await sql`select pg_advisory_xact_lock(${RECORD_KEY})`.execute(trx);
  const row = await trx
    .selectFrom('bridge_canister_set')
    .select(['set_id', 'mode', 'description', 'recorded_at', 'key_fingerprints'])
    .executeTakeFirst();
  const description = { mode: o.set.mode, where: o.set.where, canisters: o.set.ids };
  if (row && row.set_id !== o.set.id) {
    const theirs = row.description as { mode: string; where: string };
    const fix =
      o.kind === 'pglite'
        ? "put back that set's DATA_DIR/canisters (with its canister-set.json), or start this bridge with a DATA_DIR of its own"
        : "start the bridge with that set's canisters, or point DATABASE_URL at a database of this set's own";
    throw new CanisterSetRefused(
      'another_set',
      `this database belongs to another canister set (${describe(theirs)}, ${row.set_id}, recorded ${new Date(row.recorded_at).toISOString()}) than this bridge's (${describe(o.set)}, ${o.set.id}): ${fix} (decision B100)`,
    );
  }
  const keys = o.keyFingerprints ?? {};
  const recordedKeys = row?.key_fingerprints ?? {};
  const differ = Object.keys(keys).filter((k) => recordedKeys[k] !== undefined && recordedKeys[k] !== keys[k]);
  if (differ.length > 0)
    throw new CanisterSetRefused(
      'other_secrets',
      `this database's rows are bound to other secrets than this bridge's: ${differ.join(' and ')} ${differ.length > 1 ? 'differ' : 'differs'} from the one${differ.length > 1 ? 's' : ''} recorded when it was first used (a member's principal and an email's lookup are derived from them): give every bridge on one database the same secrets (decision B109)`,
    );
  if (!row)
    await trx
      .insertInto('bridge_canister_set')
      .values({
        set_id: o.set.id,
        mode: o.set.mode,
        description: JSON.stringify(description),
        recorded_at: new Date(o.now()),
        holder: holder ? JSON.stringify(holder) : null,
        key_fingerprints: JSON.stringify(keys),
      })
      .execute();
  else if (Object.keys(keys).some((k) => recordedKeys[k] === undefined))
    // A database of an earlier release: the secrets of its first start under this one are its own.
    await trx
      .updateTable('bridge_canister_set')
      .set({ key_fingerprints: JSON.stringify({ ...keys, ...recordedKeys }) })
      .execute();
  else if (holder)
    await trx
      .updateTable('bridge_canister_set')
      .set({ holder: JSON.stringify(holder) })
      .execute();
  let adopted = 0;
  for (const { table, key } of ADOPT) {
    const same = key.map((k) => sql`x.${sql.ref(k)} = t.${sql.ref(k)}`);
    const r = await sql`update ${sql.table(table)} t set canister_set = ${o.set.id} where t.canister_set = ''${
      key.length
        ? sql` and not exists (select 1 from ${sql.table(table)} x where x.canister_set = ${o.set.id} and ${sql.join(same, sql` and `)})`
        : sql``
    }`.execute(trx);
    adopted += Number(r.numAffectedRows ?? 0n);
  }
  await trx
    .updateTable('wallet_ledger_cursor')
    .set({ ledger_id: o.set.ids.ledger })
    .where('canister_set', '=', o.set.id)
    .where('ledger_id', '=', '')
    .execute();
  return { recorded: !row, adopted };
}

/** The advisory lock on a connection of its own, taken again if that connection is lost. */
class Lease {
  #client: pg.Client | undefined;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly o: BindOptions,
    private readonly holder: Holder,
    client: pg.Client,
  ) {
    this.#client = client;
    this.#watch(client);
  }

  static async take(o: BindOptions, holder: Holder): Promise<Lease> {
    const client = await Lease.#tryLock(o.url!);
    if (!client) throw await Lease.#taken(o, 'in_use');
    return new Lease(o, holder, client);
  }

  /** A connection holding the lock, or undefined when another session holds it. */
  static async #tryLock(url: string): Promise<pg.Client | undefined> {
    const client = new pg.Client({
      connectionString: url,
      application_name: 'domdao-bridge canister lease',
      keepAlive: true,
    });
    // Until the lease watches it: an error then is the connect's or the query's own, thrown below.
    client.on('error', () => undefined);
    await client.connect();
    try {
      // The server drops this session (and so the lock) about 30 s after its host is gone, not TCP's hours.
      await client.query('set tcp_keepalives_idle = 10; set tcp_keepalives_interval = 5; set tcp_keepalives_count = 4');
      const { rows } = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1::bigint) as ok', [
        EMBEDDED_LEASE_KEY.toString(),
      ]);
      if (rows[0]?.ok) return client;
    } catch (e) {
      await client.end().catch(() => undefined);
      throw e;
    }
    await client.end().catch(() => undefined);
    return undefined;
  }

  static async #taken(o: BindOptions, reason: 'in_use' | 'lease_lost', self?: Holder): Promise<CanisterSetRefused> {
    const row = await o.db
      .selectFrom('bridge_canister_set')
      .select('holder')
      .executeTakeFirst()
      .catch(() => undefined);
    // A holder row naming this bridge is its own, left from before the loss: the taker did not write one.
    const h = row?.holder as Holder | null | undefined;
    if (h && self && h.instance === self.instance) return Lease.#refusal(reason, 'another bridge');
    return Lease.#refusal(
      reason,
      h ? `the bridge on ${h.host} (PID ${h.pid}, DATA_DIR ${h.data_dir}, since ${h.since})` : 'another bridge',
    );
  }

  static #refusal(reason: 'in_use' | 'lease_lost', who: string): CanisterSetRefused {
    const what =
      reason === 'in_use'
        ? `this database is in use by ${who}, a live bridge with embedded canisters`
        : `this bridge lost its hold on the database's embedded canisters to ${who} while its connection was down, and has stopped its canisters`;
    return new CanisterSetRefused(
      reason,
      `${what}: embedded canisters are one process's state, so only one bridge may run on them; stop the other bridge first, or run several bridges with canisters on an IC network (IC_*; decision B101)`,
    );
  }

  #watch(client: pg.Client): void {
    const lost = (err?: Error) => {
      if (this.#closed || client !== this.#client) return;
      this.#client = undefined;
      this.o.log.error(
        { event: 'canister_set.lease_interrupted', err: err?.message ?? 'connection ended' },
        "the connection holding the embedded canisters' lease was lost; taking the lease again",
      );
      this.#retake();
    };
    client.on('error', lost);
    client.on('end', () => lost());
  }

  #retake(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      void (async () => {
        let client: pg.Client | undefined;
        try {
          client = await Lease.#tryLock(this.o.url!);
        } catch {
          return this.#retake(); // the server is still unreachable: no one else can take it meanwhile from here
        }
        if (this.#closed) {
          await client?.end().catch(() => undefined);
          return;
        }
        if (!client) {
          const err = await Lease.#taken(this.o, 'lease_lost', this.holder);
          this.#closed = true;
          this.o.onLeaseLost(err);
          return;
        }
        this.#client = client;
        this.#watch(client);
        await this.o.db
          .updateTable('bridge_canister_set')
          .set({ holder: JSON.stringify(this.holder) })
          .execute()
          .catch(() => undefined);
        this.o.log.warn(
          { event: 'canister_set.lease_retaken' },
          "the embedded canisters' lease was taken again; no other bridge held it meanwhile",
        );
      })();
    }, LEASE_RETRY_MS).unref();
  }

  async release(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    const client = this.#client;
    if (!client) return;
    this.#client = undefined;
    // The holder row names who holds the lock; a bridge stopping says it does not any more.
    await this.o.db
      .updateTable('bridge_canister_set')
      .set({ holder: null })
      .where(sql<boolean>`holder->>'instance' = ${this.holder.instance}`)
      .execute()
      .catch(() => undefined);
    // Ending the session releases the lock.
    await client.end().catch(() => undefined);
  }
}
