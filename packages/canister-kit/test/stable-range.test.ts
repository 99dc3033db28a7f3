// Decision W5: range reads of the IC Store straight from the StableBTreeMap's positional reads. The
// algorithm runs here over a stand-in with the same positional interface (a sorted array that counts
// the entries it skips and reads, as the map's linear skip costs), checked against the embedded
// Store's B-tree for every option, and bounded in what it reads.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { newBTree, orderedEntries, type EntriesOptions } from '../src/btree.ts';
import { positionalEntries, type PositionalMap } from '../src/azle/stable-range.ts';
import type { StoreKey } from '../src/store.ts';

function positional<K extends StoreKey, V>(entries: Array<[K, V]>) {
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const cost = { skipped: 0, read: 0, calls: 0 };
  const map: PositionalMap<K, V> = {
    len: () => BigInt(sorted.length),
    keys: (start, n) => {
      cost.calls++;
      cost.skipped += start;
      const out = sorted.slice(start, start + n).map(([k]) => k);
      cost.read += out.length;
      return out;
    },
    items: (start, n) => {
      cost.calls++;
      cost.skipped += start;
      const out = sorted.slice(start, start + n);
      cost.read += out.length;
      return out;
    },
  };
  return { map, cost };
}

const keysArb = fc.oneof(
  fc.uniqueArray(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), { maxLength: 300 }),
  fc.uniqueArray(fc.string({ unit: fc.constantFrom('a', 'b', 'c', '|', '0', '9'), maxLength: 6 }), { maxLength: 300 }),
);

describe('range reads from stable memory (decision W5)', () => {
  it('answer exactly what the B-tree answers, for every from, limit and direction', () => {
    fc.assert(
      fc.property(
        keysArb,
        fc.nat({ max: 400 }),
        fc.option(fc.nat({ max: 400 }), { nil: undefined }),
        fc.boolean(),
        fc.boolean(),
        (keys, fromIndex, limit, reverse, exact) => {
          const entries = (keys as StoreKey[]).map((k, i): [StoreKey, number] => [k, i]);
          const tree = newBTree<StoreKey, number>();
          for (const [k, v] of entries) tree.set(k, v);
          // `from` is one of the keys, or (exact false) a key that is not in the store.
          const pool = keys as StoreKey[];
          let from: StoreKey | undefined;
          if (pool.length > 0 && fromIndex < 380) {
            const k = pool[fromIndex % pool.length]!;
            from = exact ? k : typeof k === 'bigint' ? k + 1n : `${k}b`;
          }
          const options: EntriesOptions<StoreKey> = {
            ...(from !== undefined && { from }),
            ...(limit !== undefined && { limit }),
            reverse,
          };
          const { map } = positional(entries);
          assert.deepEqual([...positionalEntries(map, options)], [...orderedEntries(tree, options)]);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a short page from the middle of 100,000 entries reads a few dozen entries and skips O(log n) times', () => {
    const n = 100_000;
    const { map, cost } = positional(Array.from({ length: n }, (_, i): [bigint, number] => [BigInt(i) * 2n, i]));
    const page = [...positionalEntries(map, { from: 123_457n, limit: 10 })];
    assert.deepEqual(
      page.map(([k]) => k),
      Array.from({ length: 10 }, (_, i) => 123_458n + BigInt(i) * 2n),
    );
    assert.ok(cost.calls <= 20, `${cost.calls} positional calls`);
    assert.ok(cost.read <= 50, `${cost.read} entries read`);
    // Each probe skips at most n entries: the binary search's cost is bounded by calls × n.
    assert.ok(cost.skipped <= cost.calls * n);
  });

  it('a full scan reads each entry once, in batches that double from one (a linear number of entries skipped)', () => {
    const n = 100_000;
    const { map, cost } = positional(Array.from({ length: n }, (_, i): [bigint, number] => [BigInt(i), i]));
    let count = 0;
    for (const _ of positionalEntries(map, {})) count++;
    assert.equal(count, n);
    assert.equal(cost.read, n);
    assert.ok(cost.skipped <= 2 * n, `${cost.skipped} entries skipped`);
    assert.ok(cost.calls <= 20, `${cost.calls} calls`);
  });

  it('maxStoredBytes stops before the entry that would pass it, without decoding that entry; the first always comes', () => {
    const { map } = positional(
      Array.from({ length: 10 }, (_, i): [bigint, Uint8Array] => [BigInt(i), new Uint8Array(100 * (i + 1))]),
    );
    const decoded: bigint[] = [];
    const read = (options: EntriesOptions<bigint>) =>
      [
        ...positionalEntries(
          map,
          options,
          (b: Uint8Array) => {
            decoded.push(BigInt(b.length));
            return b.length;
          },
          (b) => b.length,
        ),
      ].map(([k]) => k);
    assert.deepEqual(read({ maxStoredBytes: 650 }), [0n, 1n, 2n], '100 + 200 + 300 fit in 650, 400 more would not');
    assert.deepEqual(decoded, [100n, 200n, 300n], 'the fourth entry was fetched but never decoded');
    assert.deepEqual(read({ from: 9n, maxStoredBytes: 10 }), [9n], 'one entry even above the budget');
    assert.deepEqual(read({ reverse: true, maxStoredBytes: 1_900 }), [9n, 8n], '1,000 + 900');
  });
});
