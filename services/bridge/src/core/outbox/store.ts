// The outbox's rows (decisions B20–B23, B103): the queries queue.ts runs on bridge_outbox. Every
// query that claims or finds work names the bridge's canister set, so a row of another set is never
// claimed, run or cancelled here; a claim holds a lease token, and only its holder finishes the row.
import { sql, type Transaction } from 'kysely';
import type { Database, Db } from '../db/schema.ts';

/** Writes a new row in the caller's transaction; false when its op_id exists (the same operation asked again). */
export async function insertRow(
  trx: Transaction<Database>,
  op: { operation: string; opId: string; aggregate: string; payload: string; canisterSet: string; at: Date },
): Promise<boolean> {
  // Rows of one aggregate are numbered in commit order: writers of an aggregate serialise here.
  await sql`select pg_advisory_xact_lock(hashtext(${op.aggregate}))`.execute(trx);
  const row = await trx
    .insertInto('bridge_outbox')
    .values({
      operation: op.operation,
      op_id: op.opId,
      aggregate: op.aggregate,
      payload: op.payload,
      canister_set: op.canisterSet,
      next_attempt_at: op.at,
      created_at: op.at,
      updated_at: op.at,
    })
    .onConflict((oc) => oc.column('op_id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether a row of the aggregate (of this operation, when given) is still pending. */
export async function hasPending(
  db: Db,
  o: { canisterSet: string; aggregate: string; operation?: string },
): Promise<boolean> {
  let q = db
    .selectFrom('bridge_outbox')
    .select('id')
    .where('canister_set', '=', o.canisterSet)
    .where('aggregate', '=', o.aggregate)
    .where('state', '=', 'pending');
  if (o.operation) q = q.where('operation', '=', o.operation);
  return (await q.executeTakeFirst()) !== undefined;
}

/** Marks the claimed row done with its result, in the transaction that applies it; false when `token` no longer holds it. */
export async function markDone(
  trx: Transaction<Database>,
  o: { id: string; token: string; result: string; at: Date },
): Promise<boolean> {
  const mine = await trx
    .updateTable('bridge_outbox')
    .set({ state: 'done', result: o.result, last_error: null, lease_token: null, lease_until: null, updated_at: o.at })
    .where('id', '=', o.id)
    .where('state', '=', 'pending')
    .where('lease_token', '=', o.token)
    .returning('id')
    .executeTakeFirst();
  return mine !== undefined;
}

/**
 * Claims row `id` for one attempt under `token`: pending, not leased by a live runner, due when `due`
 * (the fast path ignores the backoff: a person is waiting), and no earlier pending row of its aggregate.
 */
export function claimRow(
  db: Db,
  o: { id: string; canisterSet: string; token: string; now: number; leaseMs: number; due: boolean },
) {
  const now = new Date(o.now);
  return db
    .updateTable('bridge_outbox as o')
    .set((eb) => ({
      lease_token: o.token,
      lease_until: new Date(o.now + o.leaseMs),
      attempts: eb('o.attempts', '+', 1),
      updated_at: now,
    }))
    .where('o.id', '=', o.id)
    .where('o.canister_set', '=', o.canisterSet)
    .where('o.state', '=', 'pending')
    .where((eb) => eb.or([eb('o.lease_until', 'is', null), eb('o.lease_until', '<', now)]))
    .$if(o.due, (qb) => qb.where('o.next_attempt_at', '<=', now))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('bridge_outbox as e')
            .select('e.id')
            .whereRef('e.aggregate', '=', 'o.aggregate')
            .whereRef('e.canister_set', '=', 'o.canister_set')
            .whereRef('e.id', '<', 'o.id')
            .where('e.state', '=', 'pending'),
        ),
      ),
    )
    .returningAll()
    .executeTakeFirst();
}

/** The ids of up to `limit` pending rows that are due and free, oldest first; a row newer than `leaveFreshMs` and never tried is left out. */
export async function dueIds(
  db: Db,
  o: { canisterSet: string; now: Date; leaveFreshMs: number; limit: number },
): Promise<string[]> {
  const rows = await db
    .selectFrom('bridge_outbox')
    .select('id')
    .where('canister_set', '=', o.canisterSet)
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', o.now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', o.now)]))
    .$if(o.leaveFreshMs > 0, (qb) =>
      qb.where((eb) =>
        eb.or([eb('attempts', '>', 0), eb('created_at', '<=', new Date(o.now.getTime() - o.leaveFreshMs))]),
      ),
    )
    .orderBy('id')
    .limit(o.limit)
    .execute();
  return rows.map((r) => r.id);
}

/** After a failed attempt with tries left: the lease given back, the next attempt at `nextAt`. */
export async function scheduleRetry(
  db: Db,
  o: { id: string; token: string; error: string; nextAt: Date; at: Date },
): Promise<void> {
  await db
    .updateTable('bridge_outbox')
    .set({
      last_error: o.error.slice(0, 1000),
      lease_token: null,
      lease_until: null,
      next_attempt_at: o.nextAt,
      updated_at: o.at,
    })
    .where('id', '=', o.id)
    .where('lease_token', '=', o.token)
    .execute();
}

/** Pending rows of other canister sets, counted by set (decision B103). */
export async function foreignPending(
  db: Db,
  canisterSet: string,
): Promise<Array<{ canister_set: string; pending: number }>> {
  const rows = await db
    .selectFrom('bridge_outbox')
    .select(['canister_set', sql<string>`count(*)::text`.as('pending')])
    .where('state', '=', 'pending')
    .where('canister_set', '!=', canisterSet)
    .groupBy('canister_set')
    .orderBy('canister_set')
    .execute();
  return rows.map((r) => ({ canister_set: r.canister_set, pending: Number(r.pending) }));
}

export interface OutboxFilter {
  state?: 'pending' | 'done' | 'compensated';
  aggregate?: string;
  opId?: string;
  newestFirst?: boolean;
  limit?: number;
}

/** Rows (never their payloads: they hold password hashes and tokens), oldest first unless `newestFirst`. */
export async function listRows(db: Db, filter: OutboxFilter = {}) {
  let q = db
    .selectFrom('bridge_outbox')
    .select([
      'id',
      'operation',
      'op_id',
      'aggregate',
      'state',
      'attempts',
      'last_error',
      'next_attempt_at',
      'created_at',
      'updated_at',
      'canister_set',
    ])
    .orderBy('id', filter.newestFirst ? 'desc' : 'asc');
  if (filter.limit !== undefined) q = q.limit(filter.limit);
  if (filter.state) q = q.where('state', '=', filter.state);
  if (filter.aggregate) q = q.where('aggregate', '=', filter.aggregate);
  if (filter.opId) q = q.where('op_id', '=', filter.opId);
  return (await q.execute()).map((r) => ({ ...r, id: String(r.id) }));
}
