// PGlite's Node file system with a real fsync (decision P16). PGlite mounts the data directory with
// emscripten's NODEFS, whose streams have no `fsync`: a sync from PostgreSQL reaches no disk, so
// commits survive a crash of the process but not a power cut. This mount gives NODEFS streams the sync
// of the file they stand for, and the embedded database is started with fsync on and
// `wal_sync_method=fsync` (emscripten's `fdatasync` is a no-op that never reaches the stream).
import { fdatasyncSync, fsyncSync } from 'node:fs';
import { NodeFS } from '@electric-sql/pglite/nodefs';

type NodeFsInit = NodeFS['init'];
type EmscriptenOpts = Awaited<ReturnType<NodeFsInit>>['emscriptenOpts'];

/** What the mount needs of an emscripten module: its NODEFS stream operations and `isDir`. */
interface EmscriptenModule {
  FS: {
    filesystems: { NODEFS: { stream_ops: Record<string, unknown>; tryFSOperation<T>(fn: () => T): T } };
    isDir(mode: number): boolean;
    ErrnoError: new (errno: number) => Error & { errno?: number };
  };
}
interface NodeStream {
  nfd: number;
  node: { mode: number };
}

export interface DurableNodeFsOptions {
  /** Test instrumentation: told of each sync, with the file descriptor, after it completed; a throw stands for a failed sync. */
  onSync?: (fd: number) => void;
  /** Told of a failed sync, before PostgreSQL is (it answers the commit with a PANIC). */
  onSyncFailed?: (err: unknown) => void;
}

// WASI errno numbers, as emscripten's file system reports them to PostgreSQL.
const EBADF = 8;
const EIO = 29;

export class DurableNodeFS extends NodeFS {
  constructor(
    dataDir: string,
    private readonly options: DurableNodeFsOptions = {},
  ) {
    super(dataDir);
  }

  override async init(...args: Parameters<NodeFsInit>): ReturnType<NodeFsInit> {
    const result = await super.init(...args);
    const opts = result.emscriptenOpts as EmscriptenOpts & { preRun?: Array<(mod: EmscriptenModule) => void> };
    const { onSync, onSyncFailed } = this.options;
    opts.preRun = [
      ...(opts.preRun ?? []),
      (mod: EmscriptenModule) => {
        // Data and WAL files: fdatasync (their size is data, synced too); directories (a created or
        // renamed file's entry, as PostgreSQL's fsync_fname asks): fsync.
        // A failed sync reaches PostgreSQL as its errno, and PostgreSQL answers the commit with a PANIC
        // rather than carry on past it, as it does on any disk (what follows: EmbeddedDatabaseFailed).
        const { FS } = mod;
        const nodefs = FS.filesystems.NODEFS;
        // NODEFS's own translation of a Node error; a code it does not know must still fail the sync,
        // never reach PostgreSQL as a success.
        const errnoOf = (e: unknown): Error => {
          try {
            nodefs.tryFSOperation(() => {
              throw e;
            });
          } catch (t) {
            if (t instanceof FS.ErrnoError && typeof (t as { errno?: unknown }).errno === 'number') return t;
          }
          return new FS.ErrnoError(EIO);
        };
        nodefs.stream_ops.fsync = (stream: NodeStream) => {
          if (typeof stream.nfd !== 'number') throw new FS.ErrnoError(EBADF);
          const dir = FS.isDir(stream.node.mode);
          try {
            if (dir) fsyncSync(stream.nfd);
            else fdatasyncSync(stream.nfd);
            onSync?.(stream.nfd);
          } catch (e) {
            // PostgreSQL itself ignores EBADF and EINVAL from a directory (file systems that cannot sync
            // one) and goes on; so the database is not failed for them either.
            const code = (e as { code?: unknown }).code;
            if (!(dir && (code === 'EBADF' || code === 'EINVAL'))) onSyncFailed?.(e);
            throw errnoOf(e);
          }
          return 0;
        };
      },
    ];
    return result;
  }
}
