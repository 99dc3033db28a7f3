// Brute-force protection on login (decision B6): failures are counted per account (blind index,
// whether or not the account exists) and per client address in a fixed window, in the database so
// every bridge instance sees them. Past LOGIN_MAX_FAILURES (×10 per address) login answers 429
// with Retry-After until the window ends; a success clears the account's count.
import { sql } from 'kysely';
import type { Db } from '../db/index.ts';

export interface Throttle {
  /** Seconds to wait when any of the keys is over its limit, else 0. */
  blockedFor(keys: Array<{ key: string; limit: number }>): Promise<number>;
  fail(keys: string[]): Promise<void>;
  clear(key: string): Promise<void>;
}

export function loginThrottle(db: Db, windowMs: number, now: () => number = Date.now): Throttle {
  return {
    async blockedFor(keys) {
      const rows = await db.selectFrom('login_failures').selectAll().where('key', 'in', keys.map((k) => k.key)).execute();
      let wait = 0;
      for (const r of rows) {
        const limit = keys.find((k) => k.key === r.key)!.limit;
        const ends = r.window_started_at.getTime() + windowMs;
        if (ends > now() && r.failures >= limit) wait = Math.max(wait, Math.ceil((ends - now()) / 1000));
      }
      return wait;
    },
    async fail(keys) {
      const t = new Date(now());
      const windowStart = new Date(now() - windowMs);
      for (const key of keys) {
        await db
          .insertInto('login_failures')
          .values({ key, failures: 1, window_started_at: t })
          .onConflict((oc) =>
            oc.column('key').doUpdateSet({
              // A window that has ended starts again at 1.
              failures: sql`case when login_failures.window_started_at <= ${windowStart} then 1 else login_failures.failures + 1 end`,
              window_started_at: sql`case when login_failures.window_started_at <= ${windowStart} then ${t} else login_failures.window_started_at end`,
            }),
          )
          .execute();
      }
    },
    async clear(key) {
      await db.deleteFrom('login_failures').where('key', '=', key).execute();
    },
  };
}
