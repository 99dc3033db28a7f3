// Decision P1: every acknowledged update of the embedded host is fsynced before its
// answer, with group commit. The log writer is instrumented through `fsyncProbe`, which can delay an
// fsync or observe it but never skip it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EmbeddedHost } from '../src/embedded/index.ts';
import { scratchDirs } from './harness.ts';

const { tempDir } = scratchDirs('group-commit');

/** A gate on each fsync: the test releases them one by one and sees what each made durable. */
function gatedFsync() {
  const gates: Array<() => void> = [];
  const durable: number[] = [];
  let arrived: () => void = () => undefined;
  const probe = {
    before: () =>
      new Promise<void>((resolve) => {
        gates.push(resolve);
        arrived();
      }),
    after: (seq: number) => durable.push(seq),
  };
  const nextFsync = () => (gates.length > 0 ? Promise.resolve() : new Promise<void>((r) => (arrived = r)));
  const release = () => gates.shift()!();
  return { probe, gates, durable, nextFsync, release };
}
const settledSoon = async (p: Promise<unknown>) => {
  let settled = false;
  void p.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  return settled;
};

describe('durable by default: group commit (decision P1)', () => {
  it('an update answers only after the fsync that covers its record completed', async () => {
    const dir = tempDir();
    const f = gatedFsync();
    const host = EmbeddedHost.open({ dir, fsyncProbe: f.probe });
    const s = host.store<string, number>('user', 'n');
    const answer = host.update('user', () => s.set('a', 1));
    await f.nextFsync();
    assert.equal(await settledSoon(answer), false, 'no answer while its fsync is in flight');
    // The record is already written (a crash now loses only an unacknowledged update).
    assert.match(readFileSync(join(dir, 'wal.jsonl'), 'utf8'), /"a",1/);
    f.release();
    await answer;
    assert.deepEqual(f.durable, [1]);
    host.close();
  });

  it('updates arriving while an fsync is in flight share the next ones, across canisters of one host; a group as large as the records syncing ahead of it starts its own at once (decision P12)', async () => {
    const dir = tempDir();
    const f = gatedFsync();
    const host = EmbeddedHost.open({ dir, fsyncProbe: f.probe });
    const a = host.store<number, number>('governance', 'votes');
    const b = host.store<number, number>('ledger', 'balances');
    const first = host.update('governance', () => a.set(0, 0));
    await f.nextFsync(); // fsync #1 (record 1) in flight
    const group = [
      ...Array.from({ length: 20 }, (_, i) => host.update('governance', () => a.set(i + 1, i))),
      ...Array.from({ length: 20 }, (_, i) => host.update('ledger', () => b.set(i, i))),
    ];
    // Same-canister updates are not held behind the pending fsync: all 40 are in the log's queue.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    assert.equal(host.store<number, number>('governance', 'votes').size, 21);
    assert.equal(await settledSoon(Promise.race(group)), false);
    // P12: while record 1 syncs, groups split off the 40 as they grew sync beside it, up to the three
    // fsyncs in flight (P9); before P12 the 40 waited for the end of the turn and took one fsync.
    assert.equal(f.gates.length, 3);
    f.release();
    await first;
    assert.equal(await settledSoon(Promise.race(group)), false, 'each update waits for the fsync of its own group');
    let answered = false;
    void Promise.all(group).then(() => (answered = true));
    while (!answered) {
      if (f.gates.length > 0) f.release();
      await new Promise((r) => setImmediate(r));
    }
    // Overlapping fsyncs may finish in any order; each covers every record written before it started (P9).
    assert.equal(Math.max(...f.durable), 41);
    assert.ok(f.durable.length <= 5, `41 updates share a few fsyncs: ${f.durable.join(', ')}`);
    host.close();
  });

  it('a failed update that kept writes (a commit point) answers its error only once they are durable', async () => {
    const f = gatedFsync();
    const host = EmbeddedHost.open({ dir: tempDir(), fsyncProbe: f.probe });
    const s = host.store<string, number>('treasury', 'intents');
    const call = host.update('treasury', async () => {
      s.set('intent', 1);
      host.commitPoint();
      await Promise.resolve();
      throw new Error('rejected');
    });
    await f.nextFsync();
    assert.equal(await settledSoon(call), false);
    f.release();
    await assert.rejects(call, /rejected/);
    assert.deepEqual(f.durable, [1]);
    host.close();
  });

  it('fsync: false (the documented knob) answers after the write, without syncing', async () => {
    let fsyncs = 0;
    const dir = tempDir();
    const host = EmbeddedHost.open({ dir, fsync: false, fsyncProbe: { after: () => fsyncs++ } });
    await host.update('user', () => host.store<string, number>('user', 'n').set('a', 1));
    assert.match(readFileSync(join(dir, 'wal.jsonl'), 'utf8'), /"a",1/);
    assert.equal(fsyncs, 0);
    host.close();
  });

  it('decision P5: a compaction closes the log, whose records (and the directory) are synced before any record of the new log', async () => {
    const dir = tempDir();
    const f = gatedFsync();
    const host = EmbeddedHost.open({ dir, fsyncProbe: f.probe });
    const s = host.store<number, number>('governance', 'votes');
    const first = host.update('governance', () => s.set(0, 0));
    await f.nextFsync();
    const second = host.update('governance', () => s.set(1, 1));
    await new Promise((r) => setImmediate(r));
    const compaction = host.compact(); // closes the log after record 2: its last fsync is the barrier
    await new Promise((r) => setImmediate(r));
    const third = host.update('governance', () => s.set(2, 2)); // the new log's first record
    assert.equal(await settledSoon(third), false);
    assert.equal(f.gates.length, 2, "record 1's fsync and the closed log's last one");
    f.release(); // record 1 durable: a second fsync could start, but not for the new log yet
    await first;
    assert.equal(await settledSoon(third), false);
    assert.equal(f.gates.length, 1, 'only the closed log is syncing');
    f.release();
    await second;
    await f.nextFsync(); // now the new log's
    assert.equal(await settledSoon(third), false);
    f.release();
    await third;
    assert.deepEqual(f.durable, [1, 2, 3], 'durable in sequence order: the closed log, then the new one');
    await compaction;
    host.close();
    const again = EmbeddedHost.open({ dir });
    assert.deepEqual(
      [...again.store<number, number>('governance', 'votes').entries()],
      [
        [0, 0],
        [1, 1],
        [2, 2],
      ],
    );
    again.close();
  });

  it('a process killed (SIGKILL) right after acknowledged updates loses none of them', async () => {
    const dir = tempDir();
    // The child acknowledges each of 200 concurrent updates on stdout as its answer arrives; it is
    // killed at the 100th acknowledgement, while the rest may still be in flight.
    const script = `import { EmbeddedHost } from ${JSON.stringify(new URL('../src/embedded/index.ts', import.meta.url).href)};
const h = EmbeddedHost.open({ dir: process.argv[1] });
const canister = (i) => (i % 2 ? 'governance' : 'ledger');
await Promise.all(Array.from({ length: 200 }, (_, i) => h.update(canister(i), () => h.store(canister(i), 'votes').set(i, i)).then(() => process.stdout.write('ack ' + i + '\\n'))));
setInterval(() => undefined, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const acked: number[] = [];
    let buffer = '';
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) if (line.startsWith('ack ')) acked.push(Number(line.slice(4)));
      if (acked.length >= 100 && child.exitCode === null && !child.killed) child.kill('SIGKILL');
    });
    await once(child, 'exit');
    assert.ok(acked.length >= 100, `the child acknowledged ${acked.length} updates`);
    const host = EmbeddedHost.open({ dir });
    for (const i of acked)
      assert.equal(
        host.store<number, number>(i % 2 ? 'governance' : 'ledger', 'votes').get(i),
        i,
        `acknowledged update ${i} survived`,
      );
    host.close();
  });
});
