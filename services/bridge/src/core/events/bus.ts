// The in-bridge event seam (decisions V1–V4): a typed, durable publish/subscribe over one
// table. Every event gets a position (seq) in one order; each named subscriber has a cursor row.
// Delivery: a subscriber's handler runs inside a transaction that holds its cursor row (FOR UPDATE
// SKIP LOCKED) and advances it, so among any number of bridge instances one processes each event,
// in seq order, and database work done through the handler's `trx` happens exactly once. Effects
// outside the database are at-least-once (a crash after them and before the commit repeats them):
// key them on `event.id`.
import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import { isEmbeddedDatabaseFailed } from '../db/errors.ts';
import type { Database, Db } from '../db/schema.ts';

import type { GovernanceEventMap } from './governance-events.ts';
import type { MemberEventMap } from './member-events.ts';
import type { FundsEventMap } from './funds-events.ts';

/** Every event type the bridge publishes, by name, with its payload. Features add theirs here. */
export type EventMap = GovernanceEventMap & MemberEventMap & FundsEventMap;
export type EventType = keyof EventMap;

export interface BridgeEvent<T extends EventType = EventType> {
  /** Position in the log: strictly increasing, a decimal string (bigint). */
  seq: string;
  /** Stable identity for idempotent side effects: `<source>:<source_id>`, e.g. `governance:42`. */
  id: string;
  type: T;
  data: EventMap[T];
  source: string;
  occurredAt: Date;
}

export type EventHandler<T extends EventType> = (event: BridgeEvent<T>, trx: Transaction<Database>) => Promise<void>;

export interface PublishOptions {
  /** Who assigned source_id; `bridge` by default. */
  source?: string;
  /** Unique within source: a second publish with the same pair is ignored (returns false). */
  sourceId?: string;
  occurredAt?: Date;
  /** Publish inside the caller's transaction (an outbox): the event exists iff the caller commits. */
  trx?: Transaction<Database>;
}

export interface SubscriberStatus {
  subscriber: string;
  last_seq: string;
  failures: number;
  last_error: string | null;
}

// Publishers serialise on this transaction-scoped advisory lock, so seq order is commit order and a
// subscriber that has read up to seq N can never later see a smaller seq commit (decision V2).
const PUBLISH_LOCK = 0x646f6d10n;
const BATCH = 100;

interface Subscription {
  name: string;
  types: ReadonlySet<string> | undefined;
  handler: EventHandler<EventType>;
  retryAt: number;
}

export interface EventLogOptions {
  db: Db;
  /**
   * The canister set this bridge serves (decision V40): every event is written for it, and only its
   * events are delivered, tailed and followed from (a database holds one set's, decision B100).
   */
  canisterSet: string;
  log?: { warn(obj: object, msg: string): void };
  now?: () => number;
  /** A failed handler is retried after this many ms (doubling, at most 5 minutes). */
  retryBaseMs?: number;
}

export class EventLog {
  readonly #db: Db;
  readonly #subs = new Map<string, Subscription>();
  readonly #opts: EventLogOptions;
  #draining: Promise<void> | undefined;
  #again = false;
  #closed = false;
  readonly #published = new Set<() => void>();

  constructor(opts: EventLogOptions) {
    this.#db = opts.db;
    this.#opts = opts;
  }

  /** The canister set whose events this log holds (decision V40); the followers' cursors are per set. */
  get canisterSet(): string {
    return this.#opts.canisterSet;
  }

  async publish<T extends EventType>(type: T, data: EventMap[T], opts: PublishOptions = {}): Promise<boolean> {
    const write = async (trx: Transaction<Database>) => {
      await sql`select pg_advisory_xact_lock(${PUBLISH_LOCK})`.execute(trx);
      const row = await trx
        .insertInto('bridge_events')
        .values({
          type,
          data: JSON.stringify(data),
          source: opts.source ?? 'bridge',
          source_id: opts.sourceId ?? randomUUID(),
          occurred_at: opts.occurredAt ?? new Date(this.#now()),
          canister_set: this.#opts.canisterSet,
        })
        .onConflict((oc) => oc.columns(['canister_set', 'source', 'source_id']).doNothing())
        .returning('seq')
        .executeTakeFirst();
      return row !== undefined;
    };
    const inserted = opts.trx ? await write(opts.trx) : await this.#db.transaction().execute(write);
    if (inserted && !opts.trx) this.kick();
    // In a caller's transaction the event is not committed yet; readers find it at their next poll.
    if (inserted && !opts.trx) for (const l of this.#published) l();
    return inserted;
  }

  /**
   * A durable subscriber: `name` identifies its cursor across restarts and instances (pick a stable,
   * feature-prefixed name such as `inbox:digest`). A new subscriber starts at the beginning of the log.
   */
  subscribe<T extends EventType>(name: string, types: readonly T[] | '*', handler: EventHandler<T>): void {
    if (this.#subs.has(name)) throw new Error(`event subscriber ${name} is already registered`);
    this.#subs.set(name, {
      name,
      types: types === '*' ? undefined : new Set(types),
      handler: handler as unknown as EventHandler<EventType>,
      retryAt: 0,
    });
    this.kick();
  }

  /** Runs every subscriber up to the end of the log (what is committed now). */
  drain(): Promise<void> {
    if (this.#draining) {
      this.#again = true;
      return this.#draining;
    }
    this.#draining = (async () => {
      // Yield first: with nothing to do the body would otherwise finish (and clear #draining) before
      // this promise is assigned, leaving a settled promise that later drains would return.
      await Promise.resolve();
      try {
        do {
          this.#again = false;
          for (const sub of this.#subs.values()) {
            if (this.#closed) break;
            try {
              await this.#run(sub);
            } catch (err) {
              // The database itself failed (an outage: not even the handler's failure could be
              // recorded). Nothing moved; the next kick (every follower pass) tries again.
              // A failed embedded database was logged once (database.sync_failed, decision P16).
              if (!isEmbeddedDatabaseFailed(err))
                this.#opts.log?.warn(
                  {
                    event: 'events.delivery_unavailable',
                    subscriber: sub.name,
                    err: err instanceof Error ? err.message : String(err),
                  },
                  'event delivery paused: the database is unavailable; retried on the next pass',
                );
            }
          }
        } while (this.#again && !this.#closed);
      } finally {
        this.#draining = undefined;
      }
    })();
    return this.#draining;
  }

