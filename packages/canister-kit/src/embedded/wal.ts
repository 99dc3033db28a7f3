// Durable state of the embedded host: a snapshot plus a write-ahead log of committed updates.
//   <dir>/snapshot.bin    "DOMDAO-SNAPSHOT\n", uint32 BE format version, then
//                         version 3 (decisions P5, P6): frames of uint32 BE length, uint32 BE CRC-32
//                         of the body, body = v8.serialize(value): {seq, stores}, then per slice a
//                         store name and its [[key,value],…], then {end: slices}; checked whole at
//                         open, each store's slices decoded on its first use;
//                         version 2 (decision P2): v8.serialize({seq, stores: [[name, entries]]});
//                         bigint and Uint8Array natively, no reviver; read before the older:
//   <dir>/snapshot.json   version 1, {"version":1,"seq":N,"stores":{"<canister>/<store>":[[key,value],…]}}
//   <dir>/wal.jsonl       one line per committed update, format 2 (decision P10, `encodeLine`):
//                         `L2 <crc32 hex> <seq>` then per store `\t"<store>"\t[[key,value]|[key],…]`,
//                         checked whole at open, each store's part decoded on its first use; format 1
//                         lines (before P10) are still read: {"seq":N,"ops":[[store,key,value]|[store,key]]}
//   <dir>/wal.<N>.jsonl   a log closed by a compaction under way (its last record is N), deleted once
//                         the snapshot holding it is in place; replayed before wal.jsonl
// Compaction runs beside the updates (decision P5): it closes the log, takes a copy-on-write clone of
// every store, and serializes it a slice at a time between turns of the event loop.
// A two-element op is a delete. By default (decision P1) an update's answer waits until its record is
// fsynced, with group commit: records appended while an fsync is in flight are written and synced
// together by the next one, so the cost of an fsync is shared by every update waiting for it. With
// `fsync: false` each record is written (not synced) before the answer: that survives a process crash,
// not a power cut. A torn last line (the process died mid-write) is dropped; damage anywhere else stops
// the host, never guessed around: sequence numbers that do not rise by one (a second writer, a spliced
// file) are refused (K21). The directory is locked for one process (K20); 0700, files 0600 (K22).
// The parts: wal-files.ts (names, errors), snapshot-format.ts, log-format.ts (replay), compaction.ts,
// group-commit.ts (fsyncs and who waits for them); this file is the log itself.
import {
  chmodSync,
  closeSync,
  existsSync,
  rmSync,
  fsyncSync,
  mkdirSync,
  readdirSync,
  renameSync,
  statSync,
  ftruncateSync,
} from 'node:fs';
import { join } from 'node:path';
import { compactInto, snapshotInto } from './compaction.ts';
import { GroupCommit } from './group-commit.ts';
import { lockDirectory, type DirectoryLock } from './lock.ts';
import { replay } from './log-format.ts';
import { encodeLine } from './record.ts';
import type { SliceRecord } from './snapshot-format.ts';
import type { Op, Snapshot, StoreEntries, WalOptions } from './wal-types.ts';
import {
  closedLogName,
  LEGACY_SNAPSHOT,
  LOG,
  LogWriteError,
  openLog,
  SNAPSHOT,
  SNAPSHOT_TMP,
  syncDirectory,
  syncDirectoryAsync,
  writeAll,
} from './wal-files.ts';

export { CorruptStateError, LogWriteError } from './wal-files.ts';
export { LazyEntries, loadedEntries } from './snapshot-format.ts';
export { LoggedEntries } from './log-format.ts';
export type { Op, Snapshot, StoreEntries, StoreLoad, WalOptions } from './wal-types.ts';

/** Default compaction size (decision P8): the log may grow to this share of the snapshot, and at least MIN_COMPACT_BYTES. */
const COMPACT_FRACTION = 8;
const MIN_COMPACT_BYTES = 16 * 1024 * 1024;

/** Bytes of zeros the open log is written ahead by, with fsync (decision P9). */
const PREALLOCATE_BYTES = 4 * 1024 * 1024;

export class WriteAheadLog {
  private fd: number;
  private seq: number;
  /** Characters of the records not yet written (for the compaction size; written bytes are `pos`). */
  private pendingChars = 0;
  /** Size of the snapshot in place, for the default compaction size. */
  private snapshotBytes: number;
  /** fsync mode: encoded records not yet written. */
  private pending: string[] = [];
  /** Where the next record goes in the open log, and how far the file is written ahead with zeros (decision P9). */
  private pos = 0;
  private allocated = 0;
  private readonly commit: GroupCommit;
  private closed = false;
  private compacting: Promise<void> | undefined;
  /** The slices of the snapshot in place, as its compaction wrote them (none after a restart: decision P15). */
  private lastSlices: Map<string, SliceRecord[]> | undefined;
  /** True from a compaction's log rotation to its end: the open log is the one written beside it (P11). */
  private besideCompaction = false;
  readonly syncs: boolean;

