// In-process store: right for one replica; bounded in size (oldest entries go first).
import { CLAIM_TTL_MS, storageKey, type BeginResult, type IdempotencyStore, type StoredResult } from './store.ts';

interface Entry {
  fingerprint: string;
  result?: StoredResult;
  expiresAt: number;
}

export function memoryIdempotencyStore(
  ttlSeconds: number,
  maxEntries: number,
  now: () => number = Date.now,
): IdempotencyStore {
  const entries = new Map<string, Entry>();
  const evict = () => {
    // Map keeps insertion order, so the first keys are the oldest.
    for (const [k, e] of entries) {
      if (entries.size < maxEntries && e.expiresAt > now()) break;
      entries.delete(k);
    }
  };
  return {
    async begin(key, fingerprint): Promise<BeginResult> {
      const k = storageKey(key);
      const e = entries.get(k);
      if (e && e.expiresAt > now()) {
        if (e.fingerprint !== fingerprint) return { state: 'mismatch' };
        return e.result ? { state: 'replay', result: e.result } : { state: 'in_progress' };
      }
      if (e) entries.delete(k);
      evict();
      entries.set(k, { fingerprint, expiresAt: now() + CLAIM_TTL_MS });
      return { state: 'new' };
    },
    async complete(key, fingerprint, result) {
      const k = storageKey(key);
      entries.delete(k);
      entries.set(k, { fingerprint, result, expiresAt: now() + ttlSeconds * 1000 });
    },
    async release(key) {
      entries.delete(storageKey(key));
    },
  };
}
