// Decisions R39, P25: a consistent copy of DATA_DIR made by the running bridge. The embedded database is held
// at a statement boundary for the length of a file copy of its directory: the dialect's one connection
// is taken (no transaction is open, none starts), a CHECKPOINT makes the files whole, and in the same
// hold the embedded canisters' committed state is taken (a copy-on-write clone, as a compaction takes
// it). Both are the state of one moment: a restore is what a crash at that moment would have left, which
// the reconciler is built for (durable record first, idempotent calls). The canisters' snapshot is then
// written beside the updates, which never wait; requests wait for the database copy only.
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { EmbeddedHost } from '@domdao/canister-kit/embedded';
import { SET_FILE } from '../canister-set/identity.ts';
import { copyFiles } from './copy.ts';
import { DATA, MANIFEST, writeManifest, type BackupManifest } from './manifest.ts';

export interface LiveSources {
  dataDir: string;
  /** The embedded database (undefined on PostgreSQL: pg_dump's, R41). */
  db: Kysely<unknown> | undefined;
  /** The embedded canisters' host (undefined on an IC network: canister snapshots, W27). */
  host: EmbeddedHost | undefined;
  /** Whether the one who asked is gone (`npm run backup` killed): the backup is then abandoned at the next step (decision B120). */
  abandoned?: () => boolean;
  /** Tests only: awaited at each step (a test kills the asking process there). */
  pause?: (step: 'after-database' | 'before-manifest') => Promise<void>;
}

/** The asking process went away mid-way: what was copied is removed, no manifest is written. */
export class BackupAbandoned extends Error {
  override name = 'BackupAbandoned';
}

/** A refused request: the backup was not started (nothing was written). */
export class BackupRefused extends Error {
  override name = 'BackupRefused';
}

export async function liveBackup(src: LiveSources, target: string): Promise<BackupManifest> {
  const to = resolve(target);
  const dataDir = resolve(src.dataDir);
  if (to === dataDir || to.startsWith(dataDir + sep))
    throw new BackupRefused(`${to} is inside DATA_DIR ${dataDir}: give a backup directory outside it`);
  if (!emptyOrIncomplete(to)) throw new BackupRefused(`${to} is not empty: give a new or empty directory`);
  const pglite = join(dataDir, 'pglite');
  if (src.db && !existsSync(pglite))
    throw new BackupRefused(`the embedded database is not in ${pglite}: this bridge cannot copy it`);
  const data = join(to, DATA);
  // Decision B120: an incomplete backup a killed run left (no manifest) is replaced, never taken for one.
  rmSync(data, { recursive: true, force: true });
  rmSync(join(to, `${MANIFEST}.tmp`), { force: true });
  mkdirSync(data, { recursive: true, mode: 0o700 });
  try {
    return await copyLive(src, dataDir, to, data);
  } catch (e) {
    rmSync(data, { recursive: true, force: true }); // no manifest was written: nothing half-made is left looking whole
    throw e;
  }
}

async function copyLive(src: LiveSources, dataDir: string, to: string, data: string): Promise<BackupManifest> {
  const step = async (name: 'after-database' | 'before-manifest') => {
    await src.pause?.(name);
    if (src.abandoned?.())
      throw new BackupAbandoned(
        `the process that asked for the backup went away ${name === 'after-database' ? 'after the database was copied' : 'before the manifest was written'}`,
      );
  };
  let canisters: Promise<number> | undefined;
  const take = () => {
    canisters = src.host?.backupInto(join(data, 'canisters'));
    canisters?.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
  };
  const pglite = join(dataDir, 'pglite');
  if (src.db) {
    await src.db.connection().execute(async (conn) => {
      await sql`CHECKPOINT`.execute(conn);
      take();
      copyFiles(pglite, join(data, 'pglite'), true);
    });
  } else take();
  const seq = await canisters;
  await step('after-database');
  copyFiles(dataDir, data, false);
  // The set's id goes with its state (decision B100): the restored database and canisters are one set.
  if (src.host && existsSync(join(dataDir, 'canisters', SET_FILE)))
    copyFileSync(join(dataDir, 'canisters', SET_FILE), join(data, 'canisters', SET_FILE));
  await step('before-manifest');
  return writeManifest(to, {
    mode: 'live',
    data_dir: dataDir,
    database: src.db ? 'embedded' : 'not included (DATABASE_URL: back it up with pg_dump)',
    canisters: src.host ? 'embedded' : 'not included (IC canisters: back them up with canister snapshots)',
    ...(seq !== undefined && { canister_seq: seq }),
  });
}

/** A new or empty directory, or one holding only an incomplete backup (its `data/`, no manifest): a killed run's. */
export function emptyOrIncomplete(dir: string): boolean {
  if (!existsSync(dir)) return true;
  return readdirSync(dir).every((n) => n === DATA || n === `${MANIFEST}.tmp`);
}
