// ARCHITECTURE "Canisters: one core, two hosts", embedded host: atomic update calls, durable state,
// principal-style isolation between canisters (decisions K1–K3, K8).
import assert from 'node:assert/strict';
import { executionAsyncResource } from 'node:async_hooks';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { decode, encode } from '../src/index.ts';
import { CorruptStateError, DirectoryLockedError, EmbeddedHost, ReentrantCallError } from '../src/embedded/index.ts';
import { scratchDirs } from './harness.ts';

const { tempDir } = scratchDirs('embedded-host');

interface Proposal {
  id: bigint;
  title: string;
  tags: string[];
}
const p = (id: bigint, title = `p${id}`): Proposal => ({ id, title, tags: ['a'] });

describe('stores', () => {
  it('iterate in key order from a key, with a limit, forwards and backwards (like StableBTreeMap)', async () => {
    const host = EmbeddedHost.open();
    const s = host.store<bigint, Proposal>('governance', 'proposals');
    await host.update('governance', () => {
      for (const id of [5n, 1n, 10n, 3n, 7n]) s.set(id, p(id));
    });
    assert.deepEqual(
      [...s.entries()].map(([k]) => k),
      [1n, 3n, 5n, 7n, 10n],
    );
    assert.deepEqual(
      [...s.entries({ from: 4n, limit: 2 })].map(([k]) => k),
      [5n, 7n],
    );
    assert.deepEqual(
      [...s.entries({ from: 7n, reverse: true })].map(([k]) => k),
      [7n, 5n, 3n, 1n],
    );
    assert.deepEqual([...s.entries({ limit: 0 })], []);
    assert.equal(s.size, 5);
  });

  it('hand back frozen records: editing one in place throws instead of silently diverging from the IC', async () => {
    const host = EmbeddedHost.open();
    const s = host.store<bigint, Proposal>('governance', 'proposals');
    await host.update('governance', () => s.set(1n, p(1n)));
    assert.throws(() => {
      (s.get(1n) as Proposal).title = 'changed';
    }, TypeError);
    assert.throws(() => (s.get(1n) as Proposal).tags.push('b'), TypeError);
  });

  it('refuse writes outside an update call, inside a query, and into another canister’s state', async () => {
    const host = EmbeddedHost.open();
    const gov = host.store<bigint, Proposal>('governance', 'proposals');
    assert.throws(() => gov.set(1n, p(1n)), /only change inside an update call/);
    assert.throws(() => host.query('governance', () => gov.set(1n, p(1n))), /query may not change state/);
    await assert.rejects(
      host.update('treasury', () => gov.set(1n, p(1n))),
      /treasury may not write governance/,
    );
    assert.equal(gov.size, 0);
  });
});

