// The one shape of canister state. A core keeps everything it remembers in ordered key-value stores:
// on the IC they are Azle StableBTreeMaps (so state lives in stable memory and survives upgrades);
// embedded they are in-memory B-trees whose writes are journaled. Cores never hold state elsewhere.
export type StoreKey = bigint | number | string;

export interface Store<K extends StoreKey, V> {
  get(key: K): V | undefined;
  has(key: K): boolean;
  /** Values are stored as given and handed back frozen: change a record by setting a new one. */
  set(key: K, value: V): void;
  delete(key: K): boolean;
  readonly size: number;
  /** Entries in ascending key order, starting at `from` (inclusive) when given, at most `limit`. */
  entries(options?: { from?: K; limit?: number; reverse?: boolean }): IterableIterator<[K, V]>;
}

/** Keys of one store must be all bigints, all numbers or all strings; mixing them has no order. */
export function compareKeys(a: StoreKey, b: StoreKey): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