  /**
   * Delivers what is committed now and waits for it, at most `ms`: a flow that published in its
   * transaction can answer after its followers (the member's emails) ran, without waiting on an outage.
   */
  async settle(ms = 5_000): Promise<void> {
    if (this.#closed) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.drain().catch(() => undefined),
      new Promise<void>((r) => (timer = setTimeout(r, ms).unref())),
    ]);
    clearTimeout(timer);
  }

  kick(): void {
    if (!this.#closed)
      void this.drain().catch((err: unknown) =>
        this.#opts.log?.warn(
          { event: 'events.drain_failed', err: String(err) },
          'event delivery failed; it is retried',
        ),
      );
  }

  /**
   * Readers that follow the log without a cursor of their own (the live stream, decision V32): the
   * events of `types` after `afterSeq`, oldest first, at most `limit`. Seq order is commit order (V2),
   * so a reader that remembers the last seq it saw misses nothing.
   */
  async tail(
    afterSeq: string,
    types: readonly EventType[],
    limit: number,
  ): Promise<Array<Pick<BridgeEvent, 'seq' | 'type' | 'data'>>> {
    if (types.length === 0) return [];
    const rows = await this.#db
      .selectFrom('bridge_events')
      .select(['seq', 'type', 'data'])
      .where('seq', '>', afterSeq)
      .where('canister_set', '=', this.#opts.canisterSet)
      .where('type', 'in', types)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ seq: String(r.seq), type: r.type as EventType, data: r.data as EventMap[EventType] }));
  }

  /** The seq of the newest event ('0' for an empty log). */
  async lastSeq(): Promise<string> {
    const row = await this.#db
      .selectFrom('bridge_events')
      .select(sql<string>`coalesce(max(seq), 0)`.as('seq'))
      .executeTakeFirst();
    return String(row?.seq ?? '0');
  }

  /** Told after this instance published an event (readers wake at once instead of at their next poll). */
  onPublish(listener: () => void): () => void {
    this.#published.add(listener);
    return () => this.#published.delete(listener);
  }

  async status(): Promise<SubscriberStatus[]> {
    return (
      await this.#db
        .selectFrom('event_cursors')
        .select(['subscriber', 'last_seq', 'failures', 'last_error'])
        .orderBy('subscriber')
        .execute()
    ).map((r) => ({ ...r, last_seq: String(r.last_seq) }));
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#draining?.catch(() => undefined);
  }

  #now(): number {
    return (this.#opts.now ?? Date.now)();
  }

  async #run(sub: Subscription): Promise<void> {
    if (sub.retryAt > this.#now()) return;
    await this.#db
      .insertInto('event_cursors')
      .values({ subscriber: sub.name })
      .onConflict((oc) => oc.column('subscriber').doNothing())
      .execute();
    for (;;) {
      if (this.#closed) return;
      let outcome: 'more' | 'done' | 'busy';
      try {
        outcome = await this.#db.transaction().execute(async (trx) => {
          const cursor = await trx
            .selectFrom('event_cursors')
            .select('last_seq')
            .where('subscriber', '=', sub.name)
            .forUpdate()
            .skipLocked()
            .executeTakeFirst();
          if (!cursor) return 'busy';
          const rows = await trx
            .selectFrom('bridge_events')
            .selectAll()
            .where('seq', '>', String(cursor.last_seq))
            .where('canister_set', '=', this.#opts.canisterSet)
            .orderBy('seq')
            .limit(BATCH)
            .execute();
          if (rows.length === 0) return 'done';
          const row = rows.find((r) => !sub.types || sub.types.has(r.type));
          // Nothing for this subscriber in the batch: step over it; otherwise deliver one event.
          const through = row ?? rows[rows.length - 1]!;
          if (row) {
            await sub.handler(
              {
                seq: String(row.seq),
                id: `${row.source}:${row.source_id}`,
                type: row.type as EventType,
                data: row.data as EventMap[EventType],
                source: row.source,
                occurredAt: new Date(row.occurred_at),
              },
              trx,
            );
          }
          await trx
            .updateTable('event_cursors')
            .set({ last_seq: String(through.seq), failures: 0, last_error: null, updated_at: new Date(this.#now()) })
            .where('subscriber', '=', sub.name)
            .execute();
          return 'more';
        });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const row = await this.#db
          .updateTable('event_cursors')
          .set((eb) => ({
            failures: eb('failures', '+', 1),
            last_error: message.slice(0, 1000),
            updated_at: new Date(this.#now()),
          }))
          .where('subscriber', '=', sub.name)
          .returning('failures')
          .executeTakeFirst();
        const failures = row?.failures ?? 1;
        sub.retryAt =
          this.#now() + Math.min(300_000, (this.#opts.retryBaseMs ?? 1000) * 2 ** Math.min(failures - 1, 16));
        this.#opts.log?.warn(
          { event: 'events.handler_failed', subscriber: sub.name, failures, err: message },
          'an event handler failed; the event is retried',
        );
        return;
      }
      if (outcome !== 'more') return;
    }
  }
}
