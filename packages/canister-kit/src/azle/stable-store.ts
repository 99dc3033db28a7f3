// The Store of a canister on the IC: a StableBTreeMap in stable memory, durable across upgrades, and
// nothing else (decision W5, replacing K5's heap mirror). Point reads and writes are the map's own
// O(log n) operations; range reads find `from` by position (stable-range.ts), so no message ever
// rebuilds an index, however large the store. A trap undoes the map's writes, as it undoes all state.
import { StableBTreeMap, type Serializable } from 'azle';
import { deepFreeze, type EntriesOptions } from '../btree.ts';
import { positionalEntries, type PositionalMap } from './stable-range.ts';
import { decode, encode } from '../codec.ts';
import type { Store, StoreKey } from '../store.ts';
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/**
 * Keys as bytes that sort like the keys (StableBTreeMap orders by bytes): a type tag, then a nat64
 * as 8 big-endian bytes, or a string as UTF-8 (code-point order; our string keys are ASCII).
 */
export const sortableKey: Serializable = {
  toBytes(key: StoreKey): Uint8Array {
    if (typeof key === 'bigint') {
      const out = new Uint8Array(9);
      out[0] = 1;
      new DataView(out.buffer).setBigUint64(1, key);
      return out;
    }
    if (typeof key === 'string') return new Uint8Array([2, ...utf8.encode(key)]);
    throw new TypeError('store keys on the IC are nat64 bigints or strings');
  },
  fromBytes(bytes: Uint8Array): StoreKey {
    if (bytes[0] === 1) return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(1);
    return fromUtf8.decode(bytes.subarray(1));
  },
};

/**
 * Values cross the map as their stored bytes (the codec's JSON in UTF-8, as always: nothing changes in
 * stable memory) and are decoded by the store when handed out, so entries a range read fetched
 * ahead but nobody asked for cost a copy, not a decode (≈ 40,000 instructions per byte, W5).
 */
const rawValue: Serializable = {
  toBytes: (b: Uint8Array) => b,
  fromBytes: (b: Uint8Array) => b,
};
const toValue = <V>(bytes: Uint8Array): V => deepFreeze(decode<V>(fromUtf8.decode(bytes)));

export class StableStore<K extends StoreKey, V> implements Store<K, V> {
  private readonly map: StableBTreeMap<K, Uint8Array>;

  constructor(memoryId: number) {
    this.map = new StableBTreeMap<K, Uint8Array>(memoryId, sortableKey, rawValue);
  }

  get(key: K): V | undefined {
    const bytes = this.map.get(key);
    return bytes === undefined ? undefined : toValue<V>(bytes);
  }
  has(key: K): boolean {
    return this.map.containsKey(key);
  }
  get size(): number {
    return Number(this.map.len());
  }
  set(key: K, value: V): void {
    this.map.insert(key, utf8.encode(encode(value)));
  }
  delete(key: K): boolean {
    if (!this.map.containsKey(key)) return false;
    this.map.remove(key);
    return true;
  }
  entries(options: EntriesOptions<K> = {}): IterableIterator<[K, V]> {
    return positionalEntries(this.map as unknown as PositionalMap<K, Uint8Array>, options, toValue<V>, (b) => b.length);
  }
}

/** One StableBTreeMap per store, memory ids assigned in the order the names are listed. */
export function stableStores<T>(names: Record<keyof T, string>, firstMemoryId = 0): T {
  return Object.fromEntries(Object.keys(names).map((k, i) => [k, new StableStore(firstMemoryId + i)])) as T;
}

/** Memory 253 keeps the deployment's wiring (other canisters' ids from the init arguments). */
export function wiringStore<T>() {
  const store = new StableStore<string, T>(253);
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
