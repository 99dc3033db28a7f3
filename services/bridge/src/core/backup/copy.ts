// Decision R39: what a backup copies of DATA_DIR, by the running bridge (live.ts) or with none running
// (`npm run backup` itself): the top-level files (keys.json, the development outbox), PGlite's
// directory and the embedded canisters' state. Never the locks, the backup socket, PGlite's pid file or
// its "synced whole" marker (a restored directory is synced whole at its first start), nor a
// compaction's unfinished snapshot.
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The running bridge's backup socket in DATA_DIR (R39). */
export const BACKUP_SOCKET = 'backup.sock';
const NEVER = new Set(['.lock', BACKUP_SOCKET, 'postmaster.pid', 'DOMDAO_SYNCED_WHOLE']);
const SKIPPED = (name: string) => NEVER.has(name) || /^snapshot\.bin(\..+)?\.tmp$/.test(name) || name.endsWith('.tmp');

/** Copies the regular files of `from` (recursively when `deep`) into `to`, created 0700. */
export function copyFiles(from: string, to: string, deep: boolean): void {
  if (!existsSync(from)) return;
  mkdirSync(to, { recursive: true, mode: 0o700 });
  for (const e of readdirSync(from, { withFileTypes: true })) {
    if (SKIPPED(e.name)) continue;
    if (e.isFile()) copyFileSync(join(from, e.name), join(to, e.name));
    else if (e.isDirectory() && deep) copyFiles(join(from, e.name), join(to, e.name), true);
  }
}

/** With no bridge running (its lock held by the caller): DATA_DIR's files as they are at rest. */
export function copyStopped(dataDir: string, data: string): { database: boolean; canisters: boolean } {
  copyFiles(dataDir, data, false);
  const database = existsSync(join(dataDir, 'pglite'));
  const canisters = existsSync(join(dataDir, 'canisters'));
  if (database) copyFiles(join(dataDir, 'pglite'), join(data, 'pglite'), true);
  if (canisters) copyFiles(join(dataDir, 'canisters'), join(data, 'canisters'), false);
  return { database, canisters };
}
