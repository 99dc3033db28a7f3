// Decision P5: compaction runs beside the updates. It closes the log, clones the
// stores copy-on-write and writes the snapshot a slice at a time; whatever moment the process dies
// at, the directory holds everything committed. `compactionProbe` holds a compaction at a stage, and a
// copy of the directory taken there is what a crash at that moment leaves.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CorruptStateError, EmbeddedHost } from '../src/embedded/index.ts';
import { scratchDirs } from './harness.ts';

const { tempDir, crashImage } = scratchDirs('compaction');

/** Holds a compaction at its next `stage` until released. */
function holdAt(stage: 'slice' | 'installed') {
  let release: () => void = () => undefined;
  let reached: () => void = () => undefined;
  const arrived = new Promise<void>((r) => (reached = r));
  let held = false;
  const probe = (s: 'decode' | 'gather' | 'slice' | 'installed') => {
    if (s !== stage || held) return;
    held = true;
    reached();
    return new Promise<void>((r) => (release = r));
  };
  return { probe, arrived, release: () => release() };
}

async function fill(host: EmbeddedHost, n: number, from = 0): Promise<void> {
  const s = host.store<number, { n: number; text: string }>('governance', 'votes');
  for (let i = from; i < from + n; i += 50) {
    await host.update('governance', () => {
      for (let j = i; j < Math.min(i + 50, from + n); j++) s.set(j, { n: j, text: `vote ${j}` });
    });
  }
}

/**
 * Counts turns of the event loop while `work` runs, and the turn at which each `stage` probe came;
 * asserts that the loop ran between any two of them.
 */
