// An ordered index of a StableBTreeMap's keys, kept in a second StableBTreeMap with point operations
// only (decision W7): Azle 0.33's map reads ranges by position, a linear skip inside it (≈ 3,700
// instructions per entry skipped), so a range read that finds `from` by position costs in proportion
// to the store. The index is a skip list over the keys' bytes: each key of the data map has a node
// in the index map, under the same key, holding the next key at each of its levels and the previous
// key at level 0; a node's height comes from a hash of its key (level l+1 with probability 2^-l), so
// it is the same whatever the order of writes, and nothing is drawn at random. Finding a key takes
// O(log n) point reads (≈ 2 log2 n nodes at most in expectation), reading on takes one node and one
// value per entry, in either direction.
//
// Two more records live in the index map, under keys that sort before every data key (data keys start
// with a tag byte 1 or 2, stable-store.ts): the head node [0] (the first key at each level) and the
// state [0, 0]. A store written by a release without the index has data but no state: the index is
// then built by `buildStep` in bounded steps (a timer, armed in post_upgrade) in key order, covering
// every key up to its `frontier`; writes at or below the frontier keep the index, writes above it
// are left for the build, and range reads use the positional reads (stable-range.ts) until the build
// completes. A store with no data and no state is indexed from its first write.
//
// The index and the data change in the same message, so a trap undoes both (the IC's atomicity).

export type Bytes = Uint8Array;

/** The point operations of a StableBTreeMap with byte keys and values. */
export interface PointMap {
  get(key: Bytes): Bytes | undefined;
  insert(key: Bytes, value: Bytes): unknown;
  remove(key: Bytes): unknown;
}

/** The data map as the build reads it: its length and its keys by position. */
export interface PositionalKeys {
  len(): number | bigint;
  keys(startIndex: number, length: number): Bytes[];
}

export const HEAD: Bytes = new Uint8Array([0]);
export const STATE: Bytes = new Uint8Array([0, 0]);
/** Enough levels for 2^32 keys, the map's own limit. */
export const MAX_LEVEL = 32;

/** The byte order of the map's keys (ic-stable-structures orders `Vec<u8>` lexicographically). */
export function compareBytes(a: Bytes, b: Bytes): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** A node's height: 1 + the number of trailing one bits of a 32-bit hash of its key (FNV-1a, then murmur3's finaliser). */
export function levelOf(key: Bytes): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key[i]!, 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  let level = 1;
  while (level < MAX_LEVEL && (h & 1) === 1) {
    h >>>= 1;
    level++;
  }
  return level;
}

/** A decoded node: `key` null is the head. */
interface Node {
  key: Bytes | null;
  prev: Bytes | null;
  next: (Bytes | null)[];
}

// Encoding: height (1 byte), then prev and each level's next as a 2-byte length and the key's bytes
// (length 0: none; data keys are never empty). Decoding is a few subarrays, no text.
function encodeNode(node: Node): Bytes {
  let size = 3 + (node.prev?.length ?? 0);
  for (const k of node.next) size += 2 + (k?.length ?? 0);
  const out = new Uint8Array(size);
  out[0] = node.next.length;
  let o = 1;
  const put = (k: Bytes | null) => {
    const len = k === null ? 0 : k.length;
    out[o] = len >>> 8;
    out[o + 1] = len & 255;
    o += 2;
    if (k !== null) {
      out.set(k, o);
      o += len;
    }
  };
  put(node.prev);
  for (const k of node.next) put(k);
  return out;
}

function decodeNode(key: Bytes | null, b: Bytes): Node {
  const height = b[0]!;
  let o = 1;
  const take = (): Bytes | null => {
    const len = (b[o]! << 8) | b[o + 1]!;
    o += 2;
    if (len === 0) return null;
    const k = b.subarray(o, o + len);
    o += len;
    return k;
  };
  const prev = take();
  const next: (Bytes | null)[] = [];
  for (let l = 0; l < height; l++) next.push(take());
  return { key, prev, next };
}

/** The index's state: complete, or built up to `frontier` (inclusive; null: nothing yet) with `count` keys. */
export type IndexState = { complete: true } | { complete: false; frontier: Bytes | null; count: number };

// State encoding: 1 = complete; 2 = building, then the count (8 bytes) and the frontier (length-prefixed).
function encodeState(state: IndexState): Bytes {
  if (state.complete) return new Uint8Array([1]);
  const f = state.frontier;
  const out = new Uint8Array(11 + (f?.length ?? 0));
  out[0] = 2;
  new DataView(out.buffer).setFloat64(1, state.count);
  out[9] = (f?.length ?? 0) >>> 8;
  out[10] = (f?.length ?? 0) & 255;
  if (f) out.set(f, 11);
  return out;
}

function decodeState(b: Bytes): IndexState {
  if (b[0] === 1) return { complete: true };
  const count = new DataView(b.buffer, b.byteOffset, b.byteLength).getFloat64(1);
  const len = (b[9]! << 8) | b[10]!;
  return { complete: false, count, frontier: len === 0 ? null : b.slice(11, 11 + len) };
}

export class SkipIndex {
  /** Once complete the index stays complete; the heap may remember it (a trap rolls back both). */
  private knownComplete = false;

  constructor(
    private readonly index: PointMap,
    private readonly data: PositionalKeys,
  ) {}

