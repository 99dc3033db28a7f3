// Decision W7: the IC Store's ordered index in stable memory (a skip list kept in a second map with
// point operations only). The store's logic runs here over stand-ins for Azle's StableBTreeMap with
// byte keys (a sorted array that counts point reads and entries skipped by positional reads), checked
// against the embedded Store's B-tree under random writes, deletes and range reads, through the
// incremental build of an index for a store written without one, and bounded in what it reads.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { newBTree, orderedEntries, type EntriesOptions } from '../src/btree.ts';
import { IndexedStore, sortableKey, type ByteMap } from '../src/azle/indexed-store.ts';
import { compareBytes, HEAD, levelOf, STATE, SkipIndex } from '../src/azle/stable-index.ts';
import type { StoreKey } from '../src/store.ts';

type Bytes = Uint8Array;

/** A StableBTreeMap stand-in: a sorted array, with what each kind of read costs on the IC counted. */
function byteMap() {
  const keys: Bytes[] = [];
  const values: Bytes[] = [];
  const cost = { gets: 0, writes: 0, positional: 0, skipped: 0 };
  const find = (k: Bytes) => {
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareBytes(keys[mid]!, k) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const at = (k: Bytes) => {
    const i = find(k);
    return i < keys.length && compareBytes(keys[i]!, k) === 0 ? i : -1;
  };
  const map: ByteMap = {
    get(k) {
      cost.gets++;
      const i = at(k);
      return i < 0 ? undefined : values[i]!.slice();
    },
    containsKey(k) {
      cost.gets++;
      return at(k) >= 0;
    },
    insert(k, v) {
      cost.writes++;
      const i = find(k);
      if (i < keys.length && compareBytes(keys[i]!, k) === 0) {
        const old = values[i]!;
        values[i] = v.slice();
        return old;
      }
      keys.splice(i, 0, k.slice());
      values.splice(i, 0, v.slice());
      return undefined;
    },
    remove(k) {
      cost.writes++;
      const i = at(k);
      if (i < 0) return undefined;
      const old = values[i]!;
      keys.splice(i, 1);
      values.splice(i, 1);
      return old;
    },
    len: () => BigInt(keys.length),
    keys(start, n) {
      cost.positional++;
      cost.skipped += Math.min(start, keys.length);
      return keys.slice(start, start + n).map((k) => k.slice());
    },
    items(start, n) {
      cost.positional++;
      cost.skipped += Math.min(start, keys.length);
      return keys.slice(start, start + n).map((k, i): [Bytes, Bytes] => [k.slice(), values[start + i]!.slice()]);
    },
  };
  return { map, cost, keys };
}

/** A store as an earlier release left it: data written without an index. */
function unindexed<K extends StoreKey, V>(entries: Array<[K, V]>) {
  const data = byteMap();
  const plain = new IndexedStore<K, V>(data.map, undefined);
  for (const [k, v] of entries) plain.set(k, v);
  return data;
}

/** The index agrees with the data: level 0 lists every key in order, prev pointers mirror it. */
function checkIndex(data: ReturnType<typeof byteMap>, index: ReturnType<typeof byteMap>) {
  const store = new IndexedStore<StoreKey, unknown>(data.map, index.map);
  assert.ok(store.index!.state().complete);
  const stored = index.keys.filter((k) => compareBytes(k, HEAD) !== 0 && compareBytes(k, STATE) !== 0);
  assert.deepEqual(stored, data.keys);
  const forward: Bytes[] = [];
  for (let k = store.index!.start(undefined, false); k !== null; k = store.index!.step(k, false)) forward.push(k);
  assert.deepEqual(forward, data.keys);
  const backward: Bytes[] = [];
  for (let k = store.index!.start(undefined, true); k !== null; k = store.index!.step(k, true)) backward.push(k);
  assert.deepEqual(backward.reverse(), data.keys);
}

const bigKey = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const smallBigKey = fc.bigInt({ min: 0n, max: 60n });
const stringKey = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '|', '0', '9'), maxLength: 4 });

type Op<K> =
  | { op: 'set'; key: K; value: number }
  | { op: 'delete'; key: K }
  | { op: 'read'; from?: K; limit?: number; reverse: boolean; maxStoredBytes?: number }
  | { op: 'build' };

function ops<K>(key: fc.Arbitrary<K>): fc.Arbitrary<Op<K>[]> {
  return fc.array(
    fc.oneof(
      { weight: 5, arbitrary: fc.record({ op: fc.constant('set' as const), key, value: fc.nat({ max: 1_000_000 }) }) },
      { weight: 3, arbitrary: fc.record({ op: fc.constant('delete' as const), key }) },
      {
        weight: 2,
        arbitrary: fc.record(
          {
            op: fc.constant('read' as const),
            from: key,
            limit: fc.nat({ max: 12 }),
            reverse: fc.boolean(),
            maxStoredBytes: fc.nat({ max: 40 }),
          },
          { requiredKeys: ['op', 'reverse'] },
        ),
      },
      { weight: 1, arbitrary: fc.constant({ op: 'build' as const }) },
    ),
    { maxLength: 150, size: 'max' },
  );
}

