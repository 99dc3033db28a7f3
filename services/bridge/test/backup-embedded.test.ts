// Back up and restore the embedded platform (decisions R39, R40): `npm run backup -- --to DIR` while the
// bridge runs is made by the bridge itself at one moment (database held at a statement boundary, the
// canisters' committed state taken in the same hold); `npm run restore -- --from DIR` refuses a running
// platform and a damaged or incomplete backup with one sentence and nothing changed, and otherwise puts
// DATA_DIR back: everything from before the backup is there (database and canisters), nothing from after.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { captureLogs, runScript } from '@domdao/test-helpers';
import { openBridge } from '../src/compose/open-bridge.ts';
import { filesUnder, type BackupManifest } from '../src/core/backup/manifest.ts';
import { APP, bridge, TEST_PASSWORD_COST } from './harness.ts';

const run = runScript;

/** Every file of a directory with its SHA-256: "nothing changed" is this, equal before and after. */
const tree = (dir: string) =>
  Object.fromEntries(
    filesUnder(dir).map((f) => [
      f,
      createHash('sha256')
        .update(readFileSync(join(dir, f)))
        .digest('hex'),
    ]),
  );
const siblings = (dir: string) => readdirSync(dirname(dir)).filter((n) => n.startsWith(`${basename(dir)}.`));

