// Where sessions live (decision B1): the database (default; PGlite or PostgreSQL) or Redis. Only the
// SHA-256 of a session id is stored. Any failure of the store surfaces as SessionStoreUnavailable,
// which the service answers with 503: an outage never becomes a login bypass.
import type { Redis } from 'ioredis';
import { CompiledQuery } from 'kysely';
import type pg from 'pg';
import type { Db } from '../db/schema.ts';

export interface SessionRecord {
  user_id: string;
  /** Sealed JSON { email, principal }. */
  data: string;
  roles: string[];
  created_at: number;
  last_seen_at: number;
  expires_at: number;
}

export interface SessionStore {
  create(idHash: Buffer, record: SessionRecord, ttlMs: number): Promise<void>;
  get(idHash: Buffer): Promise<SessionRecord | undefined>;
  touch(idHash: Buffer, record: SessionRecord, ttlMs: number): Promise<void>;
  delete(idHash: Buffer): Promise<void>;
  /** Every session of a user (after a password change or a ban); returns how many ended. */
  deleteForUser(userId: string): Promise<number>;
  /** The live sessions of a user, oldest first (decision B35). */
  listForUser(userId: string, now: number): Promise<SessionRecord[]>;
}

export class SessionStoreUnavailable extends Error {
  override name = 'SessionStoreUnavailable';
}

async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw new SessionStoreUnavailable(e instanceof Error ? e.message : String(e), { cause: e });
  }
}

const GET_SESSION =
  'select user_id, data, roles, created_at, last_seen_at, expires_at from sessions where id_hash = $1';
type SessionRow = {
  user_id: string;
  data: string;
  roles: string[];
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
};

/**
 * The sessions of an embedded (PGlite) bridge, kept in memory as well (decision B49). PGlite is one
 * process's database (the DATA_DIR lock, B18), so every write to `sessions` passes through this store
 * and the copy cannot go stale; a PGlite query costs about a millisecond of the one thread the bridge
 * has, which every signed-in request paid. Bounded: the least recently used entries leave first.
 */
class SessionCache {
  readonly #max: number;
  readonly #byId = new Map<string, SessionRecord>();

  constructor(max: number) {
    this.#max = max;
  }

  get(key: string): SessionRecord | undefined {
    const r = this.#byId.get(key);
    if (r) {
      // Most recently used last: Map keeps insertion order.
      this.#byId.delete(key);
      this.#byId.set(key, r);
    }
    return r && { ...r, roles: [...r.roles] };
  }