function run<K extends StoreKey>(initial: Array<[K, number]>, program: Op<K>[], buildKeys: number) {
  const data = unindexed(initial);
  const index = byteMap();
  const store = new IndexedStore<K, number>(data.map, index.map);
  const model = newBTree<K, number>();
  for (const [k, v] of initial) model.set(k, v);
  const read = (o: EntriesOptions<K>) => {
    const got = [...store.entries(o)];
    // maxStoredBytes: the B-tree keeps no encoding, so the model applies the same rule to the codec's bytes.
    let want = [...orderedEntries(model, { ...o, maxStoredBytes: undefined })];
    if (o.maxStoredBytes !== undefined) {
      let bytes = 0;
      const cut = want.findIndex(([, v], i) => (bytes += JSON.stringify(v).length) > o.maxStoredBytes! && i > 0);
      if (cut >= 0) want = want.slice(0, cut);
    }
    assert.deepEqual(got, want);
  };
  for (const step of program) {
    if (step.op === 'set') {
      store.set(step.key, step.value);
      model.set(step.key, step.value);
    } else if (step.op === 'delete') {
      assert.equal(store.delete(step.key), model.delete(step.key));
    } else if (step.op === 'build') {
      store.index!.buildStep(buildKeys);
    } else {
      const { op: _, ...o } = step;
      read(o);
    }
    assert.equal(store.size, model.size);
  }
  while (!store.index!.buildStep(buildKeys));
  read({});
  read({ reverse: true });
  if (store.size > 0) checkIndex(data, index);
}

describe('the stable index of the IC Store (decision W7)', () => {
  it('answers what the B-tree answers under random writes, deletes and reads, indexed from the first write', () => {
    fc.assert(
      fc.property(fc.oneof(ops<StoreKey>(smallBigKey), ops<StoreKey>(stringKey), ops<StoreKey>(bigKey)), (program) =>
        run([], program, 3),
      ),
      { numRuns: 300 },
    );
  });

  it('builds the index of a store written without one in steps, while it is written and read', () => {
    const initial = fc.uniqueArray(fc.tuple(smallBigKey, fc.nat({ max: 1000 })), {
      selector: ([k]) => k,
      maxLength: 60,
      size: 'max',
    });
    fc.assert(
      fc.property(initial, ops<StoreKey>(smallBigKey), fc.integer({ min: 1, max: 7 }), (init, program, buildKeys) =>
        run(init as Array<[StoreKey, number]>, program, buildKeys),
      ),
      { numRuns: 300 },
    );
  });

  it('node heights come from the key alone and halve per level', () => {
    const index = new SkipIndex(byteMap().map, byteMap().map);
    assert.ok(index);
    const counts = new Array<number>(33).fill(0);
    for (let i = 0; i < 100_000; i++) counts[levelOfKey(BigInt(i))]!++;
    // ≈ 50,000 at level 1, 25,000 at 2, …: within 10 % for the first levels.
    for (let l = 1; l <= 5; l++)
      assert.ok(Math.abs(counts[l]! - 100_000 / 2 ** l) < 10_000 / 2 ** l, `level ${l}: ${counts[l]}`);
  });

  it('at 100,000 entries a page at the start or the end costs O(log n) point reads and no positional read, before and after the build', () => {
    const n = 100_000;
    const data = unindexed(Array.from({ length: n }, (_, i): [bigint, number] => [BigInt(i) * 2n, i]));
    const index = byteMap();
    const store = new IndexedStore<bigint, number>(data.map, index.map);
    // Before the build: positional reads (decision W5), a skip in proportion to the position.
    const page = (from: bigint | undefined, reverse = false) => {
      data.cost.gets = index.cost.gets = data.cost.positional = data.cost.skipped = 0;
      const got = [...store.entries({ ...(from !== undefined && { from }), limit: 10, reverse })].map(([k]) => k);
      return {
        got,
        gets: data.cost.gets + index.cost.gets,
        positional: data.cost.positional,
        skipped: data.cost.skipped,
      };
    };
    const endBefore = page(2n * BigInt(n) - 21n);
    assert.ok(endBefore.skipped > n, `${endBefore.skipped} skipped before the build`);
    let steps = 0;
    while (!store.index!.buildStep(2_000)) steps++;
    assert.equal(steps, n / 2_000);
    const reads = [
      page(undefined),
      page(1n),
      page(2n * BigInt(n) - 21n),
      page(undefined, true),
      page(2n * BigInt(n) - 1n, true),
      page(101n, true),
    ];
    assert.deepEqual(reads[2]!.got, endBefore.got);
    assert.deepEqual(
      reads[1]!.got,
      Array.from({ length: 10 }, (_, i) => 2n + 2n * BigInt(i)),
    );
    assert.deepEqual(
      reads[4]!.got,
      Array.from({ length: 10 }, (_, i) => 2n * BigInt(n) - 2n - 2n * BigInt(i)),
    );
    for (const r of reads) {
      assert.equal(r.positional, 0);
      // 10 values and ≤ 10 nodes, plus the search: ≈ 2 log2 n = 34 nodes in expectation.
      assert.ok(r.gets <= 10 + 10 + 60, `${r.gets} point reads`);
    }
    // A write in the middle: O(log n) reads and a few writes.
    index.cost.gets = index.cost.writes = 0;
    store.set(100_001n, 1);
    assert.ok(
      index.cost.gets <= 60 && index.cost.writes <= 40,
      `${index.cost.gets} reads, ${index.cost.writes} writes`,
    );
    checkIndex(data, index);
  });
});

function levelOfKey(k: bigint): number {
  return levelOf(sortableKey.toBytes(k));
}
