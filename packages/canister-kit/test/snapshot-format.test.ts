// Decisions P2 and P5: the snapshot is a versioned binary file (v8.serialize
// frames, no reviver); state written by earlier releases (snapshot.json version 1, snapshot.bin version
// 2) is still read.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { deserialize, serialize } from 'node:v8';
import { crc32 } from 'node:zlib';
import { encode } from '../src/index.ts';
import { CorruptStateError, EmbeddedHost } from '../src/embedded/index.ts';
import { LazyEntries } from '../src/embedded/wal.ts';
import { scratchDirs } from './harness.ts';

const { tempDir } = scratchDirs('snapshot-format');

function frame(value: unknown): Buffer {
  const body = serialize(value);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length);
  head.writeUInt32BE(crc32(body), 4);
  return Buffer.concat([head, body]);
}

const record = {
  id: 18446744073709551615n,
  proof: new Uint8Array([0, 1, 255]),
  nested: [{ n: -5n, s: 'é', none: null }],
  flag: true,
};

describe('snapshot format (decision P2)', () => {
  it('a version 1 JSON snapshot and its log are read; the next compaction replaces it with snapshot.bin', async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    // What the previous release wrote: snapshot.json at seq 2 and one later record in the log.
    writeFileSync(
      join(dir, 'snapshot.json'),
      encode({ version: 1, seq: 2, stores: { 'governance/proposals': [[1n, record]], 'user/n': [['a', 1]] } }),
      {
        mode: 0o600,
      },
    );
    writeFileSync(join(dir, 'wal.jsonl'), `${encode({ seq: 3, ops: [['user/n', 'b', 2]] })}\n`, { mode: 0o600 });
    const a = EmbeddedHost.open({ dir });
    assert.deepEqual(a.store('governance', 'proposals').get(1n), record);
    assert.deepEqual(
      [...a.store<string, number>('user', 'n').entries()],
      [
        ['a', 1],
        ['b', 2],
      ],
    );
    await a.compact();
    a.close();
    assert.equal(existsSync(join(dir, 'snapshot.json')), false, 'the superseded JSON snapshot is removed');
    assert.equal(readFileSync(join(dir, 'snapshot.bin')).subarray(0, 16).toString('latin1'), 'DOMDAO-SNAPSHOT\n');
    const b = EmbeddedHost.open({ dir });
    assert.deepEqual(
      b.store('governance', 'proposals').get(1n),
      record,
      'bigint, blobs and nesting round-trip in the binary format',
    );
    assert.deepEqual(
      [...b.store<string, number>('user', 'n').entries()],
      [
        ['a', 1],
        ['b', 2],
      ],
    );
    assert.throws(
      () => (b.store<bigint, typeof record>('governance', 'proposals').get(1n)!.nested as unknown[]).push(1),
      TypeError,
      'records from the snapshot are frozen',
    );
    b.close();
  });

  it('decision P5: a version 2 snapshot (one v8.serialize body, the release before) is read', async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    const version = Buffer.alloc(4);
    version.writeUInt32BE(2);
    const body = serialize({
      seq: 4,
      stores: [
        ['governance/proposals', [[1n, record]]],
        ['user/n', [['a', 1]]],
      ],
    });
    writeFileSync(
      join(dir, 'snapshot.bin'),
      Buffer.concat([Buffer.from('DOMDAO-SNAPSHOT\n', 'latin1'), version, body]),
      { mode: 0o600 },
    );
    writeFileSync(join(dir, 'wal.jsonl'), `${encode({ seq: 5, ops: [['user/n', 'b', 2]] })}\n`, { mode: 0o600 });
    const a = EmbeddedHost.open({ dir });
    assert.deepEqual(a.store('governance', 'proposals').get(1n), record);
    assert.deepEqual(
      [...a.store<string, number>('user', 'n').entries()],
      [
        ['a', 1],
        ['b', 2],
      ],
    );
    await a.compact();
    a.close();
    assert.equal(readFileSync(join(dir, 'snapshot.bin')).readUInt32BE(16), 3, 'the next compaction writes version 3');
    const b = EmbeddedHost.open({ dir });
    assert.deepEqual(b.store('governance', 'proposals').get(1n), record);
    assert.deepEqual(
      [...b.store<string, number>('user', 'n').entries()],
      [
        ['a', 1],
        ['b', 2],
      ],
    );
    b.close();
  });

  it('a binary snapshot is preferred to a leftover JSON one (a crash before the old file was removed)', async () => {
    const dir = tempDir();
    const a = EmbeddedHost.open({ dir });
    await a.update('user', () => a.store<string, number>('user', 'n').set('x', 2));
    await a.compact();
    a.close();
    writeFileSync(join(dir, 'snapshot.json'), encode({ version: 1, seq: 1, stores: { 'user/n': [['x', 1]] } }));
    const b = EmbeddedHost.open({ dir });
    assert.equal(b.store<string, number>('user', 'n').get('x'), 2);
    b.close();
  });

  it('an unknown version or a damaged snapshot stops the host with CorruptStateError', async () => {
    const dir = tempDir();
    const a = EmbeddedHost.open({ dir });
    await a.update('user', () => a.store<string, number>('user', 'n').set('x', 1));
    await a.compact();
    a.close();
    const good = readFileSync(join(dir, 'snapshot.bin'));
    const later = Buffer.from(good);
    later.writeUInt32BE(4, 16);
    writeFileSync(join(dir, 'snapshot.bin'), later);
    assert.throws(
      () => EmbeddedHost.open({ dir }),
      (e: Error) => e instanceof CorruptStateError && /unknown snapshot version 4/.test(e.message),
    );
    writeFileSync(join(dir, 'snapshot.bin'), good.subarray(0, good.length - 5));
    assert.throws(
      () => EmbeddedHost.open({ dir }),
      (e: Error) => e instanceof CorruptStateError && /ends early/.test(e.message),
    );
    // Its end frame counts the slices: a snapshot missing one is refused, not read short.
    writeFileSync(
      join(dir, 'snapshot.bin'),
      Buffer.concat([good.subarray(0, 20), frame({ seq: 1, stores: 1 }), frame({ end: 1 })]),
    );
    assert.throws(
      () => EmbeddedHost.open({ dir }),
      (e: Error) => e instanceof CorruptStateError && /unreadable snapshot/.test(e.message),
    );
    // Decision P6: every frame is checksummed, so damage is found at open even in entries decoded later.
    const flipped = Buffer.from(good);
    flipped[flipped.length - 1] = flipped[flipped.length - 1]! ^ 0xff; // inside the last frame's body
    writeFileSync(join(dir, 'snapshot.bin'), flipped);
    assert.throws(
      () => EmbeddedHost.open({ dir }),
      (e: Error) => e instanceof CorruptStateError && /checksum/.test(e.message),
    );
    writeFileSync(join(dir, 'snapshot.bin'), Buffer.from('{"version":1}'));
    assert.throws(() => EmbeddedHost.open({ dir }), /not a snapshot/);
  });

  it('decision P6: the entries of a store are decoded on its first use; other stores open without them', async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    const version = Buffer.alloc(4);
    version.writeUInt32BE(3);
    // A checksummed entries frame whose body is not a v8 value: found only when that store is used.
    const junk = Buffer.from('not a v8 value');
    const head = Buffer.alloc(8);
    head.writeUInt32BE(junk.length);
    head.writeUInt32BE(crc32(junk), 4);
    writeFileSync(
      join(dir, 'snapshot.bin'),
      Buffer.concat([
        Buffer.from('DOMDAO-SNAPSHOT\n', 'latin1'),
        version,
        frame({ seq: 2, stores: 2 }),
        frame('user/n'),
        frame([['a', 1]]),
        frame('governance/proposals'),
        head,
        junk,
        frame({ end: 2 }),
      ]),
      { mode: 0o600 },
    );
    const a = EmbeddedHost.open({ dir });
    assert.equal(a.store<string, number>('user', 'n').get('a'), 1);
    assert.throws(() => a.store('governance', 'proposals').get(1n), CorruptStateError);
    a.close();
  });

  it('decision P6: snapshot frames are views into the file at open, copied out later unless their store was used', () => {
    const frames = Buffer.concat([frame([['a', 1]]), frame([['b', 2]]), frame([['c', 3]])]);
    const file = Buffer.alloc(frames.length); // its own memory, as a file read is (small Buffers share a pool)
    frames.copy(file);
    const views = [0, 1, 2].map((i) => {
      let at = 0;
      for (let k = 0; k < i; k++) at += 8 + file.readUInt32BE(at);
      return file.subarray(at + 8, at + 8 + file.readUInt32BE(at));
    });
    const decode = (f: Buffer) => deserialize(f) as Array<[string, number]>;
    const lazy = new LazyEntries([...views], decode);
    assert.ok(
      lazy.frames.every((f) => f.buffer === file.buffer),
      'at open: views, nothing copied',
    );
    const first = lazy.detach(1); // at least one frame per call
    assert.equal(first, views[0]!.length);
    assert.notEqual(lazy.frames[0]!.buffer, file.buffer);
    assert.equal(lazy.frames[1]!.buffer, file.buffer);
    assert.equal(lazy.detach(1e9), views[1]!.length + views[2]!.length);
    assert.equal(lazy.detach(1e9), 0, 'nothing left');
    assert.ok(lazy.frames.every((f) => f.buffer !== file.buffer));
    assert.deepEqual(
      [...lazy],
      [
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ],
    );
    const used = new LazyEntries([...views], decode);
    assert.deepEqual(used.all(), [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    assert.equal(used.detach(1e9), 0, 'a store built from its frames drops them: nothing to copy');
  });

  it('decision P6: a byte array read from the snapshot holds its own bytes, not the file’s', async () => {
    const dir = tempDir();
    const first = EmbeddedHost.open({ dir });
    await first.update('ledger', () => {
      const s = first.store<number, { memo: Uint8Array; text: string }>('ledger', 'blocks');
      for (let i = 0; i < 3_000; i++) s.set(i, { memo: new Uint8Array(32).fill(i % 256), text: 'x'.repeat(400) });
    });
    await first.compact();
    first.close();
    const host = EmbeddedHost.open({ dir });
    const memo = host.store<number, { memo: Uint8Array }>('ledger', 'blocks').get(7)!.memo;
    assert.deepEqual([...memo], new Array(32).fill(7));
    assert.ok(
      memo.buffer.byteLength < 64 * 1024,
      `its memory is ${memo.buffer.byteLength} bytes, the snapshot file is ${readFileSync(join(dir, 'snapshot.bin')).length}`,
    );
    host.close();
  });

  it('decision P6: after the frames of unused stores are copied out (a second after open), reads and compactions see the same state', async () => {
    const dir = tempDir();
    const first = EmbeddedHost.open({ dir });
    await first.update('user', () => {
      for (let i = 0; i < 5_000; i++)
        first.store<number, { i: number; s: string }>('user', 'n').set(i, { i, s: `entry ${i}` });
      first.store<string, number>('user', 'm').set('x', 1);
    });
    await first.compact();
    first.close();
    const host = EmbeddedHost.open({ dir });
    const m = host.store<string, number>('user', 'm');
    assert.equal(m.get('x'), 1); // used at once; user/n stays unused
    await new Promise((r) => setTimeout(r, 1_300));
    await host.update('user', () => m.set('y', 2));
    await host.compact(); // copies user/n's (now detached) frames
    assert.equal(host.store<number, { i: number }>('user', 'n').get(4_999)?.i, 4_999);
    host.close();
    const again = EmbeddedHost.open({ dir });
    assert.equal(again.store<number, unknown>('user', 'n').size, 5_000);
    assert.deepEqual(
      [...again.store<string, number>('user', 'm').entries()],
      [
        ['x', 1],
        ['y', 2],
      ],
    );
    again.close();
  });
});
