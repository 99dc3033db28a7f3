// Decision B121: the bridge's backup socket (B115) is served unless BACKUP_SOCKET=false. On by default, so
// `npm run backup` of a running embedded platform works as R39 documents it; off, there is no socket in
// DATA_DIR at all, and `npm run backup` against the running bridge is refused in one sentence naming the
// setting (and a structured line, R51), nothing written. A value other than true or false is refused at start.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError } from '@domdao/config';
import { runScript } from '@domdao/test-helpers';
import { loadBridgeConfig } from '../src/config.ts';
import { bridge } from './harness.ts';

describe('decision B121: BACKUP_SOCKET', () => {
  const work = mkdtempSync(join(tmpdir(), 'domdao-backup-socket-'));
  after(() => rmSync(work, { recursive: true, force: true }));

  it('by default the running embedded bridge serves DATA_DIR/backup.sock, mode 0600', async () => {
    const h = await bridge();
    try {
      const sock = join(h.config.DATA_DIR, 'backup.sock');
      assert.ok(statSync(sock).isSocket());
      assert.equal(statSync(sock).mode & 0o777, 0o600);
    } finally {
      await h.close();
    }
  });

  it('BACKUP_SOCKET=false: no socket; npm run backup against the running bridge is refused in one sentence and a log line, nothing written', async () => {
    const h = await bridge(undefined, { BACKUP_SOCKET: 'false' });
    try {
      assert.equal(existsSync(join(h.config.DATA_DIR, 'backup.sock')), false);
      const to = join(work, 'b');
      const res = await runScript('scripts/backup.ts', ['--to', to], { DATA_DIR: h.config.DATA_DIR });
      assert.equal(res.code, 2, res.err + res.out);
      assert.match(
        res.err,
        /^backup: DATA_DIR \S+ is in use by PID \d+, which serves no backup socket \(\S+backup\.sock: BACKUP_SOCKET=false, or its path is too long\): stop it, then run this again to copy the directory at rest\n$/,
      );
      assert.deepEqual(
        res.logs.map((l) => [l.event, l.level]),
        [['backup.refused', 'warn']],
      );
      assert.equal(existsSync(to), false);
      // The bridge is unaffected.
      assert.equal((await h.request({ method: 'GET', url: '/health' })).statusCode, 200);
    } finally {
      await h.close();
    }
  });

  it('a value other than true or false is refused at start', () => {
    assert.throws(
      () => loadBridgeConfig({ BACKUP_SOCKET: 'maybe' }),
      (e: unknown) => e instanceof ConfigError && e.problems.some((p) => p.startsWith('BACKUP_SOCKET')),
    );
  });
});
