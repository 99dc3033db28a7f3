// Redis store: shared by every replica behind the gateway. The claim is one atomic SET NX.
import { Redis } from 'ioredis';
import { CLAIM_TTL_MS, storageKey, type BeginResult, type IdempotencyStore, type StoredResult } from './store.ts';

interface Stored {
  fingerprint: string;
  result?: StoredResult;
}

export interface RedisIdempotencyOptions {
  url: string;
  prefix: string;
  ttlSeconds: number;
  /**
   * A command not answered in this time fails (decision D47): a host lost without a reset (a dead
   * machine, a partition) would otherwise hold a delivered email's answer until the caller gave up and
   * retried it.
   */
  commandTimeoutMs: number;
  /** Told once per outage (the first connection error, at boot or after the last ready), not per retry. */
  onUnreachable: (err: Error) => void;
}

export function redisIdempotencyStore({ url, prefix, ttlSeconds, commandTimeoutMs, onUnreachable }: RedisIdempotencyOptions): IdempotencyStore {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false, commandTimeout: commandTimeoutMs });
  let reported = false;
  redis.on('error', (err: Error) => {
    if (reported) return;
    reported = true;
    onUnreachable(err);
  });
  redis.on('ready', () => (reported = false));
  const k = (key: string) => `${prefix}${storageKey(key)}`;
  return {
    async begin(key, fingerprint): Promise<BeginResult> {
      // Two rounds at most: the key may expire between a failed claim and the read.
      for (let round = 0; round < 2; round++) {
        const claimed = await redis.set(k(key), JSON.stringify({ fingerprint } satisfies Stored), 'PX', CLAIM_TTL_MS, 'NX');
        if (claimed === 'OK') return { state: 'new' };
        const raw = await redis.get(k(key));
        if (raw === null) continue;
        const stored = JSON.parse(raw) as Stored;
        if (stored.fingerprint !== fingerprint) return { state: 'mismatch' };
        return stored.result ? { state: 'replay', result: stored.result } : { state: 'in_progress' };
      }
      return { state: 'in_progress' };
    },
    async complete(key, fingerprint, result) {
      await redis.set(k(key), JSON.stringify({ fingerprint, result } satisfies Stored), 'EX', ttlSeconds);
    },
    async release(key) {
      await redis.del(k(key));
    },
    async close() {
      await redis.quit();
    },
  };
}
