// `npm run backup -- --to DIR` (decisions R39, R40): a backup of DATA_DIR. With the bridge running (its
// lock on DATA_DIR held by a live process) the bridge makes it, at one moment, over its socket
// (services/bridge/src/app-backup.ts); with none running this command takes the lock itself, so no
// bridge starts meanwhile, and copies the files at rest. Either way `DIR/manifest.json`, written last,
// makes the backup complete.
import { existsSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join, resolve, sep } from 'node:path';
import { DirectoryLockedError, lockDirectory } from '@domdao/canister-kit/embedded';
import { BACKUP_SOCKET, copyStopped } from '../../services/bridge/src/core/backup/copy.ts';
import { DATA, writeManifest, type BackupManifest } from '../../services/bridge/src/core/backup/manifest.ts';
import { emptyOrIncomplete } from '../../services/bridge/src/core/backup/live.ts';
import { Refusal } from './refusal.ts';

export async function backupDataDir(
  dataDirArg: string,
  toArg: string,
  say: (line: string) => void,
): Promise<BackupManifest> {
  const dataDir = resolve(dataDirArg);
  const to = resolve(toArg);
  if (!existsSync(dataDir))
    throw new Refusal(`DATA_DIR ${dataDir} does not exist: give the DATA_DIR \`npm start\` runs with`);
  if (to === dataDir || to.startsWith(dataDir + sep))
    throw new Refusal(`${to} is inside DATA_DIR ${dataDir}: give a backup directory outside it`);
  // Decision B120: a directory holding only an incomplete backup (a killed run's, no manifest) is taken again.
  if (!emptyOrIncomplete(to)) throw new Refusal(`${to} is not empty: give a new or empty directory`);
  let lock;
  try {
    lock = lockDirectory(dataDir);
  } catch (e) {
    if (!(e instanceof DirectoryLockedError)) throw e;
    say(`the bridge (PID ${e.pid}) is running: it makes the backup`);
    return askRunningBridge(dataDir, to, e.pid);
  }
  try {
    rmSync(join(to, DATA), { recursive: true, force: true });
    const made = copyStopped(dataDir, join(to, DATA));
    const manifest = writeManifest(to, {
      mode: 'stopped',
      data_dir: dataDir,
      database: made.database ? 'embedded' : 'not included (DATABASE_URL: back it up with pg_dump)',
      canisters: made.canisters ? 'embedded' : 'not included (IC canisters: back them up with canister snapshots)',
    });
    return manifest;
  } catch (e) {
    rmSync(join(to, DATA), { recursive: true, force: true }); // no manifest was written: nothing half-made is left looking whole
    throw e;
  } finally {
    lock.release();
  }
}

function askRunningBridge(dataDir: string, to: string, pid: number): Promise<BackupManifest> {
  const path = join(dataDir, BACKUP_SOCKET);
  if (!existsSync(path))
    throw new Refusal(
      `DATA_DIR ${dataDir} is in use by PID ${pid}, which serves no backup socket (${path}: BACKUP_SOCKET=false, or its path is too long): stop it, then run this again to copy the directory at rest`,
    );
  return new Promise((ok, fail) => {
    let text = '';
    const socket = createConnection(path);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ to })}\n`));
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', (e) => fail(new Refusal(`the bridge's backup socket ${path} did not answer (${e.message})`)));
    socket.on('end', () => {
      let answer: { ok?: boolean; error?: string; manifest?: BackupManifest };
      try {
        answer = JSON.parse(text) as typeof answer;
      } catch {
        return fail(new Error(`the bridge's answer is not JSON: ${text.slice(0, 200)}`));
      }
      if (answer.ok && answer.manifest) ok(answer.manifest);
      else fail(new Refusal(answer.error ?? 'the bridge refused the backup'));
    });
  });
}