  private constructor(
    readonly dir: string,
    private readonly options: WalOptions,
    seq: number,
    private readonly lock: DirectoryLock,
  ) {
    const created = !existsSync(join(dir, LOG));
    this.fd = openLog(join(dir, LOG));
    chmodSync(join(dir, LOG), 0o600);
    this.syncs = options.fsync ?? true;
    if (created && this.syncs) syncDirectory(dir);
    this.seq = seq;
    this.commit = new GroupCommit(
      {
        dir,
        options,
        lastSeq: () => this.seq,
        fd: () => this.fd,
        closed: () => this.closed,
        pendingRecords: () => this.pending.length,
        writePending: () => this.writePending(),
      },
      seq,
    );
    this.pos = statSync(join(dir, LOG)).size;
    this.allocated = this.pos;
    this.snapshotBytes = existsSync(join(dir, SNAPSHOT))
      ? statSync(join(dir, SNAPSHOT)).size
      : existsSync(join(dir, LEGACY_SNAPSHOT))
        ? statSync(join(dir, LEGACY_SNAPSHOT)).size
        : 0;
  }

  /** Opens (or creates) the state in `dir` and returns it with everything committed so far. */
  static open(dir: string, options: WalOptions = {}): { wal: WriteAheadLog; state: Snapshot } {
    const state: Snapshot = new Map();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    const lock = lockDirectory(dir);
    try {
      // A compaction cut short (crash, close) leaves its unfinished snapshot behind: never read, removed.
      for (const name of readdirSync(dir)) if (SNAPSHOT_TMP.test(name)) rmSync(join(dir, name), { force: true });
      return { wal: new WriteAheadLog(dir, options, replay(dir, state), lock), state };
    } catch (e) {
      lock.release();
      throw e;
    }
  }

  /** The log size past which a compaction starts (decision P8). */
  get compactBytes(): number {
    return this.options.compactBytes ?? Math.max(MIN_COMPACT_BYTES, Math.floor(this.snapshotBytes / COMPACT_FRACTION));
  }

  /** The sequence number of the last record appended. */
  get lastSeq(): number {
    return this.seq;
  }

  /**
   * Appends one committed update; returns true when the log has grown past the compaction size.
   * Without fsync the record is written now; with fsync it is written by the next group commit
   * (`durable`), which every answer waits for.
   */
  append(ops: Op[]): boolean {
    if (ops.length === 0) return false;
    if (this.commit.failed) throw this.commit.failed;
    // An update that was under way when the host closed: its file descriptor may already be another
    // log's (a host reopened in the same process), and nothing after close() may be acknowledged.
    if (this.closed) throw new LogWriteError(`the log in ${this.dir} is closed`);
    this.seq += 1;
    const line = `${encodeLine(this.seq, ops)}\n`;
    if (this.syncs) {
      this.pending.push(line);
      this.pendingChars += line.length;
    } else this.write(Buffer.from(line, 'utf8'));
    return this.pos + this.pendingChars >= this.compactBytes && this.compacting === undefined;
  }

  /**
   * Decision P11: while a compaction runs and the log written beside it has reached the compaction size,
   * new updates wait for the compaction to end (a write stall, as RocksDB stops writes when its
   * compactions fall behind). Undefined when an update may go ahead.
   */
  stall(): Promise<void> | undefined {
    return this.stalling ? this.compacting!.catch(() => undefined) : undefined;
  }

  /** True while new updates are held by a compaction that fell behind (decision P11). */
  get stalling(): boolean {
    return this.besideCompaction && this.pos + this.pendingChars >= this.compactBytes;
  }

  /** Resolves once every record up to `seq` (default: all appended so far) is on disk and fsynced. */
  durable(seq = this.seq): Promise<void> {
    return this.syncs ? this.commit.durable(seq) : Promise.resolve();
  }

  /**
   * Writes at the log's end. With fsync the file is first written ahead with zeros (PREALLOCATE_BYTES
   * at a time, decision P9), so the fdatasync of a group flushes data blocks only: no journal commit
   * for a new file size, the cost PostgreSQL avoids by recycling zeroed WAL segments.
   */
  private write(buf: Buffer): void {
    if (this.syncs && this.pos + buf.length > this.allocated) {
      const size = Math.max(PREALLOCATE_BYTES, buf.length);
      writeAll(this.fd, Buffer.alloc(size), this.allocated);
      this.allocated += size;
    }
    writeAll(this.fd, buf, this.pos);
    this.pos += buf.length;
  }