  /** The index's state; a store without data and without a state is indexed from now on. */
  state(): IndexState {
    if (this.knownComplete) return { complete: true };
    const raw = this.index.get(STATE);
    let state: IndexState;
    if (raw !== undefined) state = decodeState(raw);
    else {
      // First use by this release: settled now, before the data changes, and written down.
      state = Number(this.data.len()) === 0 ? { complete: true } : { complete: false, frontier: null, count: 0 };
      this.index.insert(STATE, encodeState(state));
    }
    if (state.complete) this.knownComplete = true;
    return state;
  }

  /** Whether the index holds `key`'s node (complete, or `key` at or below the frontier). */
  private covers(key: Bytes, state: IndexState): boolean {
    return state.complete || (state.frontier !== null && compareBytes(key, state.frontier) <= 0);
  }

  private read(key: Bytes): Node {
    const b = this.index.get(key);
    if (b === undefined) throw new Error('stable index: a node is missing');
    return decodeNode(key, b);
  }

  private head(): Node {
    const b = this.index.get(HEAD);
    return b === undefined ? { key: null, prev: null, next: [null] } : decodeNode(null, b);
  }

  private write(node: Node): void {
    this.index.insert(node.key ?? HEAD, encodeNode(node));
  }

  /**
   * The last node before `key` at each level (`key` null: the last node of each level), from the head
   * down; levels above the head's height are the head.
   */
  private path(key: Bytes | null): Node[] {
    const path = new Array<Node>(MAX_LEVEL);
    const head = this.head();
    let node = head;
    for (let l = MAX_LEVEL - 1; l >= 0; l--) {
      if (l < node.next.length) {
        for (
          let next = node.next[l];
          next != null && (key === null || compareBytes(next, key) < 0);
          next = node.next[l]
        )
          node = this.read(next);
      }
      path[l] = node;
    }
    return path;
  }

  /** A key new to the data map: link its node (if the index covers it). */
  inserted(key: Bytes): void {
    const state = this.state();
    if (!this.covers(key, state)) return;
    const height = levelOf(key);
    const path = this.path(key);
    const node: Node = { key, prev: path[0]!.key, next: new Array<Bytes | null>(height).fill(null) };
    const dirty = new Set<Node>([node]);
    for (let l = 0; l < height; l++) {
      const pred = path[l]!;
      while (pred.next.length <= l) pred.next.push(null); // only the head grows
      node.next[l] = pred.next[l]!;
      pred.next[l] = key;
      dirty.add(pred);
    }
    const succ = node.next[0];
    if (succ != null) {
      const s = this.read(succ);
      s.prev = key;
      dirty.add(s);
    }
    for (const n of dirty) this.write(n);
    if (!state.complete) this.index.insert(STATE, encodeState({ ...state, count: state.count + 1 }));
  }

  /** A key removed from the data map: unlink its node (if the index covers it). */
  removed(key: Bytes): void {
    const state = this.state();
    if (!this.covers(key, state)) return;
    const path = this.path(key);
    const node = this.read(key);
    const dirty = new Set<Node>();
    for (let l = 0; l < node.next.length; l++) {
      const pred = path[l]!;
      pred.next[l] = node.next[l]!;
      dirty.add(pred);
    }
    const succ = node.next[0];
    if (succ != null) {
      const s = this.read(succ);
      s.prev = node.prev;
      dirty.add(s);
    }
    for (const n of dirty) this.write(n);
    this.index.remove(key);
    if (!state.complete) this.index.insert(STATE, encodeState({ ...state, count: state.count - 1 }));
  }

  /**
   * Where a range read starts: the first key at or after `from` (reverse: the last at or before it;
   * no `from`: the first or the last key). Null when there is none. Only when the index is complete.
   */
  start(from: Bytes | undefined, reverse: boolean): Bytes | null {
    if (!reverse) {
      if (from === undefined) return this.head().next[0] ?? null;
      return this.path(from)[0]!.next[0] ?? null;
    }
    if (from === undefined) return this.path(null)[0]!.key;
    const pred = this.path(from)[0]!;
    const at = pred.next[0];
    return at != null && compareBytes(at, from) === 0 ? at : pred.key;
  }

  /** The key after (reverse: before) `key`, which must be in the index. */
  step(key: Bytes, reverse: boolean): Bytes | null {
    const node = this.read(key);
    return reverse ? node.prev : (node.next[0] ?? null);
  }

  /**
   * One step of building the index of a store written without one: appends the next (at most)
   * `maxKeys` keys after the frontier, read by position (the count of indexed keys is the position of
   * the first key after the frontier). Returns true when the index is complete.
   */
  buildStep(maxKeys: number): boolean {
    const state = this.state();
    if (state.complete) return true;
    const keys = this.data.keys(state.count, maxKeys);
    if (keys.length > 0 && state.frontier !== null && compareBytes(keys[0]!, state.frontier) <= 0) {
      throw new Error('stable index: the build lost its place');
    }
    if (keys.length > 0) {
      const tails = this.path(null);
      const dirty = new Set<Node>();
      for (const key of keys) {
        const height = levelOf(key);
        const node: Node = { key, prev: tails[0]!.key, next: new Array<Bytes | null>(height).fill(null) };
        for (let l = 0; l < height; l++) {
          const pred = tails[l]!;
          while (pred.next.length <= l) pred.next.push(null);
          pred.next[l] = key;
          dirty.add(pred);
          tails[l] = node;
        }
        dirty.add(node);
      }
      for (const n of dirty) this.write(n);
    }
    const done = keys.length < maxKeys;
    const next: IndexState = done
      ? { complete: true }
      : { complete: false, frontier: keys[keys.length - 1]!, count: state.count + keys.length };
    this.index.insert(STATE, encodeState(next));
    if (done) this.knownComplete = true;
    return done;
  }
}
