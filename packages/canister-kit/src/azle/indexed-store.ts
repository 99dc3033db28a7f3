// The IC Store's logic over two byte maps (the data and its index, decision W7), apart from Azle so that
// tests run it on stand-ins for the StableBTreeMap (Azle's module does not load in Node).
import { deepFreeze, type EntriesOptions } from '../btree.ts';
import { positionalEntries, type PositionalMap } from './stable-range.ts';
import { SkipIndex, type Bytes, type PointMap, type PositionalKeys } from './stable-index.ts';
import { decode, encode } from '../codec.ts';
import { decodeUtf8 } from '../utf8.ts';
import type { Store, StoreKey } from '../store.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- Azle's own signature, so its serialisers fit */
/** Azle's StableBTreeMap serialiser (the same shape; not imported, so this file also runs in Node). */
export interface Serializable {
  toBytes(data: any): Uint8Array;
  fromBytes(bytes: Uint8Array): any;
}
/* eslint-enable @typescript-eslint/no-explicit-any */
const textEncoder = new TextEncoder();
/** How text becomes bytes: TextEncoder, unless the host has a cheaper way (the wasm's, decision W17). */
let encodeUtf8 = (text: string): Uint8Array => textEncoder.encode(text);
export function useUtf8Encoder(encoder: (text: string) => Uint8Array): void {
  encodeUtf8 = encoder;
}

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
    if (typeof key === 'string') {
      const text = encodeUtf8(key);
      const out = new Uint8Array(text.length + 1);
      out[0] = 2;
      out.set(text, 1);
      return out;
    }
    throw new TypeError('store keys on the IC are nat64 bigints or strings');
  },
  fromBytes(bytes: Uint8Array): StoreKey {
    if (bytes[0] === 1) return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(1);
    return decodeUtf8(bytes.subarray(1));
  },
};

/**
 * Values cross the map as their stored bytes (the codec's JSON in UTF-8, as always: nothing changes in
 * stable memory) and are decoded by the store when handed out, so entries a range read fetched
 * ahead but nobody asked for cost a copy, not a decode (≈ 1,000 instructions per byte, W17; W5 measured
 * ≈ 40,000 with Azle's TextDecoder).
 */
const rawValue: Serializable = {
  toBytes: (b: Uint8Array) => b,
  fromBytes: (b: Uint8Array) => b,
};
const toValue = <V>(bytes: Uint8Array): V => deepFreeze(decode<V>(decodeUtf8(bytes)));

export const rawBytes: Serializable = rawValue;

/** A StableBTreeMap with byte keys and values, as the store uses it. */
export interface ByteMap extends PointMap, PositionalKeys {
  containsKey(key: Bytes): boolean;
  len(): number | bigint;
  items(startIndex: number, length: number): [Bytes, Bytes][];
}

export class IndexedStore<K extends StoreKey, V> implements Store<K, V> {
  /** The data: stored keys and values, as every earlier release wrote them (the serialiser is ours). */
  private readonly map: ByteMap;
  /** The ordered index of the keys (decision W7); none for a store never read by range. */
  readonly index: SkipIndex | undefined;
  private readonly positional: PositionalMap<K, Uint8Array>;

  constructor(data: ByteMap, index: PointMap | undefined) {
    this.map = data;
    this.index = index === undefined ? undefined : new SkipIndex(index, data);
    const map = data;
    this.positional = {
      len: () => map.len(),
      keys: (start, n) => map.keys(start, n).map((k) => sortableKey.fromBytes(k) as K),
      items: (start, n) => map.items(start, n).map(([k, v]): [K, Uint8Array] => [sortableKey.fromBytes(k) as K, v]),
    };
  }

  get(key: K): V | undefined {
    const bytes = this.map.get(sortableKey.toBytes(key));
    return bytes === undefined ? undefined : toValue<V>(bytes);
  }
  has(key: K): boolean {
    return this.map.containsKey(sortableKey.toBytes(key));
  }
  get size(): number {
    return Number(this.map.len());
  }
  set(key: K, value: V): void {
    const k = sortableKey.toBytes(key);
    this.index?.state(); // before the data changes: an empty store without an index is indexed from now on
    if (this.map.insert(k, encodeUtf8(encode(value))) === undefined) this.index?.inserted(k);
  }
  delete(key: K): boolean {
    const k = sortableKey.toBytes(key);
    this.index?.state(); // before the data changes: whether the index is complete depends on the data it finds
    if (this.map.remove(k) === undefined) return false;
    this.index?.removed(k);
    return true;
  }
  entries(options: EntriesOptions<K> = {}): IterableIterator<[K, V]> {
    if (this.index === undefined || !this.index.state().complete) {
      return positionalEntries(this.positional, options, toValue<V>, (b) => b.length);
    }
    return this.indexedEntries(this.index, options);
  }

  private *indexedEntries(index: SkipIndex, options: EntriesOptions<K>): IterableIterator<[K, V]> {
    const limit = options.limit ?? Infinity;
    if (limit <= 0) return;
    const reverse = options.reverse ?? false;
    const maxBytes = options.maxStoredBytes ?? Infinity;
    let key = index.start(options.from === undefined ? undefined : sortableKey.toBytes(options.from), reverse);
    let yielded = 0;
    let bytes = 0;
    while (key !== null) {
      const stored = this.map.get(key);
      if (stored === undefined) throw new Error('stable index: an indexed key has no value');
      bytes += stored.length;
      if (yielded > 0 && bytes > maxBytes) return; // not decoded: its bytes alone would pass the budget
      yield [sortableKey.fromBytes(key) as K, toValue<V>(stored)];
      if (++yielded >= limit) return;
      key = index.step(key, reverse);
    }
  }
}
