// The outbox (decisions B20–B23): how the bridge changes its database and a canister
// without a shared transaction. A feature writes an operation row in the same transaction as its own
// change (`enqueue`); after the commit it runs the call at once (`run`, the fast path, so the HTTP
// answer can report the outcome) under the row's op_id, which the canister uses to answer a repeat
// with the first answer (decision U5); the answer is applied to the database in one transaction that
// also marks the row done. A crash at any point leaves a pending row, which the reconciler (at start
// and every OUTBOX_RECONCILE_SECONDS) runs again: the repeat is safe because the call is idempotent.
// What cannot be finished (a refusal, or attempts exhausted) is compensated by the operation's handler.
//
// Rows of one aggregate (e.g. `user:<id>`) run in creation order: a row waits while an earlier row of
// its aggregate is pending, so a later KYC decision or password can never be overtaken by an earlier one.
//
// Each row is written for one canister set (decision B103): its call acts on that set's canisters and
// its answer on that set's rows, so only a bridge of the same set claims, runs or cancels it. A row of
// another set is left as it is and reported at start (`outbox.foreign_operations`). The queries are store.ts's.
import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Database, Db } from '../db/schema.ts';
import { fromJson, toJson } from './json.ts';
import {
  claimRow,
  dueIds,
  foreignPending,
  hasPending,
  insertRow,
  listRows,
  markDone,
  scheduleRetry,
  type OutboxFilter,
} from './store.ts';
import type { FaultHook, FaultPoint, OperationHandler, OutboxOp, RunOutcome } from './types.ts';

export interface OutboxOptions {
  db: Db;
  /** The canister set this bridge serves (decision B103): the only rows it writes, claims, runs and cancels. */
  canisterSet: string;
  now?: () => number;
  log?: {
    info(obj: object, msg: string): void;
    warn(obj: object, msg: string): void;
    error(obj: object, msg: string): void;
  };
  /** How often the reconciler looks for pending rows (ms); 0 turns the timer off. */
  reconcileMs?: number;
  /** A running row's lease: another runner takes it over after this long (a crashed holder). */
  leaseMs?: number;
  /** Attempts before the handler compensates (default 20: about 1.4 hours of backoff). */
  maxAttempts?: number;
  faults?: FaultHook;
}

export const OUTBOX_LEASE_MS = 60_000;
/** Decision B110: how long the reconciler's timer leaves a new row to the request that made it. */
export const OUTBOX_FRESH_MS = 2_000;
export const OUTBOX_MAX_ATTEMPTS = 20;
const BATCH = 50;

/** Backoff after the n-th failed attempt: 5 s doubling, at most 5 minutes. */
export const retryDelayMs = (attempts: number) => Math.min(300_000, 5_000 * 2 ** Math.max(0, attempts - 1));

export class Outbox {
  readonly #db: Db;
  readonly #opts: OutboxOptions;
  readonly #handlers = new Map<string, OperationHandler<never, never, unknown>>();
  #timer: NodeJS.Timeout | undefined;
  #reconcilingFresh = 0;
  #reconciling: Promise<number> | undefined;
  #closed = false;

  constructor(opts: OutboxOptions) {
    this.#db = opts.db;
    this.#opts = opts;
  }

