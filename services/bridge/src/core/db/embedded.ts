// The embedded database: PGlite (PostgreSQL 18 compiled to wasm, in the bridge's process) under the
// data directory, or in memory. How a directory is created, opened, and carried over from the
// PostgreSQL 17 of earlier releases (decision P13).
import { spawn } from 'node:child_process';
import {
  closeSync,
  cpSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { DurableNodeFS } from './durable-nodefs.ts';
import { EmbeddedDatabaseFailed } from './errors.ts';
import { carryOverFrom17, type CarriedOver } from './embedded-upgrade.ts';
import type { Lite } from './pglite-dialect.ts';

/**
 * PGlite's build reserves 160 MB of shared buffers and touches all of it at start. The embedded
 * database is a development and small-DAO default whose data is a few megabytes; 16 MB of buffers
 * (2,048 pages) holds it. A deployment that wants more points DATABASE_URL at PostgreSQL.
 */
export const EMBEDDED_SHARED_BUFFERS = '16MB';
export const EMBEDDED_START_PARAMS: readonly string[] = [
  ...PGlite.defaultStartParams,
  '-c',
  `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`,
];
/**
 * Decision P16: PGlite starts PostgreSQL with `-F` (fsync off). A data directory is opened with fsync
 * on instead, through a mount whose syncs reach the disk, and `wal_sync_method=fsync`: emscripten's
 * `fdatasync` (PostgreSQL's default on Linux) is a no-op, its `fsync` reaches the mount.
 */
const DURABLE_START_PARAMS: readonly string[] = [
  ...EMBEDDED_START_PARAMS.filter((p) => p !== '-F'),
  '-c',
  'wal_sync_method=fsync',
];
const MAJOR = '18';
const UPGRADE_DONE = 'UPGRADED_FROM_POSTGRES_17';
/**
 * Present only while the directory is known to be on disk whole: written after a whole-tree sync and at
 * a durable run's clean close, removed at every start. A start without it (after a run with fsync off,
 * PGlite's `-F` before P16 or EMBEDDED_DATABASE_FSYNC=false; after a crash; after a release that knows
 * no marker) syncs the whole tree before a durable run: what such a run wrote may sit in the page cache
 * only, and a checkpoint of the durable run could recycle the log that would redo it (PostgreSQL's own
 * documentation asks for this sync when fsync is turned back on).
 */
const SYNCED_WHOLE = 'DOMDAO_SYNCED_WHOLE';

export interface EmbeddedUpgrade extends CarriedOver {
  /** Where the PostgreSQL 17 directory was kept, untouched. */
  backup: string;
}

export interface OpenEmbeddedOptions {
  /** Brings a database to this release's schema (the one migration set). */
  migrate(lite: Lite): Promise<void>;
  /** Told once a PostgreSQL 17 directory has been carried over. */
  onUpgrade?: (upgrade: EmbeddedUpgrade) => void;
  /**
   * Default true: every commit is fsynced before it is answered, and checkpoints sync what they write
   * (decision P16); false: PGlite's own `-F`, commits survive a crash of the process only.
   */
  fsync?: boolean;
  /**
   * Test instrumentation: told of each sync of the data directory (a commit's, a checkpoint's, the
   * whole tree's), with its file descriptor, once it completed. A throw stands for a failed sync.
   */
  onSync?: (fd: number) => void;
  /** Told once when a sync failed: the database refuses every later statement (EmbeddedDatabaseFailed). */
  onSyncFailed?: (err: EmbeddedDatabaseFailed) => void;
  /** Tests only (decision R25): makes initdb's output at `building` in place of initdb's child process. */
  initdb?: (building: string) => Promise<void>;
  /** Told when a new directory is being created, and when it is (decision R32: a first start takes a while). */
  onProgress?: (progress: { step: 'creating'; dir: string } | { step: 'created'; ms: number }) => void;
}

export async function openEmbedded(dir: string | undefined, options: OpenEmbeddedOptions): Promise<PGlite> {
  if (dir !== undefined) {
    if (existsSync(dir) && !statSync(dir).isDirectory())
      throw new Error(`${dir} is not a directory; the embedded database needs it to be one (or absent)`);
    settleInterrupted(dir);
    const version = majorVersion(dir);
    if (version === undefined) {
      // A carried-over database whose directory has gone: never start empty beside it.
      const kept = (existsSync(dirname(dir)) ? readdirSync(dirname(dir)) : []).find((n) =>
        n.startsWith(`${basename(dir)}.postgres17`),
      );
      if (kept && (!existsSync(dir) || readdirSync(dir).length === 0))
        throw new Error(
          `${dir} is missing but ${join(dirname(dir), kept)} holds the database it was carried over from; move that back to ${dir} (it will be carried over again) or remove it to start empty`,
        );
      const started = Date.now();
      options.onProgress?.({ step: 'creating', dir });
      await create(dir, options.initdb);
      options.onProgress?.({ step: 'created', ms: Date.now() - started });
    } else if (version === '17') {
      const upgraded = await upgrade(dir, options);
      options.onUpgrade?.(upgraded);
    } else if (version !== MAJOR)
      throw new Error(
        `${dir} holds a PostgreSQL ${version} database; this release's embedded database is PostgreSQL ${MAJOR} and carries over only 17`,
      );
  }
  return start(dir, options);
}

async function start(dir: string | undefined, options: OpenEmbeddedOptions): Promise<PGlite> {
  const durable = dir !== undefined && options.fsync !== false;
  if (dir !== undefined) {
    const marker = join(dir, SYNCED_WHOLE);
    if (existsSync(marker)) {
      rmSync(marker);
      fsyncPath(dir);
    } else if (durable) syncTree(dir, options.onSync);
  }
  let failed: EmbeddedDatabaseFailed | undefined;
  const onSyncFailed = (err: unknown) => {
    if (failed) return;
    failed = new EmbeddedDatabaseFailed(
      `a sync of the embedded database in ${dir} failed (${err instanceof Error ? err.message : String(err)}); it refuses every statement until the bridge restarts, which recovers it from its log`,
      { cause: err },
    );
    options.onSyncFailed?.(failed);
  };
  const lite = durable
    ? new PGlite({
        extensions: { vector },
        startParams: [...DURABLE_START_PARAMS],
        fs: new DurableNodeFS(dir, { onSyncFailed, ...(options.onSync && { onSync: options.onSync }) }),
      })
    : dir === undefined
      ? new PGlite({ extensions: { vector }, startParams: [...EMBEDDED_START_PARAMS] })
      : new PGlite(dir, { extensions: { vector }, startParams: [...EMBEDDED_START_PARAMS] });
  await lite.waitReady;
  if (durable) {
    // The instance's own entry points, guarded: PGlite has no hook before a statement.
    const guarded = <F extends (...args: never[]) => Promise<unknown>>(f: F): F =>
      ((...args) => (failed ? Promise.reject(failed) : f.apply(lite, args))) as F;
    lite.query = guarded(lite.query);
    lite.exec = guarded(lite.exec);
    lite.transaction = guarded(lite.transaction);
    const close = lite.close.bind(lite);
    // Closing runs a shutdown checkpoint, which would block as a statement does after a failed sync; the
    // files are released with the process. A clean close leaves everything on disk: the marker says so.
    lite.close = async () => {
      if (failed) return;
      await close();
      try {
        markSyncedWhole(dir);
      } catch {
        // Without the marker the next start syncs the whole tree: slower, never wrong.
      }
    };
  }
  return lite;
}

function majorVersion(dir: string): string | undefined {
  const file = join(dir, 'PG_VERSION');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
}

/**
 * A creation or upgrade cut short by a crash: a directory being created held nothing acknowledged
 * and is discarded; an upgrade whose copy completed but whose swap did not is finished; one that had
 * not completed is discarded (the PostgreSQL 17 directory is still in place) and runs again.
 */
function settleInterrupted(dir: string): void {
  const parent = dirname(dir);
  const name = basename(dir);
  if (!existsSync(parent)) return;
  // Directories being built (by this bridge or a killed one's orphaned child) and the scratch copy of
  // a 17 directory: nothing acknowledged is in them.
  for (const n of readdirSync(parent))
    if (n.startsWith(`${name}.`) && (n.includes('.creating') || n.endsWith('.source17')))
      rmSync(join(parent, n), { recursive: true, force: true });
  const upgrading = `${dir}.upgrading`;
  if (!existsSync(upgrading)) return;
  const empty = !existsSync(dir) || readdirSync(dir).length === 0;
  if (existsSync(join(upgrading, UPGRADE_DONE)) && empty) {
    rmSync(dir, { recursive: true, force: true });
    renameSync(upgrading, dir);
    fsyncPath(parent);
    rmSync(join(dir, UPGRADE_DONE));
    fsyncPath(dir);
  } else rmSync(upgrading, { recursive: true, force: true });
}

/**
 * initdb runs in a child process: its one-time memory (a second wasm instance and the code compiled
 * for it, ~190 MiB) goes back to the system when the child ends instead of staying in the bridge's
 * resident set. It builds beside the directory and is renamed in, so a crash leaves no half-made one.
 */
async function create(dir: string, initdb = initdbChild): Promise<void> {
  if (existsSync(dir)) {
    if (readdirSync(dir).length > 0)
      throw new Error(
        `${dir} is not empty and holds no PostgreSQL database (no PG_VERSION); move it away or set DATA_DIR elsewhere`,
      );
    rmSync(dir, { recursive: true });
  }
  const building = `${dir}.creating-${process.pid}`;
  mkdirSync(dirname(dir), { recursive: true });
  try {
    await initdb(building);
  } catch (e) {
    rmSync(building, { recursive: true, force: true });
    throw new Error(`creating the embedded database in ${dir} failed: ${e instanceof Error ? e.message : String(e)}`, {
      cause: e,
    });
  }
  if (majorVersion(building) !== MAJOR) {
    rmSync(building, { recursive: true, force: true });
    throw new Error(`creating the embedded database in ${dir} failed: no PostgreSQL ${MAJOR} database was made`);
  }
  // PGlite runs PostgreSQL with fsync off (-F): what initdb wrote reaches the disk here, before the rename.
  syncTree(building);
  markSyncedWhole(building);
  renameSync(building, dir);
  fsyncPath(dirname(dir));
}

/** initdb in a child process, into `building` (see `create`). */
export async function initdbChild(building: string): Promise<void> {
  const script = fileURLToPath(new URL('./pglite-initdb.mjs', import.meta.url));
  // V8's baseline compiler only: initdb's peak is ≈680 MB resident instead of ≈790, and it finishes sooner.
  const child = spawn(process.execPath, ['--liftoff-only', script, building, JSON.stringify(EMBEDDED_START_PARAMS)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr = (stderr + s).slice(-4000)));
  // A bridge that exits meanwhile (a signal's grace period ended, decision R14) takes the child with it;
  // the half-built directory is discarded by the next start.
  const orphan = () => child.kill('SIGKILL');
  process.once('exit', orphan);
  const code = await new Promise<number | null>((resolve, reject) =>
    child.once('error', reject).once('exit', resolve),
  ).finally(() => process.off('exit', orphan));
  if (code !== 0) throw new Error(`initdb exited with ${code}: ${stderr.trim() || 'no output'}`);
}

/**
 * PostgreSQL 17 (PGlite 0.3) → 18: a new directory is created beside the old one and every row and
 * sequence copied in; the old directory is then kept as `<dir>.postgres17` and the new one renamed
 * into its place. The marker written before the swap lets a restart finish an interrupted swap.
 */
async function upgrade(dir: string, options: OpenEmbeddedOptions): Promise<EmbeddedUpgrade> {
  const target = `${dir}.upgrading`;
  // The old engine opens and migrates a copy: the 17 directory itself is kept exactly as it was, so
  // the release that wrote it can still open it.
  const source = `${dir}.source17`;
  cpSync(dir, source, { recursive: true });
  let carried: CarriedOver;
  try {
    await create(target, options.initdb);
    // Bulk rows with fsync off: the whole tree is synced once below, before the marker.
    const fresh = await start(target, { ...options, fsync: false });
    try {
      carried = await carryOverFrom17(source, fresh, options.migrate);
    } finally {
      await fresh.close();
    }
  } catch (e) {
    rmSync(target, { recursive: true, force: true });
    throw new Error(
      `carrying the embedded database in ${dir} over from PostgreSQL 17 to ${MAJOR} failed, and it is left as it was: ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    );
  } finally {
    rmSync(source, { recursive: true, force: true });
  }
  // The copied rows are on disk before the marker says they are complete.
  syncTree(target);
  durableWrite(join(target, SYNCED_WHOLE), '');
  durableWrite(join(target, UPGRADE_DONE), JSON.stringify(carried));
  fsyncPath(target);
  let backup = `${dir}.postgres17`;
  if (existsSync(backup)) backup = `${backup}-${Date.now()}`;
  renameSync(dir, backup);
  fsyncPath(dirname(dir));
  renameSync(target, dir);
  fsyncPath(dirname(dir));
  rmSync(join(dir, UPGRADE_DONE));
  fsyncPath(dir);
  return { ...carried, backup };
}

/** Every file and directory under `root` (and `root` itself) flushed to disk. */
function syncTree(root: string, onSync?: (fd: number) => void): void {
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) syncTree(path, onSync);
    else if (entry.isFile()) fsyncPath(path, onSync);
  }
  fsyncPath(root, onSync);
}

function markSyncedWhole(dir: string): void {
  durableWrite(join(dir, SYNCED_WHOLE), '');
  fsyncPath(dir);
}

function durableWrite(file: string, text: string): void {
  writeFileSync(file, text);
  fsyncPath(file);
}

/** fsync of a file, or of a directory (its entries: a rename, a new file). */
function fsyncPath(path: string, onSync?: (fd: number) => void): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
    onSync?.(fd);
  } finally {
    closeSync(fd);
  }
}