  set(key: string, r: SessionRecord): void {
    this.#byId.delete(key);
    this.#byId.set(key, { ...r, roles: [...r.roles] });
    if (this.#byId.size > this.#max) this.#byId.delete(this.#byId.keys().next().value!);
  }

  delete(key: string): void {
    this.#byId.delete(key);
  }

  deleteUser(userId: string): void {
    for (const [k, r] of this.#byId) if (r.user_id === userId) this.#byId.delete(k);
  }
}

/** How many sessions an embedded bridge keeps in memory (decision B49): ~0.5 KiB each. */
export const SESSION_CACHE_ENTRIES = 20_000;

/**
 * `pool`, with PostgreSQL: the lookup runs as a named prepared statement (parsed and planned once per
 * connection), which the hot path of every request deserves. Without it (PGlite, one process) the
 * sessions are also kept in memory (decision B49); with PostgreSQL several instances may share the
 * table, so every lookup reads it (a revocation on one instance holds on all at once).
 */
export function databaseSessionStore(db: Db, pool?: pg.Pool): SessionStore {
  const cache = pool ? undefined : new SessionCache(SESSION_CACHE_ENTRIES);
  const hex = (idHash: Buffer) => idHash.toString('hex');
  // A lookup that read the table while a delete was under way must not put the deleted session back
  // in memory: it caches only when no delete started or was running meanwhile.
  let deletes = 0;
  let deleting = 0;
  const deleteThrough = async <T>(forget: () => void, write: () => Promise<T>): Promise<T> => {
    deletes++;
    deleting++;
    forget();
    try {
      return await write();
    } finally {
      deleting--;
      deletes++;
    }
  };
  const fetchRow = async (idHash: Buffer): Promise<SessionRow | undefined> =>
    pool
      ? (await pool.query<SessionRow>({ name: 'bridge_get_session', text: GET_SESSION, values: [idHash] })).rows[0]
      : (await db.executeQuery<SessionRow>(CompiledQuery.raw(GET_SESSION, [idHash]))).rows[0];
  return {
    create: (idHash, r) =>
      guard(async () => {
        await db
          .insertInto('sessions')
          .values({
            id_hash: idHash,
            user_id: r.user_id,
            data: r.data,
            roles: r.roles,
            created_at: new Date(r.created_at),
            last_seen_at: new Date(r.last_seen_at),
            expires_at: new Date(r.expires_at),
          })
          .execute();
        cache?.set(hex(idHash), r);
      }),
    // The hot path of every request: one fixed statement, compiled once (or the embedded bridge's copy).
    get: (idHash) =>
      guard(async () => {
        const cached = cache?.get(hex(idHash));
        if (cached) return cached;
        const seen = deletes;
        const row = await fetchRow(idHash);
        const r = row && {
          user_id: row.user_id,
          data: row.data,
          roles: row.roles,
          created_at: +new Date(row.created_at),
          last_seen_at: +new Date(row.last_seen_at),
          expires_at: +new Date(row.expires_at),
        };
        if (r && seen === deletes && deleting === 0) cache?.set(hex(idHash), r);
        return r;
      }),
    touch: (idHash, r) =>
      guard(async () => {
        await db
          .updateTable('sessions')
          .set({ last_seen_at: new Date(r.last_seen_at), roles: r.roles })
          .where('id_hash', '=', idHash)
          .execute();
        // Only a session still present is refreshed in memory (a delete meanwhile wins).
        if (cache?.get(hex(idHash))) cache.set(hex(idHash), r);
      }),
    // Deletes leave memory first: were the database write to fail, the next lookup reads the table.
    delete: (idHash) =>
      guard(async () => {
        await deleteThrough(
          () => cache?.delete(hex(idHash)),
          () => db.deleteFrom('sessions').where('id_hash', '=', idHash).execute(),
        );
      }),
    deleteForUser: (userId) =>
      guard(async () => {
        const r = await deleteThrough(
          () => cache?.deleteUser(userId),
          () => db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst(),
        );
        return Number(r.numDeletedRows);
      }),
    listForUser: (userId, now) =>
      guard(async () => {
        const rows = await db
          .selectFrom('sessions')
          .select(['user_id', 'data', 'roles', 'created_at', 'last_seen_at', 'expires_at'])
          .where('user_id', '=', userId)
          .where('expires_at', '>', new Date(now))
          .orderBy('created_at')
          .execute();
        return rows.map((r) => ({
          user_id: r.user_id,
          data: r.data,
          roles: r.roles,
          created_at: +new Date(r.created_at),
          last_seen_at: +new Date(r.last_seen_at),
          expires_at: +new Date(r.expires_at),
        }));
      }),
  };
}

/** Redis: one key per session with the remaining lifetime as its TTL, and a set per user for deleteForUser. */
export function redisSessionStore(redis: Redis, prefix: string): SessionStore {
  const key = (h: Buffer) => `${prefix}${h.toString('hex')}`;
  const userKey = (id: string) => `${prefix}user:${id}`;
  return {
    create: (idHash, r, ttlMs) =>
      guard(async () => {
        await redis
          .multi()
          .set(key(idHash), JSON.stringify(r), 'PX', ttlMs)
          .sadd(userKey(r.user_id), idHash.toString('hex'))
          .pexpire(userKey(r.user_id), r.expires_at - r.created_at)
          .exec();
      }),
    get: (idHash) =>
      guard(async () => {
        const v = await redis.get(key(idHash));
        return v === null ? undefined : (JSON.parse(v) as SessionRecord);
      }),
    touch: (idHash, r, ttlMs) =>
      guard(async () => {
        // XX: never resurrect a session deleted meanwhile (logout on another suite).
        await redis.set(key(idHash), JSON.stringify(r), 'PX', ttlMs, 'XX');
      }),
    delete: (idHash) =>
      guard(async () => {
        await redis.del(key(idHash));
      }),
    deleteForUser: (userId) =>
      guard(async () => {
        const ids = await redis.smembers(userKey(userId));
        if (ids.length === 0) return 0;
        const n = await redis.del(...ids.map((h) => `${prefix}${h}`));
        // Only the ids ended here leave the index: a login meanwhile keeps its entry.
        await redis.srem(userKey(userId), ...ids);
        return n;
      }),
    listForUser: (userId, now) =>
      guard(async () => {
        const ids = await redis.smembers(userKey(userId));
        if (ids.length === 0) return [];
        const values = await redis.mget(...ids.map((h) => `${prefix}${h}`));
        const gone = ids.filter((_, i) => values[i] === null);
        if (gone.length) await redis.srem(userKey(userId), ...gone);
        return values
          .filter((v): v is string => v !== null)
          .map((v) => JSON.parse(v) as SessionRecord)
          .filter((r) => r.expires_at > now)
          .sort((a, b) => a.created_at - b.created_at);
      }),
  };
}