  register<P, R, A = unknown>(operation: string, handler: OperationHandler<P, R, A>): void {
    if (this.#handlers.has(operation)) throw new Error(`outbox operation ${operation} is already registered`);
    this.#handlers.set(operation, handler as unknown as OperationHandler<never, never, unknown>);
  }

  /**
   * Writes the operation in the caller's transaction: it exists iff the caller commits. An op_id that
   * already exists is kept as it is (the same operation asked for again); returns whether it is new.
   */
  async enqueue<P>(
    trx: Transaction<Database>,
    op: { operation: string; opId: string; aggregate: string; payload: P },
  ): Promise<boolean> {
    if (!this.#handlers.has(op.operation)) throw new Error(`outbox operation ${op.operation} has no handler`);
    return insertRow(trx, {
      ...op,
      payload: toJson(op.payload),
      canisterSet: this.#opts.canisterSet,
      at: new Date(this.#now()),
    });
  }

  /** Whether an operation of the aggregate is still pending (e.g. to refuse a conflicting request). */
  pending(aggregate: string, operation?: string): Promise<boolean> {
    return hasPending(this.#db, {
      canisterSet: this.#opts.canisterSet,
      aggregate,
      ...(operation !== undefined && { operation }),
    });
  }

  /**
   * The fast path: runs the operation now if it can be claimed (not leased by another runner, no earlier
   * pending row of its aggregate). A done row answers its recorded result; a row that cannot run now
   * answers pending (the reconciler finishes it).
   */
  async run<R, A = unknown>(opId: string): Promise<RunOutcome<R, A>> {
    const row = await this.#db.selectFrom('bridge_outbox').selectAll().where('op_id', '=', opId).executeTakeFirst();
    if (!row) throw new Error(`no outbox operation ${opId}`);
    if (row.state === 'done') return { state: 'done', result: fromJson(row.result) as R };
    if (row.state === 'compensated') return { state: 'compensated', error: row.last_error ?? 'compensated' };
    return this.#attempt<R, A>(row.id, false);
  }

  /**
   * Gives up on a pending operation that no one is running: its handler compensates, in one transaction
   * that marks the row compensated. False when the row is running elsewhere or already finished.
   */
  async cancel(opId: string, reason: string): Promise<boolean> {
    return this.#db.transaction().execute(async (trx) => {
      const now = new Date(this.#now());
      const row = await trx
        .updateTable('bridge_outbox')
        .set({
          state: 'compensated',
          last_error: reason.slice(0, 1000),
          lease_token: null,
          lease_until: null,
          updated_at: now,
        })
        .where('op_id', '=', opId)
        .where('canister_set', '=', this.#opts.canisterSet)
        .where('state', '=', 'pending')
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .returningAll()
        .executeTakeFirst();
      if (!row) return false;
      const handler = this.#handler(row.operation);
      await handler.compensate?.(trx, this.#op(row), reason);
      return true;
    });
  }

  /**
   * Runs every pending row that is due and free; returns how many finished (done or compensated).
   * `leaveFreshMs` (the timer's passes): a row no one has tried yet, made less than that ago, is left to
   * the request that made it, which runs it right after its commit (decision B110): another instance's
   * pass could otherwise claim it in between, and that request would answer "pending" for work under way.
   */
  reconcile(options: { leaveFreshMs?: number } = {}): Promise<number> {
    const fresh = options.leaveFreshMs ?? 0;
    // An explicit pass does not settle for a timer's pass under way, which leaves the fresh rows.
    if (this.#reconciling && fresh === 0 && this.#reconcilingFresh > 0)
      return this.#reconciling.catch(() => 0).then(() => this.reconcile(options));
    this.#reconcilingFresh = this.#reconciling ? this.#reconcilingFresh : fresh;
    this.#reconciling ??= (async () => {
      let finished = 0;
      try {
        for (;;) {
          if (this.#closed) break;
          const now = new Date(this.#now());
          const due = await dueIds(this.#db, {
            canisterSet: this.#opts.canisterSet,
            now,
            leaveFreshMs: fresh,
            limit: BATCH,
          });
          let progressed = 0;
          for (const id of due) {
            if (this.#closed) break;
            const out = await this.#attempt(id, true).catch((err: unknown) => {
              this.#opts.log?.error(
                { event: 'outbox.reconcile_failed', id, err: err instanceof Error ? err.message : String(err) },
                'an outbox operation could not be reconciled',
              );
              return { state: 'pending' as const };
            });
            if (out.state !== 'pending') progressed++;
          }
          finished += progressed;
          // Another pass only when this one finished something that may have unblocked a later row.
          if (due.length < BATCH && progressed === 0) break;
          if (progressed === 0) break;
        }
      } finally {
        this.#reconciling = undefined;
      }
      return finished;
    })();
    return this.#reconciling;
  }

  /** Reconciles now (what a crash left) and then every `reconcileMs`. */
  start(): void {
    void this.reportForeign().catch(() => undefined);
    const tick = () =>
      void this.reconcile({ leaveFreshMs: OUTBOX_FRESH_MS }).catch((err: unknown) =>
        this.#opts.log?.error(
          { event: 'outbox.reconcile_failed', err: err instanceof Error ? err.message : String(err) },
          'outbox reconciliation failed',
        ),
      );
    tick();
    const every = this.#opts.reconcileMs ?? 30_000;
    if (every > 0) {
      this.#timer = setInterval(tick, every);
      this.#timer.unref();
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#reconciling?.catch(() => undefined);
  }

  /**
   * Pending rows written for another canister set (decision B103): never run here, so an operator is
   * told at start. They come from a database shared by two sets before sets were recorded, or from rows
   * copied in; delete them, or run them with a bridge of their set on a copy of the database.
   */
  async reportForeign(): Promise<Array<{ canister_set: string; pending: number }>> {
    const foreign = await foreignPending(this.#db, this.#opts.canisterSet);
    if (foreign.length)
      this.#opts.log?.warn(
        { event: 'outbox.foreign_operations', canister_set: this.#opts.canisterSet, foreign },
        'pending outbox operations written for another canister set are not run by this bridge; see GET /api/admin/outbox (their canister_set) and docs/operations/bridge.md',
      );
    return foreign;
  }

  /** Rows (never their payloads: they hold password hashes and tokens), oldest first unless `newestFirst`. */
  list(filter: OutboxFilter = {}) {
    return listRows(this.#db, filter);
  }

  #now(): number {
    return (this.#opts.now ?? Date.now)();
  }

  #handler(operation: string): OperationHandler<unknown, unknown, unknown> {
    const h = this.#handlers.get(operation);
    if (!h) throw new Error(`outbox operation ${operation} has no handler`);
    return h;
  }

  #op(row: {
    id: string;
    operation: string;
    op_id: string;
    aggregate: string;
    payload: unknown;
    attempts: number;
  }): OutboxOp<unknown> {
    return {
      id: String(row.id),
      operation: row.operation,
      opId: row.op_id,
      aggregate: row.aggregate,
      payload: fromJson(row.payload),
      attempts: row.attempts,
    };
  }

