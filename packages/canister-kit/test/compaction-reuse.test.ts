// Decision P15: a compaction copies, from the snapshot in place, every slice whose
// entries are the very records the last compaction wrote at that position (votes and receipts append
// in key order, so most are), and serializes only the others. The snapshot it writes is byte for byte
// the one a compaction serializing everything writes; a slice whose bytes on disk no longer check out
// is serialized again; a restart reads it all back.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EmbeddedHost } from '../src/embedded/index.ts';
import { scratchDirs } from './harness.ts';

const { tempDir } = scratchDirs('compaction-reuse');

type Vote = { n: number; text: string };
const votes = (host: EmbeddedHost) => host.store<number, Vote>('governance', 'votes');

/** The same history on any host: 20 votes, a compaction, 4 appended and vote 10 rewritten, another compaction. */
async function history(
  host: EmbeddedHost,
  stats: Array<{ copied: number; serialized: number }>,
  between?: () => void,
): Promise<void> {
  await host.update('governance', () => {
    for (let i = 1; i <= 20; i++) votes(host).set(i, { n: i, text: `vote ${i}` });
  });
  await host.compact();
  between?.();
  await host.update('governance', () => {
    for (let i = 21; i <= 24; i++) votes(host).set(i, { n: i, text: `vote ${i}` });
    votes(host).set(10, { n: 10, text: 'changed' });
  });
  await host.compact();
  assert.equal(stats.length, 2);
}

describe('decision P15: a compaction copies the slices that did not change', () => {
  it('only the changed and the new slices are serialized, and the snapshot is the one serializing everything writes', async () => {
    const reused: Array<{ copied: number; serialized: number }> = [];
    const a = tempDir();
    const host = EmbeddedHost.open({ dir: a, compactSliceEntries: 4, compactionStats: (s) => reused.push(s) });
    await history(host, reused);
    host.close();
    // Slices of 4: 1–4, 5–8, 13–16 and 17–20 are the records written last time; 9–12 holds the
    // rewritten vote and 21–24 is new. Small stores (the host's own) are serialized each time.
    const votesFirst = reused[0]!;
    assert.equal(votesFirst.copied, 0, 'nothing to copy from on the first compaction after open');
    assert.equal(reused[1]!.copied, 4);

    const full: Array<{ copied: number; serialized: number }> = [];
    const b = tempDir();
    const plain = EmbeddedHost.open({
      dir: b,
      compactSliceEntries: 4,
      reuseSnapshotFrames: false,
      compactionStats: (s) => full.push(s),
    });
    await history(plain, full);
    plain.close();
    assert.equal(full[1]!.copied, 0);
    assert.equal(full[1]!.serialized, reused[1]!.serialized + 4);
    assert.ok(
      readFileSync(join(a, 'snapshot.bin')).equals(readFileSync(join(b, 'snapshot.bin'))),
      'byte for byte the same snapshot',
    );

    const again = EmbeddedHost.open({ dir: a });
    const read = [...votes(again).entries()];
    assert.equal(read.length, 24);
    assert.deepEqual(votes(again).get(10), { n: 10, text: 'changed' });
    assert.deepEqual(votes(again).get(24), { n: 24, text: 'vote 24' });
    again.close();
  });

  it('a slice whose bytes on disk no longer check out is serialized again, and the new snapshot is whole', async () => {
    const stats: Array<{ copied: number; serialized: number }> = [];
    const dir = tempDir();
    const host = EmbeddedHost.open({ dir, compactSliceEntries: 4, compactionStats: (s) => stats.push(s) });
    await history(host, stats, () => {
      // Flip one byte inside the first slice of votes (vote 1's text) in the snapshot in place.
      const file = join(dir, 'snapshot.bin');
      const bytes = readFileSync(file);
      const at = bytes.indexOf(Buffer.from('vote 1', 'latin1'));
      assert.ok(at > 0);
      bytes[at] = bytes[at]! ^ 0x20;
      writeFileSync(file, bytes);
    });
    host.close();
    assert.equal(stats[1]!.copied, 3, 'the damaged slice is not copied');
    const again = EmbeddedHost.open({ dir });
    assert.deepEqual(votes(again).get(1), { n: 1, text: 'vote 1' });
    assert.equal([...votes(again).entries()].length, 24);
    again.close();
  });

  it('a record a core froze only at its top is frozen whole when stored: it cannot change in place behind a copied slice', async () => {
    const host = EmbeddedHost.open({ dir: tempDir() });
    const s = host.store<number, { list: number[] }>('governance', 'lists');
    await host.update('governance', () => s.set(1, Object.freeze({ list: [1] })));
    assert.throws(() => host.query('governance', () => s.get(1)!.list.push(2)), TypeError);
    host.close();
  });

  it('after a restart nothing is copied until one compaction has recorded its slices', async () => {
    const stats: Array<{ copied: number; serialized: number }> = [];
    const dir = tempDir();
    const first = EmbeddedHost.open({ dir, compactSliceEntries: 4 });
    await first.update('governance', () => {
      for (let i = 1; i <= 20; i++) votes(first).set(i, { n: i, text: `vote ${i}` });
    });
    await first.compact();
    first.close();
    const host = EmbeddedHost.open({ dir, compactSliceEntries: 4, compactionStats: (s) => stats.push(s) });
    await host.update('governance', () => votes(host).set(21, { n: 21, text: 'vote 21' }));
    await host.compact();
    await host.update('governance', () => votes(host).set(22, { n: 22, text: 'vote 22' }));
    await host.compact();
    host.close();
    assert.equal(stats[0]!.copied, 0);
    assert.equal(stats[1]!.copied, 5, 'slices 1–20 were written by the compaction before');
    const again = EmbeddedHost.open({ dir });
    assert.equal([...votes(again).entries()].length, 22);
    again.close();
  });
});
