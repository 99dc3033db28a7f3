// Attempt limits in the database (decisions B6, B30, B33, B52): login guesses, registrations and
// the emails the bridge sends on request. An attempt is RESERVED before the work it guards (the
// password check, the email): one atomic statement per key (an upsert in PostgreSQL/PGlite)
// increments the key's count in a fixed window and returns it, so parallel requests
// can never all pass a check-then-act gap. Keys are reserved in order and the first one over its limit
// stops the rest (its predecessors are given back), so a refused attempt never counts against the
// wider keys: an attacker blocked on (account, address) cannot push the account's global ceiling.
import { sql } from 'kysely';
import type { Db } from '../db/schema.ts';
import { SessionStoreUnavailable } from './session-store.ts';

import { HttpError } from '../http/errors.ts';

export const HOUR_MS = 3_600_000;

export const tooMany = (seconds: number) =>
  new HttpError(429, 'TOO_MANY_ATTEMPTS', `too many requests; try again in ${seconds} seconds`, {
    'retry-after': String(seconds),
  });

export interface Limit {
  key: string;
  limit: number;
  windowMs: number;
}

export interface Throttle {
  /** Reserves one attempt on every key, in order; seconds to wait when one is over its limit (nothing then stays reserved but that key's own count), else 0. */
  reserve(limits: Limit[]): Promise<number>;
  /** Gives a reserved attempt back (it was not a failure). */
  release(keys: string[]): Promise<void>;
  clear(key: string): Promise<void>;
}

interface Counter {
  /** The count after this increment, and when the window started (ms). */
  incr(key: string, windowMs: number, now: number): Promise<{ count: number; startedAt: number }>;
  decr(key: string): Promise<void>;
  del(key: string): Promise<void>;
}

// A database outage answers 503, never an unlimited login.
async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw new SessionStoreUnavailable(e instanceof Error ? e.message : String(e), { cause: e });
  }
}

function throttleOver(c: Counter, now: () => number): Throttle {
  const counter: Counter = {
    incr: (...a) => guard(() => c.incr(...a)),
    decr: (k) => guard(() => c.decr(k)),
    del: (k) => guard(() => c.del(k)),
  };
  return {
    async reserve(limits) {
      const taken: string[] = [];
      for (const l of limits) {
        const t = now();
        const { count, startedAt } = await counter.incr(l.key, l.windowMs, t);
        if (count > l.limit) {
          for (const k of taken) await counter.decr(k);
          return Math.max(1, Math.ceil((startedAt + l.windowMs - t) / 1000));
        }
        taken.push(l.key);
      }
      return 0;
    },
    async release(keys) {
      for (const k of keys) await counter.decr(k);
    },
    clear: (key) => counter.del(key),
  };
}

export function databaseThrottle(db: Db, now: () => number = Date.now): Throttle {
  return throttleOver(
    {
      async incr(key, windowMs, t) {
        const at = new Date(t);
        const windowStart = new Date(t - windowMs);
        // One statement: the row lock of ON CONFLICT serialises concurrent attempts on one key.
        const row = await db
          .insertInto('login_failures')
          .values({ key, failures: 1, window_started_at: at })
          .onConflict((oc) =>
            oc.column('key').doUpdateSet({
              // A window that has ended starts again at 1.
              failures: sql`case when login_failures.window_started_at <= ${windowStart} then 1 else login_failures.failures + 1 end`,
              window_started_at: sql`case when login_failures.window_started_at <= ${windowStart} then ${at} else login_failures.window_started_at end`,
            }),
          )
          .returning(['failures', 'window_started_at'])
          .executeTakeFirstOrThrow();
        return { count: row.failures, startedAt: new Date(row.window_started_at).getTime() };
      },
      async decr(key) {
        await db
          .updateTable('login_failures')
          .set({ failures: sql`greatest(failures - 1, 0)` })
          .where('key', '=', key)
          .execute();
      },
      async del(key) {
        await db.deleteFrom('login_failures').where('key', '=', key).execute();
      },
    },
    now,
  );
}
