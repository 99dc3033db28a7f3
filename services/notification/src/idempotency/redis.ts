// Redis store: shared by every replica behind the gateway. The claim is one atomic SET NX.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { CLAIM_TTL_MS, storageKey, type BeginResult, type IdempotencyStore, type StoredResult } from './store.ts';

interface Stored {
  fingerprint: string;
  /** The claim's own token, so that only the claim itself is withdrawn (below). */
  claim?: string;
  result?: StoredResult;
}

// Deletes the key only while it still holds this claim (not a completed result, not another's claim).
const WITHDRAW = `local v = redis.call('GET', KEYS[1])
if v and cjson.decode(v).claim == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

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

export function redisIdempotencyStore({
  url,
  prefix,
  ttlSeconds,
  commandTimeoutMs,
  onUnreachable,
}: RedisIdempotencyOptions): IdempotencyStore {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    lazyConnect: false,
    commandTimeout: commandTimeoutMs,
  });
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
        const claim = randomUUID();
        let claimed: string | null;
        try {
          claimed = await redis.set(
            k(key),
            JSON.stringify({ fingerprint, claim } satisfies Stored),
            'PX',
            CLAIM_TTL_MS,
            'NX',
          );
        } catch (err) {
          // A command that timed out may still run when the server answers again, and would then hold
          // the key for CLAIM_TTL_MS with nothing sent. The withdrawal goes out on the same connection,
          // so it runs after that late claim, and removes it only if it is this one.
          redis.eval(WITHDRAW, 1, k(key), claim).catch(() => undefined);
          throw err;
        }
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
    async ping() {
      await redis.ping();
    },
    async close() {
      // A stalled server times QUIT out as well: closing must not fail for it.
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
