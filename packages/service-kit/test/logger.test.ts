// packages/service-kit/src/logger.ts: buffered stdout that still shows lines while the process runs.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const fixture = fileURLToPath(new URL('./fixtures/log-and-wait.ts', import.meta.url));

describe('logger', () => {
  it('decision D30: a line logged by a running process is on its stdout within about a second, not only at exit', async (t) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture], { stdio: ['ignore', 'pipe', 'inherit'] });
    t.after(() => child.kill('SIGKILL'));
    let out = '';
    const started = Date.now();
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no log line within 10 s; stdout so far: ${JSON.stringify(out)}`)), 10_000);
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
    // tsx needs about a second to start; the buffer adds at most FLUSH_INTERVAL_MS.
    assert.ok(Date.now() - started < 6000, `line read after ${Date.now() - started} ms`);
  });
});
