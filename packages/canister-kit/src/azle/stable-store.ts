// The Store of a canister on the IC: a StableBTreeMap in stable memory, durable across upgrades, and
// nothing in the heap (decision W5, replacing K5's heap mirror). Point reads and writes are the map's
// own O(log n) operations; range reads walk an ordered index of the keys kept in a second map
// (stable-index.ts, decision W7), so finding `from` takes O(log n) point reads whatever the store's
// size. A store written by a release without the index reads by position (stable-range.ts) until
// timer steps armed in post_upgrade have built it. A trap undoes the writes of both maps, as it
// undoes all state.
import { performanceCounter, setTimer, StableBTreeMap } from 'azle';
import { IndexedStore, rawBytes, useUtf8Encoder, type ByteMap } from './indexed-store.ts';
import { encodeUtf8 } from './utf8.ts';
import type { StoreKey } from '../store.ts';
export { sortableKey } from './indexed-store.ts';

useUtf8Encoder(encodeUtf8);

/** Index maps take the memory id of their store plus this (stores take 0, 1, …; 253 is the wiring). */
export const INDEX_MEMORY_OFFSET = 100;
/** Keys appended to an index per build step, and the instructions a timer message spends on steps. */
export const BUILD_STEP_KEYS = 2_000;
export const BUILD_INSTRUCTION_BUDGET = 10_000_000_000n;

const byteMap = (memoryId: number) =>
  new StableBTreeMap<Uint8Array, Uint8Array>(memoryId, rawBytes, rawBytes) as unknown as ByteMap;

/** A store in stable memory at `memoryId`, with its ordered index at `indexMemoryId` (none: read by key only). */
export class StableStore<K extends StoreKey, V> extends IndexedStore<K, V> {
  constructor(memoryId: number, indexMemoryId?: number) {
    super(byteMap(memoryId), indexMemoryId === undefined ? undefined : byteMap(indexMemoryId));
  }
}

/** One StableBTreeMap per store, memory ids assigned in the order the names are listed; each store's index at its id + 100. */
export function stableStores<T>(names: Record<keyof T, string>, firstMemoryId = 0): T {
  const keys = Object.keys(names);
  if (firstMemoryId + keys.length > INDEX_MEMORY_OFFSET)
    throw new Error('too many stores for the memory ids of their indexes');
  return Object.fromEntries(
    keys.map((k, i) => [k, new StableStore(firstMemoryId + i, firstMemoryId + i + INDEX_MEMORY_OFFSET)]),
  ) as T;
}

/**
 * Builds the indexes of stores written by a release without them (decision W7), after an upgrade: a
 * timer message appends keys in steps of `BUILD_STEP_KEYS` until the message has used
 * `BUILD_INSTRUCTION_BUDGET` (a quarter of the update limit), then sets the next timer. Costs one
 * read per store when every index is complete.
 */
export function armIndexBuild(stores: object): void {
  const pending = Object.values(stores).filter(
    (s): s is StableStore<StoreKey, unknown> =>
      s instanceof StableStore && s.index !== undefined && !s.index.state().complete,
  );
  if (pending.length === 0) return;
  setTimer(0, () => {
    const left = buildIndexes(pending, () => performanceCounter(0) < BUILD_INSTRUCTION_BUDGET);
    if (left.length > 0) armIndexBuild(left);
  });
}

/** Build steps while `more()` says so; the stores whose index is still incomplete. */
export function buildIndexes(
  stores: StableStore<StoreKey, unknown>[],
  more: () => boolean,
): StableStore<StoreKey, unknown>[] {
  const left = [...stores];
  while (left.length > 0 && more()) {
    if (left[0].index!.buildStep(BUILD_STEP_KEYS)) left.shift();
  }
  return left;
}

/** Memory 253 keeps the deployment's wiring (other canisters' ids from the init arguments). */
export function wiringStore<T>() {
  const store = new StableStore<string, T>(253); // no index: read by key only
  return {
    get(): T {
      const v = store.get('wiring');
      if (v === undefined) throw new Error('canister not initialised');
      return v;
    },
    set(value: T): void {
      store.set('wiring', value);
    },
  };
}
