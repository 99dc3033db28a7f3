// Durable state of the embedded host: a snapshot plus a write-ahead log of committed updates.
//   <dir>/snapshot.bin    "DOMDAO-SNAPSHOT\n", uint32 BE format version (2), then v8.serialize of
//                         {seq, stores: [[name, [[key,value],…]],…]} (decision P2: bigint and Uint8Array
//                         natively, no reviver); read before the older:
//   <dir>/snapshot.json   version 1, {"version":1,"seq":N,"stores":{"<canister>/<store>":[[key,value],…]}}
//   <dir>/wal.jsonl       one line per committed update: {"seq":N,"ops":[[store,key,value]|[store,key]]}
// A two-element op is a delete. By default (decision P1) an update's answer waits until its record is
// fsynced, with group commit: records appended while an fsync is in flight are written and synced
// together by the next one, so the cost of an fsync is shared by every update waiting for it. With
// `fsync: false` each record is written (not synced) before the answer: that survives a process crash,
// not a power cut. A torn last line
// (the process died mid-write) is dropped; damage anywhere else stops the host, never guessed around:
// sequence numbers that do not rise by one (a second writer, a spliced file) are refused (K21).
// The directory is locked for one process (K20); it is 0700 and its files 0600 (they hold password
// hashes and tokens, K22).
import { appendFileSync, chmodSync, closeSync, existsSync, rmSync, fsync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { decode, encode } from '../codec.ts';
import type { StoreKey } from '../store.ts';
import { lockDirectory, type DirectoryLock } from './lock.ts';

export type Op = [store: string, key: StoreKey, value: unknown] | [store: string, key: StoreKey];
export type Snapshot = Map<string, Array<[StoreKey, unknown]>>;

/** Overlapping fsyncs of the log: one syncing while the next group is written and started. */
const MAX_FSYNCS_IN_FLIGHT = 2;

export class CorruptStateError extends Error {
  override name = 'CorruptStateError';
}

export interface WalOptions {
  /**
   * Default true (decision P1): an update is answered only once its record is fsynced (group commit),
   * so it survives a power cut. false: written before the answer, not synced (survives a process crash).
   */
  fsync?: boolean;
  /** Compact into a new snapshot once the log passes this size. */
  compactBytes?: number;
  /**
   * Test instrumentation of group commit: `before` may delay an fsync (it cannot skip it: the log
   * syncs after it settles), `after` observes each completed one with the sequence it made durable.
   */
  fsyncProbe?: { before?: () => void | Promise<void>; after?: (durableSeq: number) => void };
}

/** The log failed to write or fsync: what it acknowledged is safe, nothing after it is (PostgreSQL panics likewise). */
export class LogWriteError extends Error {
  override name = 'LogWriteError';
}

const SNAPSHOT = 'snapshot.bin';
const LEGACY_SNAPSHOT = 'snapshot.json';
const SNAPSHOT_MAGIC = Buffer.from('DOMDAO-SNAPSHOT\n', 'latin1');
const SNAPSHOT_VERSION = 2;

/** The newest snapshot in `dir`: the binary format (version 2) or, from before it, the JSON one (version 1). */
function readSnapshot(dir: string): { seq: number; stores: Array<[string, Array<[StoreKey, unknown]>]> } | undefined {
  const binPath = join(dir, SNAPSHOT);
  if (existsSync(binPath)) {
    chmodSync(binPath, 0o600);
    const bytes = readFileSync(binPath);
    const head = SNAPSHOT_MAGIC.length;
    if (bytes.length < head + 4 || !bytes.subarray(0, head).equals(SNAPSHOT_MAGIC)) throw new CorruptStateError(`${binPath} is not a snapshot`);
    const version = bytes.readUInt32BE(head);
    if (version !== SNAPSHOT_VERSION) throw new CorruptStateError(`unknown snapshot version ${version} in ${binPath}`);
    let snap: { seq: number; stores: Array<[string, Array<[StoreKey, unknown]>]> };
    try {
      snap = deserialize(bytes.subarray(head + 4)) as typeof snap;
    } catch (e) {
      throw new CorruptStateError(`unreadable snapshot ${binPath}: ${(e as Error).message}`);
    }
    if (!Number.isSafeInteger(snap?.seq) || !Array.isArray(snap.stores)) throw new CorruptStateError(`unreadable snapshot ${binPath}`);
    return snap;
  }
  const jsonPath = join(dir, LEGACY_SNAPSHOT);
  if (!existsSync(jsonPath)) return undefined;
  chmodSync(jsonPath, 0o600);
  const snap = decode<{ version: number; seq: number; stores: Record<string, Array<[StoreKey, unknown]>> }>(readFileSync(jsonPath, 'utf8'));
  if (snap.version !== 1) throw new CorruptStateError(`unknown snapshot version ${snap.version} in ${jsonPath}`);
  return { seq: snap.seq, stores: Object.entries(snap.stores) };
}

/** Makes a directory entry (a created or renamed file) durable. */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export class WriteAheadLog {
  private fd: number;
  private seq: number;
  private bytes: number;
  readonly compactBytes: number;
  /** fsync mode: encoded records not yet written and the last sequence made durable. */
  private pending: Buffer[] = [];
  private durableSeq: number;
  /** Highest sequence an answer waits for, highest covered by an fsync already started, fsyncs running. */
  private wanted = 0;
  private submitted = 0;
  private inFlight = 0;
  private scheduled = false;
  private failed: Error | undefined;
  private waiters: Array<{ seq: number; resolve: () => void; reject: (e: Error) => void }> = [];
  private closed = false;
  readonly syncs: boolean;

  private constructor(
    readonly dir: string,
    private readonly options: WalOptions,
    seq: number,
    private readonly lock: DirectoryLock,
  ) {
    const created = !existsSync(join(dir, 'wal.jsonl'));
    this.fd = openSync(join(dir, 'wal.jsonl'), 'a', 0o600);
    chmodSync(join(dir, 'wal.jsonl'), 0o600);
    this.syncs = options.fsync ?? true;
    if (created && this.syncs) syncDirectory(dir);
    this.seq = seq;
    this.durableSeq = seq;
    this.submitted = seq;
    this.bytes = statSync(join(dir, 'wal.jsonl')).size;
    this.compactBytes = options.compactBytes ?? 64 * 1024 * 1024;
  }

  /** Opens (or creates) the state in `dir` and returns it with everything committed so far. */
  static open(dir: string, options: WalOptions = {}): { wal: WriteAheadLog; state: Snapshot } {
    const state: Snapshot = new Map();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    const lock = lockDirectory(dir);
    try {
      return { wal: new WriteAheadLog(dir, options, WriteAheadLog.replay(dir, state), lock), state };
    } catch (e) {
      lock.release();
      throw e;
    }
  }

  private static replay(dir: string, state: Snapshot): number {
    let seq = 0;
    const loaded = readSnapshot(dir);
    if (loaded) {
      seq = loaded.seq;
      for (const [name, entries] of loaded.stores) state.set(name, entries);
    }
    const walPath = join(dir, 'wal.jsonl');
    if (existsSync(walPath)) {
      const text = readFileSync(walPath, 'utf8');
      const lines = text.split('\n');
      let offset = 0;
      let previous = 0;
      const live = new Map<string, Map<StoreKey, unknown>>();
      const table = (name: string) => {
        let m = live.get(name);
        if (!m) {
          m = new Map(state.get(name) ?? []);
          live.set(name, m);
        }
        return m;
      };
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        const last = i === lines.length - 1;
        if (line === '') {
          offset += 1;
          continue;
        }
        let record: { seq: number; ops: Op[] };
        try {
          record = decode(line);
        } catch {
          // Only the final line may be torn (no newline after it); anything else is damage.
          if (!last) throw new CorruptStateError(`unreadable record at line ${i + 1} of ${walPath}`);
          const fd = openSync(walPath, 'r+');
          ftruncateSync(fd, offset);
          closeSync(fd);
          break;
        }
        // A whole last record whose newline was not written yet: finish the line before appending more.
        if (last) appendFileSync(walPath, '\n');
        offset += Buffer.byteLength(line) + (last ? 0 : 1);
        if (!Number.isSafeInteger(record.seq) || record.seq <= previous) {
          throw new CorruptStateError(`sequence goes backwards in ${walPath}: record ${record.seq} after ${previous} at line ${i + 1} (two writers?)`);
        }
        previous = record.seq;
        if (record.seq <= seq) continue; // already in the snapshot (crash between snapshot and truncation)
        if (record.seq !== seq + 1) throw new CorruptStateError(`gap in ${walPath}: record ${record.seq} after ${seq}`);
        for (const op of record.ops) {
          if (op.length === 3) table(op[0]).set(op[1], op[2]);
          else table(op[0]).delete(op[1]);
        }
        seq = record.seq;
      }
      for (const [name, m] of live) state.set(name, [...m]);
    }
    return seq;
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
    if (this.failed) throw this.failed;
    this.seq += 1;
    const buf = Buffer.from(`${encode({ seq: this.seq, ops })}\n`, 'utf8');
    if (this.syncs) this.pending.push(buf);
    else this.write(buf);
    this.bytes += buf.length;
    return this.bytes >= this.compactBytes;
  }

  /** Resolves once every record up to `seq` (default: all appended so far) is on disk and fsynced. */
  durable(seq = this.seq): Promise<void> {
    if (!this.syncs || seq <= this.durableSeq) return Promise.resolve();
    if (this.failed) return Promise.reject(this.failed);
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
    if (seq > this.wanted) this.wanted = seq;
    // The disk is idle: sync now. Otherwise the next fsync starts at the end of this turn of the event
    // loop (or when one in flight completes), so every update answered meanwhile joins its group.
    if (this.inFlight === 0) this.issue();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.issue();
      });
    }
    return done;
  }

  private write(buf: Buffer): void {
    let written = 0;
    while (written < buf.length) written += writeSync(this.fd, buf, written);
  }

  /**
   * One group commit: writes every pending record in one call and fsyncs off the main thread. Up to
   * MAX_FSYNCS_IN_FLIGHT overlap, so the next group's records are written while the previous one is
   * still syncing; an fsync covers everything written before it started, whichever finishes first.
   */
  private issue(): void {
    if (this.failed || this.closed || this.inFlight >= MAX_FSYNCS_IN_FLIGHT || this.wanted <= this.submitted) return;
    try {
      if (this.pending.length > 0) {
        const batch = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
        this.pending = [];
        this.write(batch);
      }
    } catch (e) {
      this.fail(new LogWriteError(`writing the log in ${this.dir} failed: ${(e as Error).message}`, { cause: e }));
      return;
    }
    const target = this.seq;
    this.submitted = target;
    this.inFlight += 1;
    void this.syncUpTo(target);
  }

  private async syncUpTo(target: number): Promise<void> {
    try {
      await this.fsyncProbeBefore();
      if (this.closed) return;
      await new Promise<void>((resolve, reject) => fsync(this.fd, (e) => (e ? reject(e) : resolve())));
      this.markDurable(target);
      this.options.fsyncProbe?.after?.(target);
    } catch (e) {
      if (!this.closed) this.fail(new LogWriteError(`syncing the log in ${this.dir} failed: ${(e as Error).message}`, { cause: e }));
    } finally {
      this.inFlight -= 1;
      this.issue();
    }
  }

  private async fsyncProbeBefore(): Promise<void> {
    if (this.options.fsyncProbe?.before) await this.options.fsyncProbe.before();
  }

  private markDurable(seq: number): void {
    if (seq > this.durableSeq) this.durableSeq = seq;
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) {
      if (w.seq <= this.durableSeq) w.resolve();
      else this.waiters.push(w);
    }
  }

  private fail(error: Error): void {
    this.failed = error;
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w.reject(error);
  }

  /** Writes a new snapshot atomically (temp file, fsync, rename), then empties the log. */
  compact(stores: Iterable<[string, Iterable<[StoreKey, unknown]>]>): void {
    const entries: Array<[string, Array<[StoreKey, unknown]>]> = [];
    for (const [name, list] of stores) entries.push([name, [...list]]);
    const tmp = join(this.dir, `${SNAPSHOT}.tmp`);
    const fd = openSync(tmp, 'w', 0o600);
    try {
      const version = Buffer.alloc(4);
      version.writeUInt32BE(SNAPSHOT_VERSION);
      for (const part of [SNAPSHOT_MAGIC, version, serialize({ seq: this.seq, stores: entries })]) {
        let written = 0;
        while (written < part.length) written += writeSync(fd, part, written);
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, join(this.dir, SNAPSHOT));
    // The version 1 snapshot is superseded (the binary one is read first, so a crash before this is harmless).
    rmSync(join(this.dir, LEGACY_SNAPSHOT), { force: true });
    syncDirectory(this.dir);
    // The snapshot holds every record appended so far, written or still pending.
    this.pending = [];
    ftruncateSync(this.fd, 0);
    fsyncSync(this.fd);
    this.bytes = 0;
    this.submitted = this.seq;
    this.markDurable(this.seq);
  }

  close(): void {
    if (this.closed) return;
    if (!this.failed && this.pending.length > 0) this.write(Buffer.concat(this.pending));
    this.pending = [];
    fsyncSync(this.fd);
    this.closed = true;
    this.markDurable(this.seq);
    closeSync(this.fd);
    this.lock.release();
  }
}
