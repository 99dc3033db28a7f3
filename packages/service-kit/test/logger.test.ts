// packages/service-kit/src/logger.ts: buffered stdout that still shows lines while the process runs.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BATCH_CHARS, BatchedDestination } from '../src/logger.ts';

const fixture = fileURLToPath(new URL('./fixtures/log-and-wait.ts', import.meta.url));

describe('logger', () => {
  it('decision D30: a line logged by a running process is on its stdout while it runs (the FLUSH_INTERVAL_MS timer), not only at exit', async (t) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture], { stdio: ['ignore', 'pipe', 'inherit'] });
    t.after(() => child.kill('SIGKILL'));
    let out = '';
    const started = Date.now();
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no log line within 60 s; stdout so far: ${JSON.stringify(out)}`)),
        60_000,
      );
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const first = out.split('\n').find((l) => l.includes('fixture.started'));
        if (first) {
          clearTimeout(timer);
          resolve(first);
        }
      });
      child.on('exit', (code) => reject(new Error(`fixture exited (${code}) before its line was read`)));
    });
    const parsed = JSON.parse(line) as Record<string, unknown>;
    assert.equal(parsed.event, 'fixture.started');
    assert.equal(parsed.service, 'fixture');
    assert.equal(parsed.level, 'warn');
    assert.equal(child.exitCode, null, 'the process is still running');
    // Unloaded, tsx's start and the buffer's FLUSH_INTERVAL_MS make about 2 s. The line comes while the
    // process runs and writes nothing more, so the timer wrote it; how soon depends on the machine's load,
    // so the bound here only tells a flush from none (the 60 s above).
    assert.ok(Date.now() - started < 60_000, `line read after ${Date.now() - started} ms`);
  });

  it('decision D30: every line, the partial last batch included, is on stdout when the process exits', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./fixtures/log-and-exit.ts', import.meta.url))],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(code, 0);
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { i: number });
    assert.deepEqual(
      lines.map((l) => l.i),
      Array.from({ length: 100 }, (_, i) => i),
    );
  });
});

describe('BatchedDestination', () => {
  const recorder = () => {
    const calls: string[] = [];
    const sonic = {
      write: (s: string) => calls.push(`write:${s}`),
      flush: () => calls.push('flush'),
      flushSync: () => calls.push('flushSync'),
    };
    return {
      calls,
      destination: new BatchedDestination(sonic as unknown as ConstructorParameters<typeof BatchedDestination>[0]),
    };
  };

  it('decision D30: hands lines over in one write once a batch reaches 4 KiB, in order', () => {
    const { calls, destination } = recorder();
    const line = `${'x'.repeat(999)}\n`; // 1,000 characters
    for (let i = 0; i < 4; i++) destination.write(line.replace('x', String(i)));
    assert.deepEqual(calls, [], 'under BATCH_CHARS nothing is written');
    destination.write(line.replace('x', '4'));
    assert.equal(BATCH_CHARS, 4096);
    assert.equal(calls.length, 1, 'one write for the whole batch');
    assert.equal(calls[0], `write:${[0, 1, 2, 3, 4].map((i) => line.replace('x', String(i))).join('')}`);
    destination.write('late\n');
    assert.equal(calls.length, 1);
  });

  it('decision D30: flush and flushSync write out what is pending, and an empty flush writes nothing', () => {
    const { calls, destination } = recorder();
    destination.flush();
    assert.deepEqual(calls, ['flush']);
    destination.write('a\n');
    destination.write('b\n');
    destination.flush();
    assert.deepEqual(calls, ['flush', 'write:a\nb\n', 'flush']);
    destination.write('c\n');
    destination.flushSync();
    assert.deepEqual(calls, ['flush', 'write:a\nb\n', 'flush', 'write:c\n', 'flushSync']);
  });
});
