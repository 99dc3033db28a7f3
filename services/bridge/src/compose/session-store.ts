// Where the sessions live (SESSION_STORE): the bridge's database, or Redis (decision B30).
import { Redis } from 'ioredis';
import type { BridgeConfig } from '../config.ts';
import { databaseSessionStore, redisSessionStore, type SessionStore } from '../core/auth/session-store.ts';
import type { OpenedDatabase } from '../core/db/connect.ts';

export async function openSessionStore(
  config: BridgeConfig,
  database: OpenedDatabase,
): Promise<{ sessionStore: SessionStore; redis?: Redis }> {
  if (config.SESSION_STORE !== 'redis') return { sessionStore: databaseSessionStore(database.db, database.pool) };
  // Fail fast while Redis is down (503), instead of queueing requests behind a reconnect; and while
  // it is connected but silent (a stalled server or a lost host, decision B50), after 2 s, instead
  // of waiting for an answer that may never come. A connection silent for 5 s while commands wait
  // is dropped and made again, so a lost host is not waited on until TCP gives up (≈15 minutes).
  const redis = new Redis(config.SESSION_REDIS_URL, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2000,
    commandTimeout: 2000,
    socketTimeout: 5000,
    lazyConnect: true,
  });
  redis.on('error', () => undefined);
  await redis.connect().catch(() => undefined);
  return { sessionStore: redisSessionStore(redis, config.SESSION_KEY_PREFIX), redis };
}
