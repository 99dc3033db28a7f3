// Decisions R39, P25: a consistent copy of DATA_DIR made by the running bridge. The embedded database is held
// at a statement boundary for the length of a file copy of its directory: the dialect's one connection
// is taken (no transaction is open, none starts), a CHECKPOINT makes the files whole, and in the same
// hold the embedded canisters' committed state is taken (a copy-on-write clone, as a compaction takes
// it). Both are the state of one moment: a restore is what a crash at that moment would have left, which
// the reconciler is built for (durable record first, idempotent calls). The canisters' snapshot is then
// written beside the updates, which never wait; requests wait for the database copy only.
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { EmbeddedHost } from '@domdao/canister-kit/embedded';
import { SET_FILE } from '../canister-set/identity.ts';
import { copyFiles } from './copy.ts';
import { DATA, writeManifest, type BackupManifest } from './manifest.ts';

export interface LiveSources {
  dataDir: string;
  /** The embedded database (undefined on PostgreSQL: pg_dump's, R41). */
  db: Kysely<unknown> | undefined;
  /** The embedded canisters' host (undefined on an IC network: canister snapshots, W27). */
  host: EmbeddedHost | undefined;
}

/** A refused request: the backup was not started (nothing was written). */
export class BackupRefused extends Error {
  override name = 'BackupRefused';
}

export async function liveBackup(src: LiveSources, target: string): Promise<BackupManifest> {
  const to = resolve(target);
  const dataDir = resolve(src.dataDir);
  if (to === dataDir || to.startsWith(dataDir + sep)) throw new BackupRefused(`${to} is inside DATA_DIR ${dataDir}: give a backup directory outside it`);
  if (existsSync(to) && readdirSync(to).length > 0) throw new BackupRefused(`${to} is not empty: give a new or empty directory`);
  const pglite = join(dataDir, 'pglite');
  if (src.db && !existsSync(pglite)) throw new BackupRefused(`the embedded database is not in ${pglite}: this bridge cannot copy it`);
  const data = join(to, DATA);
  mkdirSync(data, { recursive: true, mode: 0o700 });
  let canisters: Promise<number> | undefined;
  const take = () => {
    canisters = src.host?.backupInto(join(data, 'canisters'));
    canisters?.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
  };
  if (src.db) {
    await src.db.connection().execute(async (conn) => {
      await sql`CHECKPOINT`.execute(conn);
      take();
      copyFiles(pglite, join(data, 'pglite'), true);
    });
  } else take();
  const seq = await canisters;
  copyFiles(dataDir, data, false);
  // The set's id goes with its state (decision B100): the restored database and canisters are one set.
  if (src.host && existsSync(join(dataDir, 'canisters', SET_FILE))) copyFileSync(join(dataDir, 'canisters', SET_FILE), join(data, 'canisters', SET_FILE));
  return writeManifest(to, {
    mode: 'live',
    data_dir: dataDir,
    database: src.db ? 'embedded' : 'not included (DATABASE_URL: back it up with pg_dump)',
    canisters: src.host ? 'embedded' : 'not included (IC canisters: back them up with canister snapshots)',
    ...(seq !== undefined && { canister_seq: seq }),
  });
}
