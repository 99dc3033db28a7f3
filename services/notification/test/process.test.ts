// The service as `npm run notification` starts it: a real process, its logs read while it runs.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '@domdao/test-helpers';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));

describe('logs of a running service (decision D30)', () => {
  it('decision D30: the service.fail_closed warning is readable while the service keeps running (the buffer’s timer writes it, not the exit)', async (t) => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'test',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    };
    delete env.SERVICE_TOKEN;
    const child = spawn(process.execPath, ['--import', 'tsx', main], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    t.after(() => child.kill('SIGKILL'));
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    // Wait until the service answers (fail-closed: 503), then for the line. Unloaded it takes about a
    // second (FLUSH_INTERVAL_MS); the 60 s and 30 s are hang guards a loaded machine stays inside.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const status = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 503) break;
      assert.ok(Date.now() < deadline, 'the service did not start within 60 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    const listening = Date.now();
    while (!out.includes('"event":"service.fail_closed"') && Date.now() - listening < 30_000)
      await new Promise((r) => setTimeout(r, 25));
    assert.match(
      out,
      /"event":"service\.fail_closed"/,
      `stdout after ${Date.now() - listening} ms: ${JSON.stringify(out)}`,
    );
    assert.equal(child.exitCode, null, 'still running');
  });
});
