// Decision P8: what a crash leaves to replay is bounded by the compaction size,
// which by default follows the snapshot (an eighth of it, at least 16 MiB), and replay lays the log's
// writes over a store the snapshot holds without decoding the snapshot's part at open.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { serialize } from 'node:v8';
import { crc32 } from 'node:zlib';
import { CorruptStateError, EmbeddedHost } from '../src/embedded/index.ts';
import { scratchDirs } from './harness.ts';

const { tempDir } = scratchDirs('restart-bound');

const frame = (value: unknown, body: Buffer = serialize(value)): Buffer => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length);
  head.writeUInt32BE(crc32(body), 4);
  return Buffer.concat([head, body]);
};
/** A version 3 snapshot at `seq` of [store, frames of entries] (each frame a list, or raw bytes). */
function writeSnapshot(dir: string, seq: number, stores: Array<[string, Array<unknown[] | Buffer>]>): void {
  mkdirSync(dir, { recursive: true });
  const version = Buffer.alloc(4);
  version.writeUInt32BE(3);
  const parts: Buffer[] = [Buffer.from('DOMDAO-SNAPSHOT\n', 'latin1'), version, frame({ seq, stores: stores.length })];
  let count = 0;
  for (const [name, frames] of stores) {
    for (const f of frames) {
      parts.push(frame(name), Buffer.isBuffer(f) ? frame(undefined, f) : frame(f));
      count += 1;
    }
  }
  parts.push(frame({ end: count }));
  writeFileSync(join(dir, 'snapshot.bin'), Buffer.concat(parts), { mode: 0o600 });
}
const logLine = (seq: number, ops: unknown[]) => `${JSON.stringify({ seq, ops })}\n`;

describe('restart after a crash (decision P8)', () => {
  it('the log is laid over a store the snapshot holds on its first use, not at open', () => {
    const dir = tempDir();
    writeSnapshot(dir, 4, [
      [
        'user/n',
        [
          [
            ['a', 1],
            ['b', 2],
            ['c', 3],
          ],
        ],
      ],
      ['governance/votes', [Buffer.from('not a v8 value')]], // checksummed, undecodable: only its first use can tell
    ]);
    writeFileSync(
      join(dir, 'wal.jsonl'),
      logLine(5, [
        ['user/n', 'b', 20],
        ['user/n', 'c'],
        ['governance/votes', 'x', 1],
      ]) +
        logLine(6, [
          ['user/n', 'd', 4],
          ['user/n', 'b', 21],
        ]),
    );
    const host = EmbeddedHost.open({ dir }); // opens although the votes store's frame cannot be decoded
    assert.deepEqual(
      [...host.store<string, number>('user', 'n').entries()],
      [
        ['a', 1],
        ['b', 21],
        ['d', 4],
      ],
    );
    assert.throws(() => host.store('governance', 'votes').get('x'), CorruptStateError);
    host.close();
  });

  it('a compaction before the store is used writes the overlaid entries', async () => {
    const dir = tempDir();
    writeSnapshot(dir, 1, [
      [
        'user/n',
        [
          [
            ['a', 1],
            ['b', 2],
          ],
        ],
      ],
    ]);
    writeFileSync(
      join(dir, 'wal.jsonl'),
      logLine(2, [
        ['user/n', 'a'],
        ['user/n', 'c', 3],
      ]),
    );
    const host = EmbeddedHost.open({ dir });
    await host.compact();
    host.close();
    const again = EmbeddedHost.open({ dir });
    assert.deepEqual(
      [...again.store<string, number>('user', 'n').entries()],
      [
        ['b', 2],
        ['c', 3],
      ],
    );
    again.close();
  });

  it('by default the log is compacted past an eighth of the snapshot, and never below 16 MiB', async () => {
    const MiB = 2 ** 20;
    const blob = (mib: number) => new Uint8Array(mib * MiB).fill(7);
    /** Writes `kept` (a log still below the size: no compaction), then `more` (past it: one compaction). */
    const compactsAfter = async (
      dir: string,
      kept: [key: number, mib: number],
      more: [key: number, mib: number],
      labels: [string, string],
    ) => {
      let installed = 0;
      const host = EmbeddedHost.open({
        dir,
        fsync: false,
        compactionProbe: (stage) => void (stage === 'installed' && installed++),
      });
      const s = host.store<number, Uint8Array>('user', 'blobs');
      await host.update('user', () => s.set(kept[0], blob(kept[1])));
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(installed, 0, labels[0]);
      await host.update('user', () => s.set(more[0], blob(more[1])));
      for (let i = 0; i < 300 && installed === 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(installed, 1, labels[1]);
      host.close();
    };
    // Without a snapshot the floor (16 MiB) holds: 12 MiB of log is kept, 18 MiB is compacted.
    await compactsAfter(tempDir(), [1, 6], [2, 3], ['12 MiB of log: below 16 MiB', '18 MiB of log: compacted']);
    // With a 144 MiB snapshot the size is 18 MiB: 17 MiB of log is kept (above the floor), 21 MiB is compacted.
    const big = tempDir();
    writeSnapshot(big, 1, [['user/blobs', Array.from({ length: 12 }, (_, i) => [[i, blob(12)]])]]);
    await compactsAfter(
      big,
      [100, 8.5],
      [101, 2],
      ['17 MiB of log beside a 144 MiB snapshot: kept', '21 MiB of log: compacted'],
    );
    assert.ok(readdirSync(big).includes('snapshot.bin'));
  });
});
