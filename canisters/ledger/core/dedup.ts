// ICRC-1 "Transaction deduplication" (decisions L1–L8): a transaction with created_at_time is refused as
// TooOld, CreatedInFuture or Duplicate within the window; entries past it are pruned a few per call.
import { compositeKey, u64Key } from '@domdao/canister-kit';
import type { LedgerConfig, LedgerStores } from './types.ts';

/** Dedup entries pruned per update call at most (amortised: each call adds at most one). */
const PRUNE_BATCH = 100;

export function dedupWindow(stores: Pick<LedgerStores, 'dedup' | 'dedup_by_time'>, config: () => LedgerConfig) {
  /** ICRC-1 "Transaction deduplication": TooOld, CreatedInFuture, then Duplicate (only with created_at_time). */
  function timeAndDuplicate(created_at_time: bigint | undefined, key: string, now: bigint) {
    if (created_at_time === undefined) return undefined;
    const c = config();
    if (created_at_time + c.tx_window + c.permitted_drift < now) return { TooOld: null } as const;
    if (created_at_time > now + c.permitted_drift) return { CreatedInFuture: { ledger_time: now } } as const;
    const dup = stores.dedup.get(key);
    if (dup !== undefined) return { Duplicate: { duplicate_of: dup } } as const;
    return undefined;
  }
  function remember(created_at_time: bigint | undefined, key: string, index: bigint): void {
    if (created_at_time === undefined) return;
    stores.dedup.set(key, index);
    stores.dedup_by_time.set(compositeKey(u64Key(created_at_time), key), null);
  }
  /** Drops dedup entries that can no longer match (their created_at_time is TooOld now). */
  function prune(now: bigint): void {
    const c = config();
    const horizon = now - c.tx_window - c.permitted_drift;
    if (horizon <= 0n) return;
    const stale: string[] = [];
    for (const [k] of stores.dedup_by_time.entries({ limit: PRUNE_BATCH })) {
      if (k < u64Key(horizon)) stale.push(k);
      else break;
    }
    for (const k of stale) {
      stores.dedup_by_time.delete(k);
      stores.dedup.delete(k.slice(21));
    }
  }
  return { timeAndDuplicate, remember, prune };
}