  private writePending(): void {
    if (this.pending.length === 0) return;
    const batch = Buffer.from(this.pending.length === 1 ? this.pending[0]! : this.pending.join(''), 'utf8');
    this.pending = [];
    this.pendingChars = 0;
    this.write(batch);
  }

  /**
   * Closes the current log under the name of its last record and opens an empty one; returns that
   * sequence number. With fsync, the closed log's last fsync and the directory's run before any record
   * of the new log is synced, so what is durable is always a prefix of the sequence.
   */
  private rotate(): number {
    if (this.commit.failed) throw this.commit.failed;
    this.writePending();
    const last = this.seq;
    // A closed log holds its records only (the space written ahead is cut; its fsync below covers it).
    if (this.allocated > this.pos) ftruncateSync(this.fd, this.pos);
    renameSync(join(this.dir, LOG), join(this.dir, closedLogName(last)));
    const old = this.fd;
    try {
      this.fd = openLog(join(this.dir, LOG));
    } catch (e) {
      // The closed log is replayed in order, so nothing acknowledged is lost; but nothing more is taken.
      const error = new LogWriteError(`opening a new log in ${this.dir} failed: ${(e as Error).message}`, { cause: e });
      this.commit.fail(error);
      throw error;
    }
    this.pos = 0;
    this.allocated = 0;
    if (!this.syncs) {
      closeSync(old);
      return last;
    }
    this.commit.retire(old, last, () => syncDirectoryAsync(this.dir));
    return last;
  }

  /**
   * Writes a new snapshot and drops the log it replaces, beside the updates: the log is closed and
   * `capture` takes the state at that sequence (copy-on-write, in the same synchronous step), which is
   * then serialized a slice at a time (decision P5). Calls made while one runs wait for it and run
   * once more, so the snapshot covers everything appended before the call.
   */
  compact(capture: () => StoreEntries): Promise<void> {
    const running = this.compacting;
    const run: Promise<void> = (running ? running.catch(() => undefined) : Promise.resolve()).then(() =>
      this.compactNow(capture),
    );
    const tracked = run.finally(() => {
      this.besideCompaction = false;
      if (this.compacting === tracked) this.compacting = undefined;
    });
    this.compacting = tracked;
    return tracked;
  }

  /** The compaction started because the log grew past its size: failures are reported, not thrown. */
  compactInBackground(capture: () => StoreEntries): void {
    if (this.compacting) return;
    this.compact(capture).catch((e: Error) => {
      if (this.closed) return;
      (
        this.options.onCompactionError ??
        ((err) =>
          console.error('embedded host: compaction failed (the log keeps every update; retried when it grows):', err))
      )(e);
    });
  }

  private async compactNow(capture: () => StoreEntries): Promise<void> {
    if (this.closed) return;
    const seq = this.rotate();
    // From here the open log is the one written beside this compaction (what P11 measures).
    this.besideCompaction = true;
    await compactInto({
      dir: this.dir,
      seq,
      stores: capture(),
      options: this.options,
      // Decision P15: the snapshot in place is still the one whose slices are recorded (only an installed compaction
      // replaces it).
      lastSlices: this.options.reuseSnapshotFrames === false ? undefined : this.lastSlices,
      closed: () => this.closed,
      installed: (bytes, slices) => {
        this.snapshotBytes = bytes;
        this.lastSlices = slices;
      },
    });
  }

  /** Decision P24: `stores` (the state at `seq`) as a backup directory's snapshot, once this log holds them durably. */
  snapshotInto(dir: string, seq: number, stores: StoreEntries): Promise<void> {
    return snapshotInto(dir, seq, stores, this.options, () => this.closed).then(() => this.durable(seq));
  }

  close(): void {
    if (this.closed) return;
    if (!this.commit.failed && this.pending.length > 0) this.write(Buffer.from(this.pending.join(''), 'utf8'));
    this.pending = [];
    this.pendingChars = 0;
    // A clean close leaves the log as plain JSON lines (the space written ahead is cut).
    if (this.allocated > this.pos) ftruncateSync(this.fd, this.pos);
    // Closed logs whose last fsync had not run yet, then the open one and the directory (a rename).
    const retired = this.commit.syncRetired();
    fsyncSync(this.fd);
    if (retired) syncDirectory(this.dir);
    this.closed = true;
    this.commit.closed(this.seq);
    closeSync(this.fd);
    this.lock.release();
  }
}
