// `npm run restore -- --from DIR` (decisions R39, R40): DATA_DIR put back as a backup holds it. Nothing
// is changed unless every check passes: the backup is complete and every file matches its checksum, and
// no process holds DATA_DIR (a running bridge would go on with its own state in memory). The backup is
// copied beside DATA_DIR and checked again there, then swapped in with two renames; the directory it
// replaces is kept beside it (`DATA_DIR.before-restore-<time>`) for the operator to remove.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { DirectoryLockedError, lockDirectory } from '@domdao/canister-kit/embedded';
import { copyFiles } from '../../services/bridge/src/core/backup/copy.ts';
import {
  BackupDamaged,
  DATA,
  syncDir,
  verifyBackup,
  type BackupManifest,
} from '../../services/bridge/src/core/backup/manifest.ts';
import { Refusal } from './refusal.ts';

export function restoreDataDir(fromArg: string, dataDirArg: string, say: (line: string) => void): BackupManifest {
  const from = resolve(fromArg);
  const dataDir = resolve(dataDirArg);
  let manifest: BackupManifest;
  try {
    manifest = verifyBackup(from);
  } catch (e) {
    if (e instanceof BackupDamaged) throw new Refusal(`${e.message}; nothing was changed`);
    throw e;
  }
  const lock = existsSync(dataDir) ? takeLock(dataDir) : undefined;
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const staging = join(dirname(dataDir), `${basename(dataDir)}.restoring-${stamp}`);
  const aside = join(dirname(dataDir), `${basename(dataDir)}.before-restore-${stamp}`);
  try {
    copyFiles(join(from, DATA), staging, true);
    // The copy is checked as the backup was: a disk that garbles it fails here, before the swap.
    for (const f of manifest.files) {
      const content = readFileSync(join(staging, f.path));
      if (createHash('sha256').update(content).digest('hex') !== f.sha256)
        throw new Error(`the copy of ${f.path} in ${staging} does not match its checksum`);
    }
    syncDir(staging);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    lock?.release();
    throw e;
  }
  if (lock) {
    renameSync(dataDir, aside);
    unlinkSync(join(aside, '.lock')); // ours, now beside the directory it locked
  }
  renameSync(staging, dataDir);
  syncDir(dirname(dataDir));
  say(
    `restored ${dataDir} from ${from} (a ${manifest.mode} backup made ${manifest.created_at}, ${manifest.files.length} files)`,
  );
  if (lock)
    say(`the directory it replaced is kept at ${aside}: remove it once the restored platform runs as it should`);
  if (manifest.database !== 'embedded')
    say(
      `the database is not in this backup: restore it with pg_restore from the dump made with it (docs/operations/backup-and-restore.md)`,
    );
  if (manifest.canisters !== 'embedded')
    say(
      `the canisters are not in this backup: load their snapshots with \`npm run backup -- --ic restore\` (docs/operations/backup-and-restore.md)`,
    );
  return manifest;
}

function takeLock(dataDir: string) {
  try {
    return lockDirectory(dataDir);
  } catch (e) {
    if (e instanceof DirectoryLockedError)
      throw new Refusal(
        `DATA_DIR ${dataDir} is in use by a running process (PID ${e.pid}): stop the platform first; nothing was changed`,
      );
    throw e;
  }
}
