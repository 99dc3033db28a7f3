// Decision P10: log line format 2 names the stores each line writes and carries a
// CRC-32, so open checks every line and splits it per store without JSON.parse, and each store's part is
// decoded on the store's first use. Crash images in the new format, old and mixed logs, and a property:
// what lazy replay gives equals what the old format's eager replay gives, and the history itself.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { serialize } from 'node:v8';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { CorruptStateError, EmbeddedHost } from '../src/embedded/index.ts';
import { encodeLine, encodeRecord } from '../src/embedded/record.ts';
import type { Op } from '../src/embedded/wal.ts';
import type { StoreKey } from '../src/store.ts';
import { scratchDirs } from './harness.ts';

const { tempDir, crashImage } = scratchDirs('log-format');

const frame = (value: unknown): Buffer => {
  const body = serialize(value);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length);
  head.writeUInt32BE(crc32(body), 4);
  return Buffer.concat([head, body]);
};
/** A version 3 snapshot at `seq`, one frame of entries per store. */
function writeSnapshot(dir: string, seq: number, stores: Array<[string, Array<[StoreKey, unknown]>]>): void {
  mkdirSync(dir, { recursive: true });
  const version = Buffer.alloc(4);
  version.writeUInt32BE(3);
  const parts: Buffer[] = [Buffer.from('DOMDAO-SNAPSHOT\n', 'latin1'), version, frame({ seq, stores: stores.length })];
  for (const [name, entries] of stores) parts.push(frame(name), frame(entries));
  parts.push(frame({ end: stores.length }));
  writeFileSync(join(dir, 'snapshot.bin'), Buffer.concat(parts), { mode: 0o600 });
}
const v1 = (seq: number, ops: Op[]) => `${encodeRecord(seq, ops)}\n`;
const v2 = (seq: number, ops: Op[]) => `${encodeLine(seq, ops)}\n`;
const entriesOf = (host: EmbeddedHost, canister: string, store: string) => [
  ...host.store<StoreKey, unknown>(canister, store).entries(),
];

