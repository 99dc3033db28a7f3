// Back up and restore a bridge on PostgreSQL (decision R41): the database with pg_dump's custom format
// and pg_restore into a new, empty database, with the DATA_DIR beside it (keys, and here the embedded
// canisters) by `npm run backup`, both taken with the bridge stopped so they are of one moment. After a
// member more, the restore brings back, through the bridge's HTTP API, everything from before the
// backup and nothing from after.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { captureLogs } from '@domdao/test-helpers';
import { openBridge } from '../src/compose/open-bridge.ts';
import { loadBridgeConfig } from '../src/config.ts';
import type { BackupManifest } from '../src/core/backup/manifest.ts';
import { APP, BACKENDS, bridge, freshPostgres, TEST_PASSWORD_COST } from './harness.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');

function run(
  command: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('exit', (code) => resolve({ code, out, err }));
  });
}
const tsx = (script: string, args: string[], env: Record<string, string>) =>
  run(process.execPath, ['--import', 'tsx', script, ...args], env);

describe('decision R41: a bridge on PostgreSQL backed up with pg_dump and npm run backup, restored with pg_restore and npm run restore', () => {
  const work = mkdtempSync(join(tmpdir(), 'domdao-pg-backup-'));
  after(() => rmSync(work, { recursive: true, force: true }));

  it('decision R41: back up (bridge stopped), a member more, restore into a new database: the member from before signs in, the one from after is gone', async () => {
    const h = await bridge(BACKENDS.find((b) => b.db === 'postgres' && b.sessions === 'database'));
    const target = await freshPostgres('bridge_restore');
    const open = (env: Record<string, string>) =>
      openBridge(loadBridgeConfig(env), env, {
        scheduler: false,
        logStream: captureLogs().stream,
        passwordCost: TEST_PASSWORD_COST,
      });
    let current: Awaited<ReturnType<typeof openBridge>> | undefined;
    try {
      await h.member('before@example.org');
      await h.app.close();
      // The backup: the database, and DATA_DIR (keys; the embedded canisters), of one moment.
      const dump = join(work, 'bridge.dump');
      const dumped = await run('pg_dump', ['--format=custom', '--file', dump, h.env.DATABASE_URL!]);
      assert.equal(dumped.code, 0, dumped.err);
      const dirBackup = join(work, 'data-dir');
      const copied = await tsx('scripts/backup.ts', ['--to', dirBackup], { DATA_DIR: h.config.DATA_DIR });
      assert.equal(copied.code, 0, copied.err);
      const manifest = JSON.parse(readFileSync(join(dirBackup, 'manifest.json'), 'utf8')) as BackupManifest;
      assert.deepEqual(
        [manifest.database, manifest.canisters],
        ['not included (DATABASE_URL: back it up with pg_dump)', 'embedded'],
      );

      // After the backup: another member.
      current = await open(h.env);
      const login = (email: string) =>
        current!.app.inject({
          method: 'POST',
          url: '/auth/login',
          headers: { origin: APP, 'content-type': 'application/json' },
          payload: JSON.stringify({ email, password: 'correct horse battery staple' }),
        });
      const key = (await current.app.inject({ method: 'GET', url: '/api/auth/registration-key' })).json() as {
        public_key: string;
      };
      const { encryptRegistration } = await import('@domdao/registration/seal');
      const fields = await encryptRegistration(key.public_key, {
        email: 'after@example.org',
        name: 'Grace Hopper',
        dob: '1990-05-01',
      });
      const registered = await current.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        headers: { origin: APP, 'content-type': 'application/json' },
        payload: JSON.stringify({ ...fields, password: 'correct horse battery staple', tos_accepted: true }),
      });
      assert.equal(registered.statusCode, 201, registered.body);
      assert.equal((await current.db.selectFrom('users').select('id').execute()).length, 2);
      await current.app.close();
      current = undefined;

      // The restore: the dump into a new, empty database; DATA_DIR put back; the bridge pointed at both.
      const restored = await run('pg_restore', [
        '--exit-on-error',
        '--single-transaction',
        '--no-owner',
        '--dbname',
        target.url,
        dump,
      ]);
      assert.equal(restored.code, 0, restored.err);
      const back = await tsx('scripts/restore.ts', ['--from', dirBackup], { DATA_DIR: h.config.DATA_DIR });
      assert.equal(back.code, 0, back.err);
      assert.match(back.out, /the database is not in this backup: restore it with pg_restore/);
      current = await open({ ...h.env, DATABASE_URL: target.url });
      assert.equal((await login('before@example.org')).statusCode, 200, 'the member from before the backup signs in');
      assert.notEqual((await login('after@example.org')).statusCode, 200, 'the member from after the backup is gone');
      const users = await current.db.selectFrom('users').select('principal').execute();
      assert.equal(users.length, 1);
      assert.ok(await current.canisters.clients.user.get_account(users[0]!.principal));
    } finally {
      await current?.app.close();
      await target.drop();
      await h.close();
      const dataDir = h.config.DATA_DIR;
      for (const s of readdirSync(dirname(dataDir)).filter((n) => n.startsWith(`${basename(dataDir)}.`)))
        rmSync(join(dirname(dataDir), s), { recursive: true, force: true });
    }
  });
});