function turnProbe(stage: 'decode' | 'gather') {
  let turns = 0;
  const at: number[] = [];
  return {
    at,
    probe: (s: 'decode' | 'gather' | 'slice' | 'installed') => void (s === stage && at.push(turns)),
    async during(work: () => Promise<void>) {
      let ticking = true;
      const tick = () => {
        turns++;
        if (ticking) setImmediate(tick);
      };
      setImmediate(tick);
      await work();
      ticking = false;
      for (let i = 1; i < at.length; i++) assert.ok(at[i]! > at[i - 1]!, 'the event loop ran between two of them');
    },
  };
}
const numbers = (host: EmbeddedHost) =>
  [...host.store<number, { n: number }>('governance', 'votes').entries()].map(([k]) => k);
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('compaction beside the updates (decision P5)', () => {
  it('updates and queries are answered while a compaction is under way, and all are kept', async () => {
    const dir = tempDir();
    const hold = holdAt('slice');
    const host = EmbeddedHost.open({ dir, compactSliceEntries: 100, compactionProbe: hold.probe });
    await fill(host, 1_000);
    const compaction = host.compact();
    await hold.arrived;
    await fill(host, 200, 1_000); // answered (and fsynced) while the snapshot is half written
    assert.equal(
      host.query('governance', () => host.store('governance', 'votes').size),
      1_200,
    );
    hold.release();
    await compaction;
    host.close();
    assert.deepEqual(readdirSync(dir).sort(), ['snapshot.bin', 'wal.jsonl'], 'the closed log is gone');
    const again = EmbeddedHost.open({ dir });
    assert.deepEqual(numbers(again), range(1_200));
    again.close();
  });

  it('a crash in the middle of a compaction: the old snapshot, the closed log and the new log hold everything', async () => {
    const dir = tempDir();
    const first = EmbeddedHost.open({ dir });
    await fill(first, 300);
    await first.compact(); // an older snapshot to start from
    first.close();
    const hold = holdAt('slice');
    const host = EmbeddedHost.open({ dir, compactSliceEntries: 100, compactionProbe: hold.probe });
    await fill(host, 300, 300);
    const compaction = host.compact();
    await hold.arrived;
    await fill(host, 100, 600);
    const image = crashImage(dir);
    assert.ok(
      readdirSync(image).some((f) => /^wal\.\d+\.jsonl$/.test(f)),
      'a closed log is on disk',
    );
    assert.ok(
      readdirSync(image).some((f) => f.endsWith('.tmp')),
      'the unfinished snapshot is on disk',
    );
    hold.release();
    await compaction;
    host.close();
    const restarted = EmbeddedHost.open({ dir: image });
    assert.deepEqual(numbers(restarted), range(700));
    assert.ok(!readdirSync(image).some((f) => f.endsWith('.tmp')), 'the unfinished snapshot is removed at open');
    // The next compaction takes the closed log with it.
    await restarted.compact();
    assert.ok(!readdirSync(image).some((f) => /^wal\.\d+\.jsonl$/.test(f)));
    restarted.close();
    const again = EmbeddedHost.open({ dir: image });
    assert.deepEqual(numbers(again), range(700));
    again.close();
  });

  it('a crash after the new snapshot is in place but before the closed log is deleted: its records are skipped', async () => {
    const dir = tempDir();
    const hold = holdAt('installed');
    const host = EmbeddedHost.open({ dir, compactionProbe: hold.probe });
    await fill(host, 400);
    const compaction = host.compact();
    await hold.arrived;
    await fill(host, 50, 400);
    const image = crashImage(dir);
    assert.ok(readdirSync(image).some((f) => /^wal\.\d+\.jsonl$/.test(f)));
    hold.release();
    await compaction;
    host.close();
    const restarted = EmbeddedHost.open({ dir: image });
    assert.deepEqual(numbers(restarted), range(450));
    restarted.close();
  });

  it('the snapshot holds what the log holds: writes of an update still under way are left out (a later throw undoes them)', async () => {
    const dir = tempDir();
    const host = EmbeddedHost.open({ dir });
    const s = host.store<string, number>('user', 'n');
    await host.update('user', () => s.set('kept', 1));
    let proceed: () => void = () => undefined;
    const gate = new Promise<void>((r) => (proceed = r));
    // An update that writes, awaits (as across an inter-canister call without its commit point), then traps.
    const trapping = host.update('user', async () => {
      s.set('phantom', 2);
      s.set('kept', 99);
      await gate;
      throw new Error('trap');
    });
    await new Promise((r) => setImmediate(r));
    const compaction = host.compact();
    await new Promise((r) => setImmediate(r));
    proceed();
    await assert.rejects(trapping, /trap/);
    await compaction;
    const image = crashImage(dir);
    host.close();
    const restarted = EmbeddedHost.open({ dir: image });
    assert.deepEqual([...restarted.store<string, number>('user', 'n').entries()], [['kept', 1]]);
    restarted.close();
  });

  it('compactions started by the log size keep the directory to one snapshot and one log', async () => {
    const dir = tempDir();
    const errors: Error[] = [];
    const host = EmbeddedHost.open({
      dir,
      compactBytes: 20_000,
      compactSliceEntries: 64,
      onCompactionError: (e) => errors.push(e),
    });
    await fill(host, 3_000);
    await host.compact(); // and whatever was started by size has finished
    host.close();
    assert.deepEqual(errors, []);
    assert.deepEqual(readdirSync(dir).sort(), ['snapshot.bin', 'wal.jsonl']);
    const again = EmbeddedHost.open({ dir });
    assert.deepEqual(numbers(again), range(3_000));
    again.close();
  });

  it('a compaction that fails is reported; the log keeps every update and a later one succeeds', async () => {
    const dir = tempDir();
    const errors: Error[] = [];
    const host = EmbeddedHost.open({ dir, compactBytes: 5_000, onCompactionError: (e) => errors.push(e) });
    mkdirSync(join(dir, 'snapshot.bin')); // the snapshot cannot be put in place
    writeFileSync(join(dir, 'snapshot.bin', 'x'), '');
    await fill(host, 500);
    await assert.rejects(host.compact());
    assert.ok(errors.length > 0, 'the size-started compaction reported its failure');
    rmSync(join(dir, 'snapshot.bin'), { recursive: true });
    await fill(host, 100, 500);
    await host.compact();
    host.close();
    assert.deepEqual(readdirSync(dir).sort(), ['snapshot.bin', 'wal.jsonl']);
    const again = EmbeddedHost.open({ dir });
    assert.deepEqual(numbers(again), range(600));
    again.close();
  });

  it('closing the host in the middle of a compaction leaves nothing half written and loses nothing', async () => {
    const dir = tempDir();
    const hold = holdAt('slice');
    const host = EmbeddedHost.open({ dir, compactSliceEntries: 10, compactionProbe: hold.probe });
    await fill(host, 200);
    const compaction = host.compact();
    await hold.arrived;
    host.close();
    hold.release();
    await assert.rejects(compaction, /closed/);
    assert.ok(!readdirSync(dir).some((f) => f.endsWith('.tmp')));
    const again = EmbeddedHost.open({ dir });
    assert.deepEqual(numbers(again), range(200));
    again.close();
  });

  it('after a restart, a store nobody has used is copied from its log a part per turn: the event loop runs meanwhile and the store is not built', async () => {
    const dir = tempDir();
    const first = EmbeddedHost.open({ dir, compactBytes: 1e9 });
    for (let i = 0; i < 4_000; i += 100) {
      await first.update('governance', () => {
        const s = first.store<number, { n: number; text: string }>('governance', 'votes');
        for (let j = i; j < i + 100; j++) s.set(j, { n: j, text: 'a ballot of some length '.repeat(20) });
      });
    }
    first.close(); // ≈2 MiB of log, no snapshot
    const turns = turnProbe('decode');
    const host = EmbeddedHost.open({ dir, compactionProbe: turns.probe });
    const votes = host.store<number, { n: number }>('governance', 'votes'); // opened, as a core opens its stores, not read
    await turns.during(() => host.compact());
    assert.ok(turns.at.length >= 6, `the log was decoded in ${turns.at.length} bounded steps`);
    assert.equal(votes.size, 4_000); // its first use, after the compaction
    host.close();
    const again = EmbeddedHost.open({ dir });
    assert.deepEqual(numbers(again), range(4_000));
    again.close();
  });

  it('decision P17: that decoding also stops at its time budget, so a slow machine does not block longer', async () => {
    const dir = tempDir();
    const first = EmbeddedHost.open({ dir, compactBytes: 1e9 });
    for (let i = 0; i < 40; i++) {
      await first.update('governance', () => {
        const s = first.store<number, { n: number; text: string }>('governance', 'votes');
        for (let j = i * 10; j < i * 10 + 10; j++) s.set(j, { n: j, text: 'a ballot '.repeat(10) });
      });
    }
    first.close(); // 40 records of ≈1.5 KiB: one turn of 256 KiB by size alone
    let steps = 0;
    // A budget of 0 ms stands for a machine on which every record takes the whole budget.
    const host = EmbeddedHost.open({
      dir,
      compactTurnMs: 0,
      compactionProbe: (stage) => void (stage === 'decode' && steps++),
    });
    host.store<number, { n: number }>('governance', 'votes');
    await host.compact();
    assert.ok(steps >= 39, `decoded in ${steps} turns, one per record`);
    host.close();
    const again = EmbeddedHost.open({ dir });
    assert.equal(again.store<number, { n: number }>('governance', 'votes').size, 400);
    again.close();
  });

  it('decision P17: a slice is gathered and serialized across turns once it takes longer than the budget; the snapshot is the same', async () => {
    const dir = tempDir();
    // One slice of 4,000 entries, and a budget of 0 ms: a machine on which every 64 entries take it all.
    const turns = turnProbe('gather');
    const host = EmbeddedHost.open({
      dir,
      fsync: false,
      compactBytes: 1e9,
      compactSliceEntries: 4_000,
      compactTurnMs: 0,
      compactionProbe: turns.probe,
    });
    await fill(host, 4_000);
    await turns.during(() => host.compact());
    // 62 pauses while it is gathered (every 64 entries), one before it is serialized.
    assert.ok(turns.at.length >= 63, `the slice was gathered and serialized in ${turns.at.length} turns`);
    host.close();
    const again = EmbeddedHost.open({ dir });
    assert.deepEqual(numbers(again), range(4_000));
    again.close();
  });

  it('a compaction far behind the log holds new updates until it ends (decision P11); queries go on, nothing is lost', async () => {
    const dir = tempDir();
    const hold = holdAt('slice');
    const compactBytes = 32 * 1024;
    // Unsynced, an update that is not held answers within the turn it was made in.
    const host = EmbeddedHost.open({
      dir,
      fsync: false,
      compactBytes,
      compactSliceEntries: 100,
      compactionProbe: hold.probe,
    });
    await fill(host, 300);
    let compacted = false;
    const compaction = host.compact().then(() => (compacted = true));
    await hold.arrived;
    const turns = (n: number) =>
      new Promise<void>((r) => {
        const step = (k: number) => (k === 0 ? r() : setImmediate(() => step(k - 1)));
        step(n);
      });
    // Beside the held compaction the log grows; updates are answered until it reaches the compaction size.
    let answeredBeside = 0;
    let stalled: Promise<void> | undefined;
    for (let i = 0; i < 1_000 && !stalled; i++) {
      let settled = false;
      const update = fill(host, 50, 300 + i * 50).then(() => void (settled = true));
      await turns(20);
      if (settled) answeredBeside += 50;
      else stalled = update;
    }
    assert.ok(stalled, 'an update is held once the log written beside the compaction reaches its size');
    assert.equal(host.stalling, true);
    assert.ok(
      answeredBeside * 20 >= compactBytes / 2,
      `updates were answered beside the compaction first (${answeredBeside})`,
    );
    assert.equal(
      host.query('governance', () => host.store('governance', 'votes').size),
      300 + answeredBeside,
      'queries are answered during the stall',
    );
    let answeredAfterCompaction = false;
    const later = stalled.then(() => void (answeredAfterCompaction = compacted));
    hold.release();
    await compaction;
    await later;
    assert.ok(answeredAfterCompaction, 'the held update ran once the compaction had ended');
    assert.equal(host.stalling, false);
    host.close();
    const again = EmbeddedHost.open({ dir });
    assert.deepEqual(numbers(again), range(300 + answeredBeside + 50));
    again.close();
  });

  it('decision P11: a compaction queued behind another holds nobody before it has rotated the log', async () => {
    const dir = tempDir();
    const compactBytes = 32 * 1024;
    // Holds the first slice of the next compaction once `holdNext` is set.
    let holdNext: { arrived: () => void; gate: Promise<void> } | undefined;
    const hold = () => {
      let release: () => void = () => undefined;
      let arrived: () => void = () => undefined;
      const reached = new Promise<void>((r) => (arrived = r));
      holdNext = { arrived, gate: new Promise<void>((r) => (release = r)) };
      return { reached, release: () => release() };
    };
    const probe = (stage: 'decode' | 'gather' | 'slice' | 'installed') => {
      if (stage !== 'slice' || !holdNext) return undefined;
      const h = holdNext;
      holdNext = undefined;
      h.arrived();
      return h.gate;
    };
    const host = EmbeddedHost.open({
      dir,
      fsync: false,
      compactBytes,
      compactSliceEntries: 100,
      compactionProbe: probe,
    });
    await fill(host, 300);
    const firstHold = hold();
    const first = host.compact();
    await firstHold.reached;
    for (let n = 300; !host.stalling && n < 300 + 50 * 1_000; n += 50) await fill(host, 50, n);
    assert.equal(host.stalling, true, 'the log beside the held compaction reached its size');
    const second = host.compact(); // queued behind the first
    firstHold.release();
    await first;
    const secondHold = hold();
    // The second has not rotated the log yet: the log beside the first is not beside it.
    assert.equal(host.stalling, false);
    let answered = false;
    const update = host
      .update('governance', () => host.store('governance', 'votes').set(-1, { n: -1, text: 'late' }))
      .then(() => (answered = true));
    await secondHold.reached; // the second compaction has rotated and is held at its first slice
    for (let i = 0; i < 20 && !answered; i++) await new Promise((r) => setImmediate(r));
    assert.ok(answered, 'the update made between the two compactions was not held for the second');
    secondHold.release();
    await second;
    await update;
    host.close();
  });

  it('an update that commits after its host closed is refused and written nowhere, also when the directory was reopened meanwhile', async () => {
    const dir = tempDir();
    const a = EmbeddedHost.open({ dir, fsync: false });
    await fill(a, 10);
    let resume: () => void = () => undefined;
    const late = a.update('governance', async () => {
      await new Promise<void>((r) => (resume = r));
      a.store('governance', 'votes').set(99, { n: 99, text: 'written after close' });
    });
    await new Promise((r) => setImmediate(r));
    a.close();
    const b = EmbeddedHost.open({ dir, fsync: false }); // may get the closed log's file descriptor number
    await fill(b, 10, 10);
    resume();
    await assert.rejects(late, /closed/);
    b.close();
    const c = EmbeddedHost.open({ dir });
    assert.deepEqual(numbers(c), range(20), 'the late write is in no log');
    c.close();
  });

  it('a damaged line in a closed log is refused (only the open log may end torn)', async () => {
    const dir = tempDir();
    const hold = holdAt('slice');
    const host = EmbeddedHost.open({ dir, compactSliceEntries: 10, compactionProbe: hold.probe });
    await fill(host, 100);
    const compaction = host.compact();
    await hold.arrived;
    const image = crashImage(dir);
    hold.release();
    await compaction;
    host.close();
    const closed = readdirSync(image).find((f) => /^wal\.\d+\.jsonl$/.test(f))!;
    writeFileSync(join(image, closed), '{"seq":1,"ops":[["governance/votes",0');
    assert.throws(
      () => EmbeddedHost.open({ dir: image }),
      (e: Error) => e instanceof CorruptStateError && /unreadable record/.test(e.message),
    );
    assert.ok(existsSync(join(image, closed)));
  });
});
