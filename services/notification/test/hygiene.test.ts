// Decision R2: a red test must not hang its file (HELPERS rule: close in an after-hook).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';

it('decision R5: a failing delivery test closes its provider stand-in and its file exits at once (no watchdog needed)', () => {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const started = Date.now();
  const r = spawnSync(
    process.execPath,
    ['scripts/test.mjs', 'services/notification/test/fixtures/red-delivery.fixture.ts'],
    {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, TEST_FILE_TIMEOUT_MS: '30000' },
    },
  );
  const out = r.stdout + r.stderr;
  assert.equal(r.status, 1, out);
  assert.match(
    out,
    /✖ FILE services\/notification\/test\/fixtures\/red-delivery\.fixture\.ts: 0 passed, 1 failed \([\d.]+ s, [\d.?]+ s CPU\)\n/,
  );
  assert.doesNotMatch(out, /timed out/);
  assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
});