describe('log line format 2 (decision P10)', () => {
  it('the host writes format 2 lines: checksummed, split per store', async () => {
    const dir = tempDir();
    const host = EmbeddedHost.open({ dir });
    await host.update('gov', () => {
      host.store<string, number>('gov', 'a').set('x', 1);
      host.store<string, bigint>('gov', 'b').set('y', 2n);
      host.store<string, number>('gov', 'a').set('z', 3);
    });
    host.close();
    const line = readFileSync(join(dir, 'wal.jsonl'), 'utf8').trimEnd();
    assert.equal(
      line,
      encodeLine(1, [
        ['gov/a', 'x', 1],
        ['gov/b', 'y', 2n],
        ['gov/a', 'z', 3],
      ]),
    );
    assert.match(line, /^L2 [0-9a-f]{8} 1\t"gov\/a"\t\[\["x",1\],\["z",3\]\]\t"gov\/b"\t\[\["y",\{"\$n":"2"\}\]\]$/);
    const again = EmbeddedHost.open({ dir });
    assert.deepEqual(entriesOf(again, 'gov', 'a'), [
      ['x', 1],
      ['z', 3],
    ]);
    assert.deepEqual(entriesOf(again, 'gov', 'b'), [['y', 2n]]);
    again.close();
  });

  it('a torn last line is dropped and the log stays appendable; a whole one missing its newline is kept', async () => {
    const dir = tempDir();
    const host = EmbeddedHost.open({ dir });
    const s = host.store<string, number>('user', 'n');
    await host.update('user', () => s.set('kept', 1));
    await host.update('user', () => s.set('torn', 2));
    const image = crashImage(dir);
    host.close();
    const wal = join(image, 'wal.jsonl');
    const bytes = readFileSync(wal);
    const end = bytes.indexOf(0);
    writeFileSync(wal, bytes.subarray(0, end - 5)); // the second line cut short
    const b = EmbeddedHost.open({ dir: image });
    assert.deepEqual(entriesOf(b, 'user', 'n'), [['kept', 1]]);
    await b.update('user', () => b.store<string, number>('user', 'n').set('next', 3));
    b.close();
    writeFileSync(wal, readFileSync(wal, 'utf8').trimEnd()); // the last line's newline missing
    const c = EmbeddedHost.open({ dir: image });
    await c.update('user', () => c.store<string, number>('user', 'n').set('last', 4));
    c.close();
    const d = EmbeddedHost.open({ dir: image });
    assert.deepEqual(entriesOf(d, 'user', 'n'), [
      ['kept', 1],
      ['last', 4],
      ['next', 3],
    ]);
    d.close();
  });

  it('a damaged line before the last is refused at open (its checksum), also in a closed log', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'wal.jsonl'),
      v2(1, [['user/n', 'a', 1]]) + v2(2, [['user/n', 'b', 2]]) + v2(3, [['user/n', 'c', 3]]),
    );
    const text = readFileSync(join(dir, 'wal.jsonl'), 'utf8');
    const at = text.indexOf('"b",2') + 4;
    writeFileSync(join(dir, 'wal.jsonl'), `${text.slice(0, at)}7${text.slice(at + 1)}`); // a 2 became a 7
    assert.throws(
      () => EmbeddedHost.open({ dir }),
      (e: Error) => e instanceof CorruptStateError && /checksum/.test(e.message),
    );

    const closed = tempDir();
    writeFileSync(
      join(closed, 'wal.0000000000000001.jsonl'),
      v2(1, [['user/n', 'a', 1]])
        .replace('"a"', '"q"')
        .trimEnd(),
    ); // last line of a closed log
    writeFileSync(join(closed, 'wal.jsonl'), v2(2, [['user/n', 'b', 2]]));
    assert.throws(() => EmbeddedHost.open({ dir: closed }), CorruptStateError);
  });

  it('a line of an unknown format version is refused, not skipped', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'wal.jsonl'),
      v2(1, [['user/n', 'a', 1]]).replace(/^L2/, 'L3') + v2(2, [['user/n', 'b', 2]]),
    );
    assert.throws(
      () => EmbeddedHost.open({ dir }),
      (e: Error) => e instanceof CorruptStateError && /version 3/.test(e.message),
    );
  });

  it('a line that passes its checksum but does not decode is found at the store’s first use; other stores read', () => {
    const dir = tempDir();
    const rest = `2\t"user/n"\t[["b",2]]\t"user/m"\t[["x",1],oops]`;
    const bad = `L2 ${(crc32(rest) >>> 0).toString(16).padStart(8, '0')} ${rest}\n`;
    writeFileSync(join(dir, 'wal.jsonl'), v2(1, [['user/n', 'a', 1]]) + bad + v2(3, [['user/n', 'c', 3]]));
    const host = EmbeddedHost.open({ dir }); // every checksum holds
    assert.deepEqual(entriesOf(host, 'user', 'n'), [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    assert.throws(() => host.store('user', 'm').get('x'), CorruptStateError);
    host.close();
  });

  it('an old (format 1) log is still replayed, and new lines follow it in the same file', async () => {
    const dir = tempDir();
    writeSnapshot(dir, 1, [['user/n', [['a', 1]]]]);
    writeFileSync(
      join(dir, 'wal.jsonl'),
      v1(2, [
        ['user/n', 'b', 2],
        ['user/m', 'x', 1n],
      ]) + v1(3, [['user/n', 'a']]),
    );
    const host = EmbeddedHost.open({ dir });
    await host.update('user', () => host.store<string, number>('user', 'n').set('c', 3));
    host.close();
    const lines = readFileSync(join(dir, 'wal.jsonl'), 'utf8').trimEnd().split('\n');
    assert.deepEqual(
      lines.map((l) => l[0]),
      ['{', '{', 'L'],
    );
    const again = EmbeddedHost.open({ dir });
    assert.deepEqual(entriesOf(again, 'user', 'n'), [
      ['b', 2],
      ['c', 3],
    ]);
    assert.deepEqual(entriesOf(again, 'user', 'm'), [['x', 1n]]);
    again.close();
  });

  it('closed logs of both formats are replayed in order, with one rising sequence', () => {
    const dir = tempDir();
    writeSnapshot(dir, 2, [['user/n', [['a', 1]]]]);
    writeFileSync(
      join(dir, 'wal.0000000000000004.jsonl'),
      v1(1, [['user/n', 'old', 0]]) + v1(3, [['user/n', 'a', 10]]) + v1(4, [['user/n', 'b', 20]]),
    );
    writeFileSync(
      join(dir, 'wal.0000000000000006.jsonl'),
      v2(5, [
        ['user/n', 'a', 11],
        ['user/m', 'k', 1],
      ]) + v2(6, [['user/n', 'b']]),
    );
    writeFileSync(join(dir, 'wal.jsonl'), v1(7, [['user/m', 'k', 2]]) + v2(8, [['user/n', 'c', 30]]));
    const host = EmbeddedHost.open({ dir });
    assert.deepEqual(entriesOf(host, 'user', 'n'), [
      ['a', 11],
      ['c', 30],
    ]);
    assert.deepEqual(entriesOf(host, 'user', 'm'), [['k', 2]]);
    host.close();
    const gap = tempDir();
    writeFileSync(join(gap, 'wal.0000000000000001.jsonl'), v1(1, [['user/n', 'a', 1]]));
    writeFileSync(join(gap, 'wal.jsonl'), v2(3, [['user/n', 'b', 2]]));
    assert.throws(() => EmbeddedHost.open({ dir: gap }), CorruptStateError);
    const backwards = tempDir();
    writeFileSync(
      join(backwards, 'wal.jsonl'),
      v2(1, [['user/n', 'a', 1]]) + v2(2, [['user/n', 'a', 2]]) + v1(2, [['user/n', 'a', 3]]),
    );
    assert.throws(() => EmbeddedHost.open({ dir: backwards }), CorruptStateError);
  });

  it('a compaction before a store is used writes its pending log parts', async () => {
    const dir = tempDir();
    writeSnapshot(dir, 1, [
      [
        'user/n',
        [
          ['a', 1],
          ['b', 2],
        ],
      ],
    ]);
    writeFileSync(
      join(dir, 'wal.jsonl'),
      v2(2, [
        ['user/n', 'a'],
        ['user/n', 'c', 3],
        ['user/m', 'x', 1],
      ]),
    );
    const host = EmbeddedHost.open({ dir });
    await host.compact();
    host.close();
    assert.deepEqual(readdirSync(dir).sort(), ['snapshot.bin', 'wal.jsonl']);
    const again = EmbeddedHost.open({ dir });
    assert.deepEqual(entriesOf(again, 'user', 'n'), [
      ['b', 2],
      ['c', 3],
    ]);
    assert.deepEqual(entriesOf(again, 'user', 'm'), [['x', 1]]);
    again.close();
  });

  it('a compaction copies the snapshot frames of a store nobody used as they are (decision P5)', async () => {
    const dir = tempDir();
    const big = Array.from({ length: 3_000 }, (_, i): [StoreKey, unknown] => [
      i,
      { n: i, b: new Uint8Array([i % 256]), at: BigInt(i) * 10n ** 12n },
    ]);
    writeSnapshot(dir, 1, [['user/n', big]]);
    const before = readFileSync(join(dir, 'snapshot.bin'));
    const entriesFrame = frame(big);
    assert.ok(before.includes(entriesFrame));
    writeFileSync(join(dir, 'wal.jsonl'), v2(2, [['user/m', 'x', 1]]));
    const host = EmbeddedHost.open({ dir });
    host.store('user', 'n'); // opened, as a core opens its stores, never read
    await host.compact();
    host.close();
    assert.ok(readFileSync(join(dir, 'snapshot.bin')).includes(entriesFrame), 'the same frame, byte for byte');
    const again = EmbeddedHost.open({ dir });
    assert.deepStrictEqual(entriesOf(again, 'user', 'n'), big);
    assert.deepEqual(entriesOf(again, 'user', 'm'), [['x', 1]]);
    again.close();
  });

  it('property: lazy replay of format 2 equals eager replay of format 1 and the history, in any order of first use', async () => {
    const STORES = ['c1/s', 'c1/t', 'c2/u'];
    // One key type per store, as the stores' B-trees expect.
    const keys: Record<string, fc.Arbitrary<StoreKey>> = {
      'c1/s': fc.string({ maxLength: 3 }),
      'c1/t': fc.integer({ min: -5, max: 5 }),
      'c2/u': fc.bigInt({ min: -3n, max: 3n }),
    };
    const value = fc.oneof(
      fc.integer(),
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
      fc.uint8Array({ maxLength: 4 }),
      fc.constant(null),
      fc
        .record({ n: fc.integer(), tags: fc.array(fc.string({ maxLength: 2 }), { maxLength: 2 }) })
        .map((r) => ({ ...r })),
    );
    const op: fc.Arbitrary<Op> = fc
      .constantFrom(...STORES)
      .chain((store) =>
        fc
          .oneof(fc.tuple(fc.constant(store), keys[store]!, value), fc.tuple(fc.constant(store), keys[store]!))
          .map((t) => t as Op),
      );
    const update = fc.array(op, { minLength: 1, maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(keys['c1/s']!, value), { maxLength: 6 }),
        fc.array(update, { minLength: 1, maxLength: 25 }),
        fc.nat(),
        fc.array(fc.boolean(), { minLength: 25, maxLength: 25 }),
        fc.shuffledSubarray(STORES, { minLength: 3, maxLength: 3 }),
        fc.constantFrom('none', 'unopened', 'opened', 'one used'),
        async (base, updates, split, formats, order, compactFirst) => {
          // The history: a snapshot of c1/s at seq 0, then one update per line (each key's last write, as a transaction
          // journals).
          const model = new Map<string, Map<StoreKey, unknown>>(STORES.map((s) => [s, new Map()]));
          for (const [k, v] of base) model.get('c1/s')!.set(k, v);
          const journal = updates.map((ops) => {
            const last = new Map<string, Op>();
            for (const o of ops) last.set(`${o[0]}\u0000${typeof o[1]}:${String(o[1])}`, o);
            const kept = [...last.values()];
            for (const o of kept) {
              if (o.length === 3) model.get(o[0])!.set(o[1], o[2] === undefined ? null : o[2]);
              else model.get(o[0])!.delete(o[1]);
            }
            return kept;
          });
          const cut = split % (journal.length + 1);
          const write = (dir: string, line: (i: number) => (seq: number, ops: Op[]) => string) => {
            writeSnapshot(dir, 0, [['c1/s', [...new Map(base)]]]);
            const text = journal.map((ops, i) => line(i)(i + 1, ops));
            if (cut > 0)
              writeFileSync(join(dir, `wal.${String(cut).padStart(16, '0')}.jsonl`), text.slice(0, cut).join(''));
            writeFileSync(join(dir, 'wal.jsonl'), text.slice(cut).join(''));
          };
          const eagerDir = tempDir();
          write(eagerDir, () => v1);
          const lazyDir = tempDir();
          write(lazyDir, (i) => (formats[i] ? v2 : v1)); // mostly format 2, some lines format 1
          const read = (dir: string, stores: string[]) => {
            const host = EmbeddedHost.open({ dir });
            try {
              return new Map(
                stores.map((s) => {
                  const [c, n] = s.split('/') as [string, string];
                  return [s, new Map(entriesOf(host, c, n))];
                }),
              );
            } finally {
              host.close();
            }
          };
          const eager = read(eagerDir, STORES);
          if (compactFirst !== 'none') {
            // A compaction of stores nobody used (never opened, or opened by a core but not read) must
            // carry their log parts; one used before it is copied from its tree.
            const host = EmbeddedHost.open({ dir: lazyDir });
            if (compactFirst !== 'unopened') for (const s of STORES) host.store(...(s.split('/') as [string, string]));
            if (compactFirst === 'one used') entriesOf(host, ...(order[0]!.split('/') as [string, string]));
            await host.compact();
            host.close();
          }
          const lazy = read(lazyDir, order);
          assert.deepStrictEqual(lazy, eager);
          assert.deepStrictEqual(eager, model);
          rmSync(eagerDir, { recursive: true, force: true });
          rmSync(lazyDir, { recursive: true, force: true });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a crash image of the host’s own log reads back what was answered, store by store', async () => {
    const dir = tempDir();
    const host = EmbeddedHost.open({ dir });
    const a = host.store<number, { n: number; b: Uint8Array }>('gov', 'votes');
    const b = host.store<string, bigint>('gov', 'tallies');
    await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        host.update('gov', () => {
          a.set(i, { n: i, b: new Uint8Array([i & 255]) });
          b.set(`p${i % 7}`, BigInt(i) * 10n ** 20n);
          if (i % 5 === 0) a.delete(i - 1);
        }),
      ),
    );
    const image = crashImage(dir);
    const expectA = [...a.entries()];
    const expectB = [...b.entries()];
    host.close();
    const again = EmbeddedHost.open({ dir: image });
    assert.deepEqual(entriesOf(again, 'gov', 'tallies'), expectB);
    assert.deepEqual(entriesOf(again, 'gov', 'votes'), expectA);
    again.close();
  });
});
