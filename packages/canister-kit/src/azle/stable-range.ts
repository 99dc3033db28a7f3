// Range reads straight from a StableBTreeMap by position (decision W5). Since W7 only a store whose
// ordered index is still being built after an upgrade reads this way (stable-index.ts); the cost below
// grows with the position, which is why the index replaced it.
// Azle's map reads by position only (`keys(start, n)`, `items(start, n)`: a linear skip inside the
// map, ≈ 3,700 instructions per entry skipped, against ≈ 10 million per entry to decode and index it
// in the heap). So `from` is found by a binary search over positions with one-key probes, and
// entries are then read in batches that double in size (1, 2, 4, …), which keeps a short page cheap
// and a long scan linear. Nothing is kept in the heap: an upgrade costs nothing and no message ever
// rebuilds an index. Not safe against writes to the same store between the batches of one
// iteration, which the Store contract already excludes (as sorted-btree's iterators do).
import { compareKeys, type StoreKey } from '../store.ts';
import type { EntriesOptions } from '../btree.ts';

/** The positional reads of Azle's StableBTreeMap that a range read needs. */
export interface PositionalMap<K, V> {
  len(): number | bigint;
  keys(startIndex: number, length: number): K[];
  items(startIndex: number, length: number): [K, V][];
}

/** Below this many candidates, one read of their keys replaces the remaining probes. */
const SCAN = 32;
// Values are costly to decode (≈ 40,000 instructions per byte in Azle 0.33), so the first read is one entry:
// a caller that stops early (a filter, a budget) never pays for entries it did not ask for.
const FIRST_BATCH = 1;

/** How many keys sort before `key` (`inclusive`: at or before it). */
export function rank<K extends StoreKey>(
  map: PositionalMap<K, unknown>,
  key: K,
  inclusive: boolean,
  len: number,
): number {
  let lo = 0;
  let hi = len;
  const before = (k: K) => {
    const c = compareKeys(k, key);
    return inclusive ? c <= 0 : c < 0;
  };
  while (hi - lo > SCAN) {
    const mid = (lo + hi) >>> 1;
    if (before(map.keys(mid, 1)[0]!)) lo = mid + 1;
    else hi = mid;
  }
  if (hi > lo) {
    const keys = map.keys(lo, hi - lo);
    let i = 0;
    while (i < keys.length && before(keys[i]!)) i++;
    lo += i;
  }
  return lo;
}

/** The Store.entries contract over positional reads: ascending (or descending) from `from`, at most `limit`. */
export function* positionalEntries<K extends StoreKey, S, V = S>(
  map: PositionalMap<K, S>,
  options: EntriesOptions<K>,
  value: (stored: S) => V = (s) => s as unknown as V,
  storedBytes: (stored: S) => number = () => 0,
): IterableIterator<[K, V]> {
  const limit = options.limit ?? Infinity;
  if (limit <= 0) return;
  const len = Number(map.len());
  const reverse = options.reverse ?? false;
  let pos: number;
  if (options.from === undefined) pos = reverse ? len - 1 : 0;
  else pos = reverse ? rank(map, options.from, true, len) - 1 : rank(map, options.from, false, len);
  let yielded = 0;
  let bytes = 0;
  const maxBytes = options.maxStoredBytes ?? Infinity;
  let batch = FIRST_BATCH;
  while (yielded < limit && (reverse ? pos >= 0 : pos < len)) {
    const want = Math.min(batch, limit - yielded);
    const start = reverse ? Math.max(0, pos - want + 1) : pos;
    const items = map.items(start, reverse ? pos - start + 1 : Math.min(want, len - pos));
    if (items.length === 0) return;
    if (reverse) items.reverse();
    for (const [k, v] of items) {
      bytes += storedBytes(v);
      if (yielded > 0 && bytes > maxBytes) return; // not decoded: its bytes alone would pass the budget
      yield [k, value(v)];
      if (++yielded >= limit) return;
    }
    pos = reverse ? start - 1 : pos + items.length;
    batch *= 2;
  }
}
