// Durable state of the embedded host: a snapshot plus a write-ahead log of committed updates.
//   <dir>/snapshot.json   {"version":1,"seq":N,"stores":{"<canister>/<store>":[[key,value],…]}}
//   <dir>/wal.jsonl       one line per committed update: {"seq":N,"ops":[[store,key,value]|[store,key]]}
// A two-element op is a delete. Every commit is written before the update call returns (so a crashed
// process loses nothing it acknowledged); `fsync: true` also survives a power cut. A torn last line
// (the process died mid-write) is dropped; damage anywhere else stops the host, never guessed around:
// sequence numbers that do not rise by one (a second writer, a spliced file) are refused (K21).
// The directory is locked for one process (K20); it is 0700 and its files 0600 (they hold password
// hashes and tokens, K22).
import { appendFileSync, chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { decode, encode } from '../codec.ts';
import type { StoreKey } from '../store.ts';
import { lockDirectory, type DirectoryLock } from './lock.ts';

export type Op = [store: string, key: StoreKey, value: unknown] | [store: string, key: StoreKey];
export type Snapshot = Map<string, Array<[StoreKey, unknown]>>;

export class CorruptStateError extends Error {
  override name = 'CorruptStateError';
}

export interface WalOptions {
  /** fsync after every commit (power-loss safe, slower). Default false: written, not synced. */
  fsync?: boolean;
  /** Compact into a new snapshot once the log passes this size. */
  compactBytes?: number;
}

export class WriteAheadLog {
  private fd: number;
  private seq: number;
  private bytes: number;
  readonly compactBytes: number;

  private constructor(
    readonly dir: string,
    private readonly options: WalOptions,
    seq: number,
    private readonly lock: DirectoryLock,
  ) {
    this.fd = openSync(join(dir, 'wal.jsonl'), 'a', 0o600);
    chmodSync(join(dir, 'wal.jsonl'), 0o600);
    this.seq = seq;
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
    const snapshotPath = join(dir, 'snapshot.json');
    if (existsSync(snapshotPath)) {
      chmodSync(snapshotPath, 0o600);
      const snap = decode<{ version: number; seq: number; stores: Record<string, Array<[StoreKey, unknown]>> }>(readFileSync(snapshotPath, 'utf8'));
      if (snap.version !== 1) throw new CorruptStateError(`unknown snapshot version ${snap.version} in ${snapshotPath}`);
      seq = snap.seq;
      for (const [name, entries] of Object.entries(snap.stores)) state.set(name, entries);
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

  /** Appends one committed update; returns true when the log has grown past the compaction size. */
  append(ops: Op[]): boolean {
    if (ops.length === 0) return false;
    this.seq += 1;
    const line = `${encode({ seq: this.seq, ops })}\n`;
    const buf = Buffer.from(line, 'utf8');
    let written = 0;
    while (written < buf.length) written += writeSync(this.fd, buf, written);
    if (this.options.fsync) fsyncSync(this.fd);
    this.bytes += buf.length;
    return this.bytes >= this.compactBytes;
  }

  /** Writes a new snapshot atomically (temp file, fsync, rename), then empties the log. */
  compact(stores: Iterable<[string, Iterable<[StoreKey, unknown]>]>): void {
    const snapshot: Record<string, Array<[StoreKey, unknown]>> = {};
    for (const [name, entries] of stores) snapshot[name] = [...entries];
    const tmp = join(this.dir, 'snapshot.json.tmp');
    const fd = openSync(tmp, 'w', 0o600);
    writeSync(fd, encode({ version: 1, seq: this.seq, stores: snapshot }));
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, join(this.dir, 'snapshot.json'));
    ftruncateSync(this.fd, 0);
    fsyncSync(this.fd);
    this.bytes = 0;
  }

  close(): void {
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.lock.release();
  }
}
