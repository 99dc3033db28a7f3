// sorted-btree is CommonJS with its class on `exports.default`: Node (NodeNext) hands us the module
// object, a bundler (azle build) may hand us the class itself.
import sortedBtree from 'sorted-btree';
import { compareKeys, type StoreKey } from './store.ts';

export type BTree<K, V> = import('sorted-btree').default<K, V>;
type BTreeCtor = new <K, V>(entries: undefined, compare: (a: K, b: K) => number) => BTree<K, V>;
const module = sortedBtree as unknown as { default?: BTreeCtor } & BTreeCtor;
const BTreeClass: BTreeCtor = module.default ?? module;

export function newBTree<K extends StoreKey, V>(): BTree<K, V> {
  return new BTreeClass<K, V>(undefined, compareKeys);
}

/** Records are values: freezing them makes a core that edits one in place fail loudly, as on the IC its edit would be lost. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * deepFreeze for a record being stored: objects a core froze itself are walked too (it may have frozen
 * only the top), so no part of a stored record can change in place (decision P15 relies on it; byte
 * arrays cannot be frozen). Reads keep deepFreeze's shortcut: what they see was stored this way or
 * decoded unfrozen.
 */
export function freezeRecord<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    if (!Object.isFrozen(value)) Object.freeze(value);
    for (const v of Object.values(value)) freezeRecord(v);
  }
  return value;
}

export interface EntriesOptions<K> {
  from?: K;
  limit?: number;
  reverse?: boolean;
  /**
   * Where the store keeps encoded values (the IC's StableStore): stop before the entry whose stored
   * bytes would take the total past this, without decoding it; the first entry always comes. Stores
   * that keep no encoding (the embedded host's) ignore it (decision W6).
   */
  maxStoredBytes?: number;
}

/** The Store.entries contract over a B-tree: ascending (or descending) from `from`, at most `limit`. */
export function* orderedEntries<K, V>(tree: BTree<K, V>, options: EntriesOptions<K>): IterableIterator<[K, V]> {
  const limit = options.limit ?? Infinity;
  if (limit <= 0) return;
  let n = 0;
  for (const entry of options.reverse ? tree.entriesReversed(options.from) : tree.entries(options.from)) {
    yield entry;
    if (++n >= limit) return;
  }
}