  async #fault(point: FaultPoint, op: OutboxOp<unknown>): Promise<void> {
    await this.#opts.faults?.(point, { operation: op.operation, opId: op.opId });
  }

  async #attempt<R, A>(id: string, reconciling: boolean): Promise<RunOutcome<R, A>> {
    const now = this.#now();
    const token = randomUUID();
    const leaseMs = this.#opts.leaseMs ?? OUTBOX_LEASE_MS;
    const claimed = await claimRow(this.#db, {
      id,
      canisterSet: this.#opts.canisterSet,
      token,
      now,
      leaseMs,
      due: reconciling,
    });
    if (!claimed) {
      const row = await this.#db
        .selectFrom('bridge_outbox')
        .select(['state', 'result', 'last_error'])
        .where('id', '=', id)
        .executeTakeFirst();
      if (row?.state === 'done') return { state: 'done', result: fromJson(row.result) as R };
      if (row?.state === 'compensated') return { state: 'compensated', error: row.last_error ?? 'compensated' };
      return { state: 'pending' };
    }
    const op = this.#op(claimed);
    const handler = this.#handler(op.operation);
    await this.#fault('before-call', op);
    let result: unknown;
    try {
      result = await handler.call(op);
      await this.#fault('lost-reply', op);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return this.#failed(op, token, message);
    }
    await this.#fault('after-call', op);
    const applied = await this.#db.transaction().execute(async (trx) => {
      // Our lease ran out and another runner finished it: its apply stands, ours must not repeat it.
      if (!(await markDone(trx, { id: op.id, token, result: toJson(result), at: new Date(this.#now()) }))) return false;
      await handler.apply(trx, op, result);
      return true;
    });
    if (!applied) return this.run<R, A>(op.opId);
    this.#opts.log?.info(
      { event: 'outbox.done', operation: op.operation, op_id: op.opId, attempts: op.attempts, reconciled: reconciling },
      'outbox operation done',
    );
    await this.#fault('after-apply', op);
    let after: unknown;
    if (handler.after) {
      after = await handler.after(op, result).catch((err: unknown) => {
        this.#opts.log?.warn(
          {
            event: 'outbox.after_failed',
            operation: op.operation,
            op_id: op.opId,
            err: err instanceof Error ? err.message : String(err),
          },
          'a follow-up of an outbox operation failed',
        );
        return undefined;
      });
    }
    return { state: 'done', result: result as R, ...(after !== undefined && { after: after as A }) };
  }

  async #failed<R, A>(op: OutboxOp<unknown>, token: string, message: string): Promise<RunOutcome<R, A>> {
    const handler = this.#handler(op.operation);
    const max = handler.maxAttempts ?? this.#opts.maxAttempts ?? OUTBOX_MAX_ATTEMPTS;
    if (op.attempts >= max) {
      const reason = `gave up after ${op.attempts} attempts: ${message}`;
      const done = await this.#db.transaction().execute(async (trx) => {
        const mine = await trx
          .updateTable('bridge_outbox')
          .set({
            state: 'compensated',
            last_error: reason.slice(0, 1000),
            lease_token: null,
            lease_until: null,
            updated_at: new Date(this.#now()),
          })
          .where('id', '=', op.id)
          .where('lease_token', '=', token)
          .returning('id')
          .executeTakeFirst();
        if (mine) await handler.compensate?.(trx, op, reason);
        return mine !== undefined;
      });
      this.#opts.log?.error(
        { event: 'outbox.gave_up', operation: op.operation, op_id: op.opId, attempts: op.attempts, err: message },
        'an outbox operation was compensated after its last attempt',
      );
      return done ? { state: 'compensated', error: reason } : { state: 'pending', error: message };
    }
    const at = this.#now();
    await scheduleRetry(this.#db, {
      id: op.id,
      token,
      error: message,
      nextAt: new Date(at + retryDelayMs(op.attempts)),
      at: new Date(at),
    });
    this.#opts.log?.warn(
      { event: 'outbox.retry', operation: op.operation, op_id: op.opId, attempts: op.attempts, err: message },
      'an outbox operation failed; it is retried',
    );
    return { state: 'pending', error: message };
  }
}
