// The log files, wal.jsonl and wal.<N>.jsonl (formats 1 and 2: see wal.ts): replaying them over the
// snapshot at open, each format 2 line split per store and each store's part decoded on first use.
import { chmodSync, closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { decode } from '../codec.ts';
import type { StoreKey } from '../store.ts';
import { LazyEntries, readSnapshot } from './snapshot-format.ts';
import type { Op, Snapshot, StoreLoad } from './wal-types.ts';
import { closedLogs, CorruptStateError, LOG } from './wal-files.ts';
import { COMPACT_TURN_MS, WorkTurn } from './work-turn.ts';

const DELETED = Symbol('deleted');
/** Log text a compaction decodes per turn of the event loop when it copies a store nobody used (a few milliseconds). */
const PREPARE_TURN_BYTES = 256 * 1024;

/**
 * A store's writes from the log, in sequence order, flat: a decoded list (a format 1 line), or a format 2
 * part still encoded as three items, the log file's bytes and the part's start and end in them.
 */
export type LogParts = Array<Array<[StoreKey] | [StoreKey, unknown]> | Buffer | number>;

/**
 * A store the log wrote (decisions P8, P10): its writes, kept per store in sequence order and laid over
 * the snapshot's entries (if any) on the store's first use. A format 2 line's part for this store is
 * decoded only then, so replay neither decodes the snapshot's part of a store at open nor parses the
 * log's JSON; a part that passed its checksum at open but does not decode raises CorruptStateError here.
 */
export class LoggedEntries implements Iterable<[StoreKey, unknown]> {
  /** The log's last write per key (DELETED for a delete), once `prepare` has decoded the parts. */
  private overlay: Map<StoreKey, unknown> | undefined;

  constructor(
    readonly base: StoreLoad | undefined,
    private readonly parts: LogParts,
    private readonly name: string,
  ) {}

  all(): Array<[StoreKey, unknown]> {
    const entries = [...this];
    if (this.base instanceof LazyEntries) this.base.markUsed();
    return entries;
  }

  /**
   * Decodes the log's writes for this store a bounded amount per turn of the event loop, for a
   * compaction that copies a store nobody has used since the restart (decision P5: it must not block
   * the loop); the iterator then merges them with the snapshot's part a frame at a time.
   */
  async prepare(step?: () => void | Promise<void>, turn = new WorkTurn(COMPACT_TURN_MS)): Promise<void> {
    if (this.overlay) return;
    const overlay = new Map<StoreKey, unknown>();
    await this.eachWriteAsync((key, value, deleted) => overlay.set(key, deleted ? DELETED : value), step, turn);
    this.overlay = overlay;
  }

  /** The snapshot's entries with the log's last write per key laid over them, in the snapshot's order, new keys after. */
  *[Symbol.iterator](): Iterator<[StoreKey, unknown]> {
    if (!this.overlay) {
      const overlay = new Map<StoreKey, unknown>();
      this.eachWrite((key, value, deleted) => overlay.set(key, deleted ? DELETED : value));
      this.overlay = overlay;
    }
    const overlay = this.overlay;
    const replaced = new Set<StoreKey>();
    for (const [key, value] of this.base ?? []) {
      if (!overlay.has(key)) yield [key, value];
      else {
        replaced.add(key);
        const latest = overlay.get(key);
        if (latest !== DELETED) yield [key, latest];
      }
    }
    for (const [key, latest] of overlay) if (latest !== DELETED && !replaced.has(key)) yield [key, latest];
  }

  private eachWrite(apply: (key: StoreKey, value: unknown, deleted: boolean) => void): void {
    for (let i = 0; i < this.parts.length; i = this.applyPart(i, apply));
  }

  private async eachWriteAsync(
    apply: (key: StoreKey, value: unknown, deleted: boolean) => void,
    step: (() => void | Promise<void>) | undefined,
    turn: WorkTurn,
  ): Promise<void> {
    let decoded = 0;
    for (let i = 0; i < this.parts.length;) {
      const part = this.parts[i]!;
      decoded += Buffer.isBuffer(part) ? (this.parts[i + 2] as number) - (this.parts[i + 1] as number) : 1;
      i = this.applyPart(i, apply);
      if (decoded >= PREPARE_TURN_BYTES || turn.spent) {
        decoded = 0;
        await turn.next(step);
      }
    }
  }

  /** Applies the part at `i` (a decoded list, or a format 2 part as bytes, start and end); returns the next index. */
  private applyPart(i: number, apply: (key: StoreKey, value: unknown, deleted: boolean) => void): number {
    const part = this.parts[i]!;
    let writes: Array<[StoreKey] | [StoreKey, unknown]>;
    let next = i + 1;
    if (Buffer.isBuffer(part)) {
      writes = decodePart(part.toString('utf8', this.parts[i + 1] as number, this.parts[i + 2] as number), this.name);
      next = i + 3;
    } else writes = part as Array<[StoreKey] | [StoreKey, unknown]>;
    for (const w of writes) apply(w[0], w[1], w.length !== 2);
    return next;
  }
}

export function decodePart(text: string, name: string): Array<[StoreKey] | [StoreKey, unknown]> {
  let writes: unknown;
  try {
    writes = decode(text);
  } catch (e) {
    throw new CorruptStateError(`unreadable log record for ${name}: ${(e as Error).message}`);
  }
  if (!Array.isArray(writes) || !writes.every((w) => Array.isArray(w) && (w.length === 1 || w.length === 2))) {
    throw new CorruptStateError(`unreadable log record for ${name}`);
  }
  return writes as Array<[StoreKey] | [StoreKey, unknown]>;
}

/** The value of an ASCII hex digit, or -1. */
export function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/**
 * A format 2 log line (decision P10, written by `encodeLine`) split per store without JSON.parse: its
 * checksum verified, its sequence and store names read, and each store's part located (its start and
 * end, pushed to `stores` and `ranges`) to decode on the store's first use. Returns the sequence, or a
 * string saying why the line is unreadable.
 */
/**
 * Store names met in the log, known by their bytes (the JSON text between two tabs), so splitting a line
 * makes no string per part: a log names a few dozen stores at most, compared byte by byte.
 */
export class StoreNames {
  private readonly known: Array<{ raw: Buffer; name: string }> = [];

  find(bytes: Buffer, from: number, to: number): string | undefined {
    const length = to - from;
    next: for (const { raw, name } of this.known) {
      if (raw.length !== length) continue;
      for (let i = length - 1; i >= 0; i--) if (raw[i] !== bytes[from + i]) continue next;
      return name;
    }
    return undefined;
  }

  add(bytes: Buffer, from: number, to: number, name: string): void {
    this.known.push({ raw: Buffer.from(bytes.subarray(from, to)), name });
  }
}

export function splitLine(
  bytes: Buffer,
  start: number,
  end: number,
  names: StoreNames,
  stores: string[],
  ranges: number[],
): number | string {
  // "L2 " + 8 hex digits + " " + rest
  if (bytes[start] !== 0x4c || end - start < 13 || bytes[start + 2] !== 0x20 || bytes[start + 11] !== 0x20)
    return 'unreadable record';
  if (bytes[start + 1] !== 0x32) return `unknown log line version ${bytes.toString('latin1', start + 1, start + 2)}`;
  let crc = 0;
  for (let i = start + 3; i < start + 11; i++) {
    const d = hexValue(bytes[i]!);
    if (d < 0) return 'unreadable record';
    crc = crc * 16 + d;
  }
  const rest = start + 12;
  if (crc32(bytes.subarray(rest, end)) !== crc) return 'damaged record (checksum mismatch)';
  let at = rest;
  let seq = 0;
  for (; at < end && bytes[at] !== 0x09; at++) {
    const d = bytes[at]! - 0x30;
    if (d < 0 || d > 9 || at - rest > 15) return 'unreadable record (sequence)';
    seq = seq * 10 + d;
  }
  if (at === rest) return 'unreadable record (sequence)';
  stores.length = 0;
  ranges.length = 0;
  while (at < end) {
    // at is a tab: the store's name, a tab, its writes up to the next tab or the line's end.
    const nameEnd = bytes.indexOf(0x09, at + 1);
    if (nameEnd < 0 || nameEnd >= end) return 'unreadable record (store)';
    let name = names.find(bytes, at + 1, nameEnd);
    if (name === undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(bytes.toString('utf8', at + 1, nameEnd));
      } catch {
        return 'unreadable record (store)';
      }
      if (typeof parsed !== 'string') return 'unreadable record (store)';
      name = parsed;
      names.add(bytes, at + 1, nameEnd, name);
    }
    let partEnd = bytes.indexOf(0x09, nameEnd + 1);
    if (partEnd < 0 || partEnd > end) partEnd = end;
    stores.push(name);
    ranges.push(nameEnd + 1, partEnd);
    at = partEnd;
  }
  return seq;
}