describe('decisions R39, R40: npm run backup and npm run restore of the embedded platform', () => {
  const work = mkdtempSync(join(tmpdir(), 'domdao-backup-'));
  after(() => rmSync(work, { recursive: true, force: true }));

  it('decision R39: a backup made while the bridge runs, then a member more; restore puts back the database and the canisters as they were at the backup', async () => {
    // The database in DATA_DIR itself (not lent from the test pool), as `npm start` has it.
    const h = await bridge(undefined, { EMBEDDED_DATABASE_FSYNC: 'false' });
    const dataDir = h.config.DATA_DIR;
    const env = { DATA_DIR: dataDir };
    let reopened: Awaited<ReturnType<typeof openBridge>> | undefined;
    try {
      await h.member('before@example.org');
      const b1 = join(work, 'b1');
      const made = await run('scripts/backup.ts', ['--to', b1], env);
      assert.equal(made.code, 0, made.err + made.out);
      assert.match(made.out, /the bridge \(PID \d+\) is running: it makes the backup/);
      const manifest = JSON.parse(readFileSync(join(b1, 'manifest.json'), 'utf8')) as BackupManifest;
      assert.equal(manifest.mode, 'live');
      assert.deepEqual([manifest.database, manifest.canisters], ['embedded', 'embedded']);
      const paths = manifest.files.map((f) => f.path);
      for (const p of ['keys.json', 'pglite/PG_VERSION', 'canisters/snapshot.bin', 'canisters/canister-set.json'])
        assert.ok(paths.includes(p), p);
      assert.ok(!paths.some((p) => /(^|\/)\.lock$|backup\.sock|wal\.jsonl/.test(p)), paths.join(' '));
      assert.ok(manifest.canister_seq! > 0);

      // Bad targets are refused (one sentence, exit 2).
      const inside = await run('scripts/backup.ts', ['--to', join(dataDir, 'b')], env);
      assert.equal(inside.code, 2);
      assert.match(inside.err, /^backup: \S+ is inside DATA_DIR \S+: give a backup directory outside it\n$/);
      // Decision R51: the sentence for the operator, and a structured line beside it.
      assert.deepEqual(
        inside.logs.map((l) => [l.service, l.level, l.event, l.reason]),
        [['backup', 'warn', 'backup.refused', inside.err.trim().replace(/^backup: /, '')]],
      );
      const full = await run('scripts/backup.ts', ['--to', b1], env);
      assert.equal(full.code, 2);
      assert.match(full.err, /^backup: \S+b1 is not empty: give a new or empty directory\n$/);

      // After the backup: another member, in the database and in the user canister.
      await h.member('after@example.org');
      const users = await h.opened.db.selectFrom('users').select(['principal']).orderBy('created_at').execute();
      assert.equal(users.length, 2);
      const [pBefore, pAfter] = users.map((u) => u.principal);
      assert.ok(await h.opened.canisters.clients.user.get_account(pAfter!));

      // A running platform: refused, nothing changed, the bridge goes on.
      const running = await run('scripts/restore.ts', ['--from', b1], env);
      assert.equal(running.code, 2, running.out);
      assert.match(
        running.err,
        /^restore: DATA_DIR \S+ is in use by a running process \(PID \d+\): stop the platform first; nothing was changed\n$/,
      );
      assert.deepEqual(
        running.logs.map((l) => [l.service, l.level, l.event]),
        [['restore', 'warn', 'restore.refused']],
      );
      assert.deepEqual(siblings(dataDir), []);
      assert.equal((await h.login('after@example.org')).res.statusCode, 200);

      await h.app.close();
      const at = tree(dataDir);
      // Damaged (a byte changed), incomplete (no manifest), a file added: refused, DATA_DIR unchanged.
      const damaged = join(work, 'damaged');
      cpSync(b1, damaged, { recursive: true });
      const snap = join(damaged, 'data', 'canisters', 'snapshot.bin');
      const bytes = readFileSync(snap);
      bytes.writeUInt8(bytes.readUInt8(bytes.length - 10) ^ 0xff, bytes.length - 10);
      writeFileSync(snap, bytes);
      const incomplete = join(work, 'incomplete');
      cpSync(b1, incomplete, { recursive: true });
      rmSync(join(incomplete, 'manifest.json'));
      const added = join(work, 'added');
      cpSync(b1, added, { recursive: true });
      mkdirSync(join(added, 'data', 'extra'));
      writeFileSync(join(added, 'data', 'extra', 'x'), 'x');
      const cases: Array<[string, RegExp]> = [
        [
          damaged,
          /^restore: canisters\/snapshot\.bin in \S+ does not match its checksum in manifest\.json: the backup is damaged; nothing was changed\n$/,
        ],
        [
          incomplete,
          /^restore: \S+ has no manifest\.json: it is incomplete \(a backup cut short\) or not a backup; nothing was changed\n$/,
        ],
        [
          added,
          /^restore: \S+ holds 1 file\(s\) its manifest does not list \(extra\/x\): the backup is damaged; nothing was changed\n$/,
        ],
      ];
      for (const [from, message] of cases) {
        const res = await run('scripts/restore.ts', ['--from', from], env);
        assert.equal(res.code, 2, res.out);
        assert.match(res.err, message);
        assert.deepEqual(tree(dataDir), at);
        assert.deepEqual(siblings(dataDir), []);
      }

      // With no bridge running, `npm run backup` copies the directory at rest itself.
      const b2 = join(work, 'b2');
      const stopped = await run('scripts/backup.ts', ['--to', b2], env);
      assert.equal(stopped.code, 0, stopped.err);
      assert.equal((JSON.parse(readFileSync(join(b2, 'manifest.json'), 'utf8')) as BackupManifest).mode, 'stopped');

      const restored = await run('scripts/restore.ts', ['--from', b1], env);
      assert.equal(restored.code, 0, restored.err + restored.out);
      assert.match(restored.out, /the directory it replaced is kept at \S+\.before-restore-/);
      assert.equal(siblings(dataDir).length, 1);

      reopened = await openBridge(h.config, h.env, {
        scheduler: false,
        logStream: captureLogs().stream,
        passwordCost: TEST_PASSWORD_COST,
      });
      const login = (email: string) =>
        reopened!.app.inject({
          method: 'POST',
          url: '/auth/login',
          headers: { origin: APP, 'content-type': 'application/json' },
          payload: JSON.stringify({ email, password: 'correct horse battery staple' }),
        });
      assert.equal((await login('before@example.org')).statusCode, 200, 'the member from before the backup signs in');
      assert.notEqual((await login('after@example.org')).statusCode, 200, 'the member from after the backup is gone');
      const now = await reopened.db.selectFrom('users').select('principal').execute();
      assert.deepEqual(
        now.map((u) => u.principal),
        [pBefore],
      );
      assert.ok(
        await reopened.canisters.clients.user.get_account(pBefore!),
        'the canister has the account from before',
      );
      assert.equal(await reopened.canisters.clients.user.get_account(pAfter!), undefined, 'and not the one from after');
    } finally {
      await reopened?.app.close();
      await h.close();
      for (const s of siblings(dataDir)) rmSync(join(dirname(dataDir), s), { recursive: true, force: true });
    }
  });
});