describe('atomic update calls', () => {
  it('a throw undoes every write of the call: sets, overwrites and deletes', async () => {
    const host = EmbeddedHost.open();
    const s = host.store<bigint, Proposal>('governance', 'proposals');
    await host.update('governance', () => {
      s.set(1n, p(1n, 'one'));
      s.set(2n, p(2n, 'two'));
    });
    await assert.rejects(
      host.update('governance', () => {
        s.set(1n, p(1n, 'overwritten'));
        s.delete(2n);
        s.set(3n, p(3n));
        s.set(3n, p(3n, 'twice'));
        throw new Error('trap');
      }),
      /trap/,
    );
    assert.equal(s.get(1n)?.title, 'one');
    assert.equal(s.get(2n)?.title, 'two');
    assert.equal(s.has(3n), false);
  });

  it('a throw after an await undoes the writes made before it', async () => {
    const host = EmbeddedHost.open();
    const s = host.store<string, number>('membership', 'counts');
    await assert.rejects(
      host.update('membership', async () => {
        s.set('a', 1);
        await new Promise((r) => setTimeout(r, 5));
        s.set('b', 2);
        throw new Error('late trap');
      }),
    );
    assert.equal(s.size, 0);
  });

  it('decision L10: writes before a commit point (an inter-canister call) survive a later throw and a restart; those after it are undone', async () => {
    const dir = tempDir();
    const host = EmbeddedHost.open({ dir });
    const s = host.store<string, number>('treasury', 'intents');
    await assert.rejects(
      host.update('treasury', async () => {
        s.set('intent', 1);
        host.commitPoint();
        await new Promise((r) => setTimeout(r, 5));
        s.set('record', 2);
        throw new Error('trap after the call');
      }),
    );
    assert.deepEqual([...s.entries()], [['intent', 1]]);
    host.close();
    const again = EmbeddedHost.open({ dir });
    assert.deepEqual(
      [...again.store<string, number>('treasury', 'intents').entries()],
      [['intent', 1]],
      'journaled at the commit point',
    );
    host.commitPoint();
    again.close();
  });

  it('update calls to one canister run one at a time, in arrival order; a failure does not block the next', async () => {
    const host = EmbeddedHost.open();
    const s = host.store<string, string[]>('campaign', 'log');
    const step = (name: string, fail = false) =>
      host.update('campaign', async () => {
        const before = s.get('order') ?? [];
        await new Promise((r) => setTimeout(r, 5));
        s.set('order', [...before, name]);
        if (fail) throw new Error(name);
      });
    const results = await Promise.allSettled([step('a'), step('b', true), step('c')]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(s.get('order'), ['a', 'c']);
  });

  it('an inter-canister update call commits on its own: the caller’s later throw does not undo it (IC semantics)', async () => {
    const host = EmbeddedHost.open();
    const gov = host.store<string, number>('governance', 'x');
    const mem = host.store<string, number>('membership', 'y');
    await assert.rejects(
      host.update('governance', async () => {
        await host.update('membership', () => mem.set('minted', 1));
        gov.set('after', 1);
        throw new Error('governance traps');
      }),
    );
    assert.equal(mem.get('minted'), 1);
    assert.equal(gov.has('after'), false);
  });

  it('a call chain that re-enters a canister with an update in progress is refused, not deadlocked', async () => {
    const host = EmbeddedHost.open();
    await assert.rejects(
      host.update('governance', () => host.update('treasury', () => host.update('governance', () => 1))),
      ReentrantCallError,
    );
    // Queries may re-enter: they only read.
    assert.equal(
      await host.update('governance', () => host.update('treasury', () => host.query('governance', () => 42))),
      42,
    );
  });
});

describe('durable state', () => {
  it('committed state survives a restart; rolled-back writes never reach the disk', async () => {
    const dir = tempDir();
    const a = EmbeddedHost.open({ dir });
    const s = a.store<bigint, Proposal>('governance', 'proposals');
    await a.update('governance', () => {
      s.set(1n, p(1n));
      s.set(2n, p(2n));
    });
    await a.update('governance', () => s.delete(2n));
    await assert.rejects(
      a.update('governance', () => {
        s.set(9n, p(9n));
        throw new Error('trap');
      }),
    );
    a.close();
    const b = EmbeddedHost.open({ dir });
    const t = b.store<bigint, Proposal>('governance', 'proposals');
    assert.deepEqual([...t.entries()], [[1n, p(1n)]]);
    b.close();
  });

  it('a torn last record (a crash mid-write) is dropped and the log stays appendable', async () => {
    const dir = tempDir();
    const a = EmbeddedHost.open({ dir });
    const s = a.store<string, number>('user', 'n');
    await a.update('user', () => s.set('kept', 1));
    a.close();
    appendFileSync(join(dir, 'wal.jsonl'), '{"seq":2,"ops":[["user/n","lost"');
    const b = EmbeddedHost.open({ dir });
    assert.deepEqual([...b.store<string, number>('user', 'n').entries()], [['kept', 1]]);
    await b.update('user', () => b.store<string, number>('user', 'n').set('next', 2));
    b.close();
    const c = EmbeddedHost.open({ dir });
    assert.deepEqual(
      [...c.store<string, number>('user', 'n').entries()],
      [
        ['kept', 1],
        ['next', 2],
      ],
    );
    c.close();
  });

  it('a whole last record missing only its newline is kept, and later records go on their own line', async () => {
    const dir = tempDir();
    const a = EmbeddedHost.open({ dir });
    await a.update('user', () => a.store<string, number>('user', 'n').set('x', 1));
    a.close();
    const wal = join(dir, 'wal.jsonl');
    writeFileSync(wal, readFileSync(wal, 'utf8').trimEnd());
    const b = EmbeddedHost.open({ dir });
    await b.update('user', () => b.store<string, number>('user', 'n').set('y', 2));
    b.close();
    const c = EmbeddedHost.open({ dir });
    assert.deepEqual(
      [...c.store<string, number>('user', 'n').entries()],
      [
        ['x', 1],
        ['y', 2],
      ],
    );
    c.close();
  });

  it('damage before the last record stops the host with CorruptStateError instead of guessing', async () => {
    const dir = tempDir();
    const a = EmbeddedHost.open({ dir });
    await a.update('user', () => a.store<string, number>('user', 'n').set('x', 1));
    await a.update('user', () => a.store<string, number>('user', 'n').set('y', 2));
    a.close();
    const wal = join(dir, 'wal.jsonl');
    const lines = readFileSync(wal, 'utf8').split('\n');
    lines[0] = lines[0]!.slice(0, 10);
    writeFileSync(wal, lines.join('\n'));
    assert.throws(() => EmbeddedHost.open({ dir }), CorruptStateError);
  });

  it('compaction writes a snapshot, empties the log, and loses nothing (also for stores not opened since)', async () => {
    const dir = tempDir();
    const a = EmbeddedHost.open({ dir, compactBytes: 2_000 });
    await a.update('treasury', () => a.store<string, number>('treasury', 'balance').set('dom', 100));
    a.close();
    const b = EmbeddedHost.open({ dir, compactBytes: 2_000 });
    const s = b.store<bigint, Proposal>('governance', 'proposals');
    for (let i = 1n; i <= 60n; i++) await b.update('governance', () => s.set(i, p(i)));
    assert.ok(statSync(join(dir, 'snapshot.bin')).size > 0, 'snapshot written');
    // The log's records end at its first NUL: with fsync the file is written ahead with zeros (decision P9).
    const log = readFileSync(join(dir, 'wal.jsonl'));
    assert.ok((log.includes(0) ? log.indexOf(0) : log.length) < 2_000, 'log emptied at compaction');
    b.close();
    const c = EmbeddedHost.open({ dir });
    assert.equal(c.store('governance', 'proposals').size, 60);
    assert.equal(c.store<string, number>('treasury', 'balance').get('dom'), 100);
    c.close();
  });

  it('records already in the snapshot are skipped when the log was not emptied (crash between the two)', async () => {
    const dir = tempDir();
    const a = EmbeddedHost.open({ dir });
    const s = a.store<string, number>('user', 'n');
    await a.update('user', () => s.set('x', 1));
    const before = readFileSync(join(dir, 'wal.jsonl'), 'utf8');
    await a.compact();
    writeFileSync(join(dir, 'wal.jsonl'), before); // the truncation "did not happen"
    await a.update('user', () => s.set('x', 2)); // appended as seq 2 after the stale seq 1
    a.close();
    const b = EmbeddedHost.open({ dir });
    assert.equal(b.store<string, number>('user', 'n').get('x'), 2);
    b.close();
  });

  it('decision K21: a log whose sequence numbers go backwards (two writers) is refused, not skipped', async () => {
    const dir = tempDir();
    const a = EmbeddedHost.open({ dir });
    await a.update('user', () => a.store<string, number>('user', 'n').set('x', 1));
    await a.update('user', () => a.store<string, number>('user', 'n').set('y', 2));
    a.close();
    // What a second process on the same directory wrote: its own seq 1 and 2 after ours.
    appendFileSync(
      join(dir, 'wal.jsonl'),
      `${encode({ seq: 1, ops: [['user/n', 'z', 3]] })}\n${encode({ seq: 2, ops: [['user/n', 'w', 4]] })}\n`,
    );
    assert.throws(
      () => EmbeddedHost.open({ dir }),
      (e: Error) => e instanceof CorruptStateError && /backwards/.test(e.message),
    );
    // The same duplicate in the middle is refused too.
    writeFileSync(
      join(dir, 'wal.jsonl'),
      `${encode({ seq: 1, ops: [['user/n', 'x', 1]] })}\n${encode({ seq: 1, ops: [['user/n', 'z', 3]] })}\n${encode({ seq: 2, ops: [['user/n', 'y', 2]] })}\n`,
    );
    assert.throws(() => EmbeddedHost.open({ dir }), CorruptStateError);
  });

  it('decision K22: the state directory is 0700 and the log and snapshot are 0600 (password hashes, tokens)', async () => {
    const dir = join(tempDir(), 'state');
    const a = EmbeddedHost.open({ dir });
    await a.update('user', () => a.store<string, number>('user', 'n').set('x', 1));
    await a.compact();
    await a.update('user', () => a.store<string, number>('user', 'n').set('y', 1));
    a.close();
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(join(dir, 'wal.jsonl')).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'snapshot.bin')).mode & 0o777, 0o600);
    // Files left readable by an older version are tightened at open.
    chmodSync(join(dir, 'wal.jsonl'), 0o644);
    chmodSync(join(dir, 'snapshot.bin'), 0o644);
    chmodSync(dir, 0o755);
    EmbeddedHost.open({ dir }).close();
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(join(dir, 'wal.jsonl')).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'snapshot.bin')).mode & 0o777, 0o600);
  });

  it('decision K20: a second process on the same directory is refused; a killed holder does not leave it stuck', async (t) => {
    const dir = tempDir();
    const script = `import { EmbeddedHost } from ${JSON.stringify(new URL('../src/embedded/index.ts', import.meta.url).href)};
const h = EmbeddedHost.open({ dir: process.argv[1] });
await h.update('user', () => h.store('user', 'n').set(String(process.pid), 1));
console.log('open'); setInterval(() => undefined, 1000);`;
    const start = () =>
      spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dir], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    const output = (c: ChildProcess) => {
      let out = '';
      c.stdout!.on('data', (d) => (out += d));
      c.stderr!.on('data', (d) => (out += d));
      return () => out;
    };
    const holder = start();
    t.after(() => holder.kill('SIGKILL'));
    const holderOut = output(holder);
    await new Promise<void>((resolve, reject) => {
      holder.stdout.on('data', () => holderOut().includes('open') && resolve());
      holder.once('exit', () => reject(new Error(`holder exited: ${holderOut()}`)));
    });
    const second = start();
    t.after(() => second.kill('SIGKILL'));
    const secondOut = output(second);
    const [code] = (await once(second, 'exit')) as [number];
    assert.notEqual(code, 0);
    assert.match(secondOut(), new RegExp(`in use by another process \\(PID ${holder.pid}\\)`));
    // In this process too.
    assert.throws(() => EmbeddedHost.open({ dir }), DirectoryLockedError);
    holder.kill('SIGKILL');
    await once(holder, 'exit');
    const reopened = EmbeddedHost.open({ dir });
    assert.deepEqual([...reopened.store<string, number>('user', 'n').entries()], [[String(holder.pid), 1]]);
    assert.throws(() => EmbeddedHost.open({ dir }), DirectoryLockedError, 'one open per process');
    reopened.close();
    EmbeddedHost.open({ dir }).close();
  });

  it('a closed host refuses calls', async () => {
    const host = EmbeddedHost.open({ dir: tempDir() });
    host.close();
    await assert.rejects(
      host.update('x', () => 1),
      /closed/,
    );
    assert.throws(() => host.query('x', () => 1), /closed/);
  });
  it('decision P21: hosts share one storage of the process, closed or not; an update under way at the close still writes in its transaction', async () => {
    // On Node 20 each enabled AsyncLocalStorage marks every new async resource with a symbol of its own
    // (and is visited for every promise, and never freed): a storage per host made a process that opens
    // many hosts pay for all of them. Node 24's AsyncLocalStorage marks nothing, and has nothing to leak.
    const storages = () =>
      new Promise<number>((resolve) =>
        setImmediate(() => resolve(Object.getOwnPropertySymbols(executionAsyncResource()).length)),
      );
    const first = EmbeddedHost.open();
    await first.update('x', () => first.store<string, number>('x', 's').set('a', 1));
    const before = await storages();
    // Twenty hosts left open, as a property test leaves its in-memory ones.
    for (let i = 0; i < 20; i++) {
      const h = EmbeddedHost.open();
      await h.update('x', () => h.store<string, number>('x', 's').set('a', i));
      assert.equal(
        h.query('x', () => h.store<string, number>('x', 's').get('a')),
        i,
      );
    }
    const busy = EmbeddedHost.open();
    let finish!: () => void;
    const underWay = busy.update('x', async () => {
      await new Promise<void>((resolve) => (finish = resolve));
      busy.store<string, number>('x', 's').set('b', 2); // after the close: still inside its transaction
    });
    await new Promise((resolve) => setImmediate(resolve));
    busy.close();
    finish();
    await underWay;
    assert.equal(busy.store<string, number>('x', 's').get('b'), 2);
    assert.equal(await storages(), before);
  });
});

describe('codec', () => {
  it('round-trips nat64 (bigint), blobs (Uint8Array) and nested records', () => {
    const value = {
      id: 18446744073709551615n,
      proof: new Uint8Array([0, 1, 255]),
      nested: [{ n: -5n }],
      s: 'x',
      o: null,
    };
    assert.deepEqual(decode(encode(value)), value);
  });
});