/** Replays the snapshot and the logs in `dir` into `state`; returns the last sequence number (decision P8, P10). */
export function replay(dir: string, state: Snapshot): number {
  let seq = 0;
  const loaded = readSnapshot(dir);
  if (loaded) {
    seq = loaded.seq;
    for (const [name, entries] of loaded.stores) state.set(name, entries);
  }
  // Per store, the log's writes in sequence order, laid over the snapshot's entries on the store's
  // first use (decisions P8, P10): a format 2 line is split per store here, each part decoded then.
  const logged = new Map<string, LogParts>();
  const parts = (name: string) => {
    let list = logged.get(name);
    if (!list) logged.set(name, (list = []));
    return list;
  };
  const names = new StoreNames();
  const lineStores: string[] = [];
  const lineRanges: number[] = [];
  let previous = 0;
  // Logs closed by unfinished compactions first, then the open one; one sequence runs through them.
  const files = [...closedLogs(dir).map((l) => l.name), ...(existsSync(join(dir, LOG)) ? [LOG] : [])];
  for (const file of files) {
    const walPath = join(dir, file);
    chmodSync(walPath, 0o600);
    const bytes = readFileSync(walPath);
    // A log ends at its first NUL byte (decision P9): the rest is space written ahead as zeros, or
    // what a crash left of records that were never synced, hence never answered.
    const nul = bytes.indexOf(0);
    const limit = nul < 0 ? bytes.length : nul;
    const open = file === LOG;
    let repair: { end: number; newline: boolean } | undefined = nul < 0 ? undefined : { end: limit, newline: false };
    let lineNo = 0;
    for (let start = 0; start < limit;) {
      lineNo += 1;
      const nl = bytes.indexOf(10, start);
      const last = nl < 0 || nl >= limit;
      const end = last ? limit : nl;
      const lineStart = start;
      start = end + 1;
      if (end === lineStart) continue;
      let recordSeq: number;
      let record: { seq: number; ops: Op[] } | undefined;
      if (bytes[lineStart] === 0x7b) {
        // Format 1 (before P10): a JSON record, decoded now.
        try {
          record = decode<{ seq: number; ops: Op[] }>(bytes.toString('utf8', lineStart, end));
        } catch {
          // Only the final line of the open log may be torn (no newline after it); anything else is damage.
          if (!last || !open) throw new CorruptStateError(`unreadable record at line ${lineNo} of ${walPath}`);
          repair = { end: lineStart, newline: false };
          break;
        }
        recordSeq = record.seq;
      } else {
        const line = splitLine(bytes, lineStart, end, names, lineStores, lineRanges);
        if (typeof line === 'string') {
          if (!last || !open) throw new CorruptStateError(`${line} at line ${lineNo} of ${walPath}`);
          repair = { end: lineStart, newline: false };
          break;
        }
        recordSeq = line;
      }
      // A whole last record whose newline was not written yet: finish the line before appending more.
      if (last) repair = { end, newline: true };
      if (!Number.isSafeInteger(recordSeq) || recordSeq <= previous) {
        throw new CorruptStateError(
          `sequence goes backwards in ${walPath}: record ${recordSeq} after ${previous} at line ${lineNo} (two writers?)`,
        );
      }
      previous = recordSeq;
      if (recordSeq <= seq) continue; // already in the snapshot (crash between snapshot and truncation)
      if (recordSeq !== seq + 1) throw new CorruptStateError(`gap in ${walPath}: record ${recordSeq} after ${seq}`);
      if (record) for (const op of record.ops) parts(op[0]).push([op.length === 3 ? [op[1], op[2]] : [op[1]]]);
      else
        for (let i = 0; i < lineStores.length; i++)
          parts(lineStores[i]!).push(bytes, lineRanges[2 * i]!, lineRanges[2 * i + 1]!);
      seq = recordSeq;
    }
    // The open log is cut where its records end (a torn line, the space ahead, anything a crash left
    // past a NUL) and synced, so nothing dropped here can reappear after a later crash.
    const cut = repair;
    if (cut && open) {
      const fd = openSync(walPath, 'r+');
      try {
        ftruncateSync(fd, cut.end);
        if (cut.newline) writeSync(fd, '\n', cut.end);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
  }
  for (const [name, list] of logged) state.set(name, new LoggedEntries(state.get(name), list, name));
  return seq;
}
