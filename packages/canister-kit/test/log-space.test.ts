// Decision P9: with fsync the open log is written ahead with zeros so a group's
// fdatasync flushes data only; the log ends at its first NUL. Crash images (copies of the directory
// while the host runs) reopen with every record; what a crash left past a NUL is dropped and cut away,
// so it cannot come back after a later crash. The answer of an update comes after the fdatasync that
// covers its record: the log writer's own fdatasync is instrumented (node:fs patched for the test).
import assert from 'node:assert/strict';
import fs, { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EmbeddedHost } from '../src/embedded/index.ts';
import { encodeLine } from '../src/embedded/record.ts';
import { scratchDirs } from './harness.ts';

const { tempDir, crashImage } = scratchDirs('log-space');

describe('the log written ahead (decision P9)', () => {
  it('the open log is written ahead with zeros; a crash image reopens with every record and is cut to them', async () => {
    const dir = tempDir();
    const host = EmbeddedHost.open({ dir });
    const s = host.store<number, string>('governance', 'votes');
    await Promise.all(Array.from({ length: 50 }, (_, i) => host.update('governance', () => s.set(i, `v${i}`))));
    const log = readFileSync(join(dir, 'wal.jsonl'));
    assert.ok(log.length >= 4 * 2 ** 20, 'written ahead');
    assert.equal(
      log.subarray(log.indexOf(0)).every((b) => b === 0),
      true,
      'zeros after the records',
    );
    const image = crashImage(dir);
    host.close();
    assert.equal(readFileSync(join(dir, 'wal.jsonl')).includes(0), false, 'a clean close cuts the space');
    const again = EmbeddedHost.open({ dir: image });
    assert.equal(again.store<number, string>('governance', 'votes').size, 50);
    assert.equal(readFileSync(join(image, 'wal.jsonl')).includes(0), false, 'cut at open');
    await again.update('governance', () => again.store<number, string>('governance', 'votes').set(50, 'v50'));
    again.close();
    const third = EmbeddedHost.open({ dir: image });
    assert.equal(third.store<number, string>('governance', 'votes').get(50), 'v50');
    third.close();
  });

  it('a record a crash left past a NUL (a later block on disk without the one before it) is dropped and never comes back', async () => {
    const dir = tempDir();
    const host = EmbeddedHost.open({ dir });
    const s = host.store<string, number>('ledger', 'balances');
    await host.update('ledger', () => s.set('a', 1));
    const image = crashImage(dir);
    host.close();
    // Record 2 was written 8 KiB further on, past zeros: it was never synced, so never answered.
    const log = readFileSync(join(image, 'wal.jsonl'));
    const end = log.indexOf(0);
    const stale = Buffer.from(`${JSON.stringify({ seq: 2, ops: [['ledger/balances', 'stale', 666]] })}\n`);
    stale.copy(log, end + 8192);
    writeFileSync(join(image, 'wal.jsonl'), log);
    const reopened = EmbeddedHost.open({ dir: image });
    const b = reopened.store<string, number>('ledger', 'balances');
    assert.equal(b.has('stale'), false);
    assert.equal(statSync(join(image, 'wal.jsonl')).size, end, 'cut where the records end');
    await reopened.update('ledger', () => b.set('b', 2)); // the real record 2
    const second = crashImage(image);
    reopened.close();
    const last = EmbeddedHost.open({ dir: second });
    assert.deepEqual(
      [...last.store<string, number>('ledger', 'balances').entries()],
      [
        ['a', 1],
        ['b', 2],
      ],
    );
    last.close();
  });

  it('a log closed by a compaction holds its records only', async () => {
    const dir = tempDir();
    const host = EmbeddedHost.open({
      dir,
      compactionProbe: (stage) => (stage === 'installed' ? new Promise(() => undefined) : undefined),
    });
    const s = host.store<number, number>('user', 'n');
    await host.update('user', () => s.set(1, 1));
    void host.compact(); // held before the closed log is deleted
    await new Promise((r) => setTimeout(r, 200));
    const closed = readdirSync(dir).find((f) => /^wal\.\d+\.jsonl$/.test(f))!;
    assert.equal(readFileSync(join(dir, closed), 'utf8'), `${encodeLine(1, [['user/n', 1, 1]])}\n`);
    host.close();
  });

  it('every answer comes after the fdatasync of the log that covers its record (the writer instrumented)', async () => {
    const dir = tempDir();
    const covered: number[] = []; // per completed sync: how many records it covered
    const events: string[] = [];
    const original = fs.fdatasync;
    fs.fdatasync = ((fd: number, cb: (e: NodeJS.ErrnoException | null) => void) => {
      // What this sync covers: the records in the file when it starts.
      const text = readFileSync(join(dir, 'wal.jsonl'), 'utf8');
      const records = text
        .slice(0, text.includes('\0') ? text.indexOf('\0') : text.length)
        .split('\n')
        .filter(Boolean).length;
      original(fd, (e) => {
        covered.push(records);
        events.push(`synced ${records}`);
        cb(e);
      });
    }) as typeof fs.fdatasync;
    syncBuiltinESMExports();
    try {
      const host = EmbeddedHost.open({ dir });
      const s = host.store<number, number>('governance', 'votes');
      await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          host
            .update('governance', () => s.set(i, i))
            .then(() => {
              const durable = Math.max(0, ...covered);
              events.push(`answer ${i}`);
              assert.ok(durable >= i + 1, `update ${i} (record ${i + 1}) answered when ${durable} records were synced`);
            }),
        ),
      );
      host.close();
      assert.ok(
        covered.length >= 2 && covered.length < 200,
        `group commit: ${covered.length} fdatasyncs for 200 updates`,
      );
    } finally {
      fs.fdatasync = original;
      syncBuiltinESMExports();
    }
  });
});
