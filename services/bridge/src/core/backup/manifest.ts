// Decision R40: what makes a directory a backup of DATA_DIR. The copy is under `data/`; `manifest.json`,
// written last (to a temporary name, synced, renamed), lists every file with its size and SHA-256. A
// directory without it is incomplete (a backup cut short); a file missing, changed, or not listed makes
// it damaged. Restore checks all of it before it changes anything.
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, sep } from 'node:path';

export const MANIFEST = 'manifest.json';
export const DATA = 'data';
const FORMAT = 'domdao-data-dir-backup';

export interface BackupManifest {
  format: typeof FORMAT;
  version: 1;
  created_at: string;
  /** `live`: made by the running bridge at one moment (R39); `stopped`: copied with no bridge running. */
  mode: 'live' | 'stopped';
  data_dir: string;
  /** What the copy holds: PGlite's directory, the embedded canisters' state (at `canister_seq`), or neither (R41). */
  database: 'embedded' | 'not included (DATABASE_URL: back it up with pg_dump)';
  canisters: 'embedded' | 'not included (IC canisters: back them up with canister snapshots)';
  canister_seq?: number;
  files: Array<{ path: string; bytes: number; sha256: string }>;
}

export class BackupDamaged extends Error {
  override name = 'BackupDamaged';
}

/** Every regular file under `dir`, as paths relative to it with `/` separators, sorted. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(relative(dir, p).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/** SHA-256 of a file; the file is fsynced on the way (a backup's files are on disk before its manifest). */
function hashAndSync(path: string): { bytes: number; sha256: string } {
  const content = readFileSync(path);
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { bytes: content.length, sha256: createHash('sha256').update(content).digest('hex') };
}

export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Lists `backup/data` in `backup/manifest.json`, the step that makes the backup complete. */
export function writeManifest(
  backup: string,
  meta: Omit<BackupManifest, 'format' | 'version' | 'created_at' | 'files'>,
): BackupManifest {
  const data = join(backup, DATA);
  const files = filesUnder(data).map((path) => ({ path, ...hashAndSync(join(data, path)) }));
  for (const d of new Set(files.map((f) => f.path.split('/').slice(0, -1).join('/')))) syncDir(join(data, d));
  const manifest: BackupManifest = { format: FORMAT, version: 1, created_at: new Date().toISOString(), ...meta, files };
  const tmp = join(backup, `${MANIFEST}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  hashAndSync(tmp);
  renameSync(tmp, join(backup, MANIFEST));
  syncDir(backup);
  return manifest;
}

/** The backup's manifest once every file checks; otherwise BackupDamaged naming what is wrong. */
export function verifyBackup(backup: string): BackupManifest {
  const path = join(backup, MANIFEST);
  if (!existsSync(backup) || !statSync(backup).isDirectory()) throw new BackupDamaged(`${backup} is not a directory`);
  if (!existsSync(path))
    throw new BackupDamaged(`${backup} has no ${MANIFEST}: it is incomplete (a backup cut short) or not a backup`);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8')) as BackupManifest;
  } catch (e) {
    throw new BackupDamaged(`${path} is not readable JSON (${(e as Error).message}): the backup is damaged`);
  }
  if (manifest?.format !== FORMAT || manifest.version !== 1 || !Array.isArray(manifest.files))
    throw new BackupDamaged(`${path} is not the manifest of a DATA_DIR backup (format ${FORMAT}, version 1)`);
  const data = join(backup, DATA);
  const present = existsSync(data) ? filesUnder(data) : [];
  const listed = new Set(manifest.files.map((f) => f.path));
  const extra = present.filter((p) => !listed.has(p));
  if (extra.length > 0)
    throw new BackupDamaged(
      `${backup} holds ${extra.length} file(s) its manifest does not list (${extra.slice(0, 3).join(', ')}): the backup is damaged`,
    );
  for (const f of manifest.files) {
    const file = join(data, f.path);
    if (!existsSync(file)) throw new BackupDamaged(`${f.path} is missing from ${backup}: the backup is damaged`);
    const content = readFileSync(file);
    if (content.length !== f.bytes || createHash('sha256').update(content).digest('hex') !== f.sha256)
      throw new BackupDamaged(
        `${f.path} in ${backup} does not match its checksum in ${MANIFEST}: the backup is damaged`,
      );
  }
  return manifest;
}
