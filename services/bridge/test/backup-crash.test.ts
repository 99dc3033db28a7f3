// Decisions R40, B120 with a real kill: `npm run backup` asks the running bridge for a live backup and is
// killed (SIGKILL, by its PID) mid-way, once the database has been copied and before the manifest. What
// is on disk then is never taken for a backup: restore refuses it in one sentence, nothing changed. The
// bridge finds its requester gone and abandons the backup (a log line, the half-copy removed, no manifest);
// the running DAO is unaffected (a sign-up and a sign-in go on); a rerun into the same directory makes a
// good backup, which restore takes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runScript, START_DEV_FLAGS } from '@domdao/test-helpers';
import { bridge, eventually } from './harness.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');

describe('decision B120: a live backup cut mid-way by a kill of npm run backup', () => {
  const work = mkdtempSync(join(tmpdir(), 'domdao-backup-crash-'));
  after(() => rmSync(work, { recursive: true, force: true }));

  it('SIGKILL after the database copy: restore refuses the half-copy, the bridge abandons it and goes on, a rerun makes a good backup', async () => {
    let reached!: () => void;
    const atStep = new Promise<void>((ok) => (reached = ok));
    let resume!: () => void;
    const resumed = new Promise<void>((ok) => (resume = ok));
    let paused = false;
    const h = await bridge(
      undefined,
      { EMBEDDED_DATABASE_FSYNC: 'false' },
      {
        backupPause: async (step) => {
          if (step !== 'after-database' || paused) return;
          paused = true;
          reached();
          await resumed;
        },
      },
    );
    const dataDir = h.config.DATA_DIR;
    try {
      await h.member('before@example.org');
      const to = join(work, 'cut');
      const proc = spawn(process.execPath, [...START_DEV_FLAGS, 'scripts/backup.ts', '--to', to], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir },
        stdio: 'ignore',
      });
      after(() => proc.kill('SIGKILL'));
      await atStep;
      assert.ok(existsSync(join(to, 'data', 'pglite', 'PG_VERSION')), 'the database is copied');
      process.kill(proc.pid!, 'SIGKILL');
      await once(proc, 'exit');

      // The half-copy on disk is no backup: refused in one sentence, the target DATA_DIR not made.
      const restoredDir = join(work, 'restored');
      const refused = await runScript('scripts/restore.ts', ['--from', to], { DATA_DIR: restoredDir });
      assert.equal(refused.code, 2, refused.err + refused.out);
      assert.match(
        refused.err,
        /^restore: \S+cut has no manifest\.json: it is incomplete \(a backup cut short\) or not a backup; nothing was changed\n$/,
      );
      assert.equal(existsSync(restoredDir), false);

      // The bridge goes on past the pause, finds nobody waiting, and abandons the backup.
      resume();
      const line = await eventually('the backup.abandoned line', () =>
        h.logs.lines().find((l) => l.event === 'backup.abandoned'),
      );
      assert.equal(line.level, 'warn');
      assert.match(String(line.reason), /went away after the database was copied/);
      assert.deepEqual(readdirSync(to), [], 'nothing half-made is left');

      // The DAO is unaffected: the database is not held, a sign-up and a sign-in go through.
      await h.member('after@example.org');
      assert.equal((await h.login('before@example.org')).res.statusCode, 200);

      // A rerun into the same directory (a killed run's leftovers there or not) makes a good backup.
      const again = await runScript('scripts/backup.ts', ['--to', to], { DATA_DIR: dataDir });
      assert.equal(again.code, 0, again.err + again.out);
      const restored = await runScript('scripts/restore.ts', ['--from', to], { DATA_DIR: restoredDir });
      assert.equal(restored.code, 0, restored.err + restored.out);
      assert.ok(existsSync(join(restoredDir, 'pglite', 'PG_VERSION')));
    } finally {
      await h.close();
    }
  });

  it('decision B120: a directory holding only a killed run’s half-copy (data/, no manifest) is taken again by a stopped backup; any other content is refused', async () => {
    const h = await bridge(undefined, { EMBEDDED_DATABASE_FSYNC: 'false' });
    const dataDir = h.config.DATA_DIR;
    try {
      await h.member('one@example.org');
    } finally {
      await h.app.close();
    }
    try {
      const to = join(work, 'leftover');
      const first = await runScript('scripts/backup.ts', ['--to', to], { DATA_DIR: dataDir });
      assert.equal(first.code, 0, first.err + first.out);
      rmSync(join(to, 'manifest.json')); // what a kill before the manifest leaves
      const again = await runScript('scripts/backup.ts', ['--to', to], { DATA_DIR: dataDir });
      assert.equal(again.code, 0, again.err + again.out);
      assert.ok(existsSync(join(to, 'manifest.json')));
      const other = join(work, 'other');
      const made = await runScript('scripts/backup.ts', ['--to', other], { DATA_DIR: dataDir });
      assert.equal(made.code, 0, made.err);
      const full = await runScript('scripts/backup.ts', ['--to', other], { DATA_DIR: dataDir });
      assert.equal(full.code, 2);
      assert.match(full.err, /^backup: \S+other is not empty: give a new or empty directory\n$/);
    } finally {
      await h.close();
    }
  });
});
