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
// not a power cut. A torn last line
// (the process died mid-write) is dropped; damage anywhere else stops the host, never guessed around:
// sequence numbers that do not rise by one (a second writer, a spliced file) are refused (K21).
// The directory is locked for one process (K20); it is 0700 and its files 0600 (they hold password
// hashes and tokens, K22).
import { chmodSync, closeSync, constants, existsSync, rmSync, fdatasync, fsync, fsyncSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, statSync, writeSync, ftruncateSync } from 'node:fs';
import { open as openFile, rename, rm, type FileHandle } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DefaultDeserializer, serialize } from 'node:v8';
import { crc32 } from 'node:zlib';
import { decode } from '../codec.ts';
import type { StoreKey } from '../store.ts';
import { lockDirectory, type DirectoryLock } from './lock.ts';
import { encodeLine } from './record.ts';

export type Op = [store: string, key: StoreKey, value: unknown] | [store: string, key: StoreKey];
export type Snapshot = Map<string, StoreLoad>;
/** What a compaction writes: every store's entries as they were at one sequence number. */
export type StoreEntries = Array<[string, Iterable<[StoreKey, unknown]>]>;

/**
 * Overlapping syncs of the log (decision P9): while one group syncs, the next ones are written and
 * started, so under a slow disk an answer waits for about one sync rather than two. Three, so one of
 * libuv's four threads stays free for other file work (a compaction's writes, argon2 in the bridge).
 */
const MAX_FSYNCS_IN_FLIGHT = 3;
/** A group split off mid-turn (decision P12) holds at least this many records: each split costs one more write and fdatasync. */
const MIN_SPLIT_GROUP = 4;
/** Default compaction size (decision P8): the log may grow to this share of the snapshot, and at least MIN_COMPACT_BYTES. */
const COMPACT_FRACTION = 8;
const MIN_COMPACT_BYTES = 16 * 1024 * 1024;
/**
 * Entries per slice of a snapshot. A slice's frame is serialized, and decoded on the way back, whole, so
 * its size bounds a compaction's turn where the time budget cannot (decision P17: 2,048 before).
 */
const SLICE_ENTRIES = 512;

export class CorruptStateError extends Error {
  override name = 'CorruptStateError';
}

export interface WalOptions {
  /**
   * Default true (decision P1): an update is answered only once its record is fsynced (group commit),
   * so it survives a power cut. false: written before the answer, not synced (survives a process crash).
   */
  fsync?: boolean;
  /**
   * Compact into a new snapshot once the log passes this size. Default (decision P8): an eighth of the
   * last snapshot's size, at least 16 MiB, so replaying what a crash leaves stays a small part of a restart.
   */
  compactBytes?: number;
  /** Entries per slice of the snapshot, each serialized as one frame (default 512, decision P17; P15 compares slices by position). */
  compactSliceEntries?: number;
  /**
   * Milliseconds a compaction works before it lets the event loop run: decoding the log of a store
   * unused since the restart (at most 256 KiB of it a turn in any case) or gathering and serializing
   * a slice (default 4; decision P17).
   */
  compactTurnMs?: number;
  /** A compaction started by the log's size failed (the log keeps everything; the next one retries). Default: console.error. */
  onCompactionError?: (error: Error) => void;
  /**
   * Test instrumentation of group commit: `before` may delay an fsync (it cannot skip it: the log
   * syncs after it settles), `after` observes each completed one with the sequence it made durable.
   */
  fsyncProbe?: { before?: () => void | Promise<void>; after?: (durableSeq: number) => void };
  /**
   * Test instrumentation of compaction: called after each turn of decoding a log (`decode`), after each
   * pause while gathering a slice or before serializing it (`gather`), after each slice is written, and
   * once the new snapshot is in place (before the closed logs are deleted); a returned promise holds
   * the compaction there.
   */
  compactionProbe?: (stage: 'decode' | 'gather' | 'slice' | 'installed') => void | Promise<void>;
  /** Default true (decision P15): a slice whose entries are those the last compaction wrote is copied from that snapshot, not serialized again. */
  reuseSnapshotFrames?: boolean;
  /** Test instrumentation: told how many slices a compaction copied and how many it serialized. */
  compactionStats?: (stats: { copied: number; serialized: number }) => void;
}

/**
 * What an installed compaction wrote of one store it serialized (decision P15): per slice, its entries
 * flattened (key, value, key, value…, the frozen records themselves) and where its body frame lies in
 * that snapshot file.
 */
interface SliceRecord {
  flat: unknown[];
  offset: number;
  length: number;
}

/** The log failed to write or fsync: what it acknowledged is safe, nothing after it is (PostgreSQL panics likewise). */
export class LogWriteError extends Error {
  override name = 'LogWriteError';
}

const SNAPSHOT = 'snapshot.bin';
const LEGACY_SNAPSHOT = 'snapshot.json';
const LOG = 'wal.jsonl';
const CLOSED_LOG = /^wal\.(\d+)\.jsonl$/;
const SNAPSHOT_TMP = /^snapshot\.bin(\..+)?\.tmp$/;
const SNAPSHOT_MAGIC = Buffer.from('DOMDAO-SNAPSHOT\n', 'latin1');
const SNAPSHOT_VERSION = 3;

/** Bytes of zeros the open log is written ahead by, with fsync (decision P9). */
const PREALLOCATE_BYTES = 4 * 1024 * 1024;
/** The open log, for positional writes (not O_APPEND: the file is written ahead with zeros). */
const openLog = (path: string) => openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
function writeAll(fd: number, buf: Buffer, position: number): void {
  let written = 0;
  while (written < buf.length) written += writeSync(fd, buf, written, buf.length - written, position + written);
}

const closedLogName = (lastSeq: number) => `wal.${String(lastSeq).padStart(16, '0')}.jsonl`;
/** Logs closed by compactions that did not finish, oldest first, with the last sequence each holds. */
function closedLogs(dir: string): Array<{ name: string; lastSeq: number }> {
  return readdirSync(dir)
    .flatMap((name) => {
      const m = CLOSED_LOG.exec(name);
      return m ? [{ name, lastSeq: Number(m[1]) }] : [];
    })
    .sort((a, b) => a.lastSeq - b.lastSeq);
}

/**
 * Decodes a snapshot body. V8 hands back byte arrays as views into the bytes it decodes, and those
 * bytes are the snapshot file's (P6 keeps frames as views into it): each byte array is copied, so a
 * value kept in a store does not keep the whole file in memory.
 */
const readHostObject = (DefaultDeserializer.prototype as unknown as { _readHostObject(this: DefaultDeserializer): ArrayBufferView })._readHostObject;
class OwnBytesDeserializer extends DefaultDeserializer {
  // Node's own hook (not in its type declarations), called for every byte array in the body.
  _readHostObject(): unknown {
    const view = readHostObject.call(this);
    if (view instanceof DataView) return new DataView(view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength));
    return Buffer.isBuffer(view) ? Buffer.from(view) : (view as Uint8Array).slice();
  }
}

function deserialize(body: Buffer): unknown {
  const decoder = new OwnBytesDeserializer(body);
  decoder.readHeader();
  return decoder.readValue();
}

/**
 * A store's entries from a version 3 snapshot, still encoded (decision P6): decoded whole on the
 * store's first use, or copied frame by frame when a compaction copies a store nobody has used. The
 * frames start as views into the snapshot file's bytes (a restart copies nothing); `detach` copies
 * them out later, so a store nobody uses does not keep the whole file in memory.
 */
export class LazyEntries implements Iterable<[StoreKey, unknown]> {
  private readonly bodies: Buffer[];
  private detached = 0;
  private used = false;

  constructor(
    frames: Buffer[],
    private readonly decode: (frame: Buffer) => Array<[StoreKey, unknown]>,
  ) {
    this.bodies = frames;
  }

  /** Each frame's body (v8.serialize of a slice of entries), checked at open. */
  get frames(): readonly Buffer[] {
    return this.bodies;
  }

  all(): Array<[StoreKey, unknown]> {
    const out: Array<[StoreKey, unknown]> = [];
    for (const f of this.bodies) for (const e of this.decode(f)) out.push(e);
    this.used = true;
    return out;
  }

  /** The store was built from these entries: its frames are garbage, nothing to copy out. */
  markUsed(): void {
    this.used = true;
  }

  *[Symbol.iterator](): Iterator<[StoreKey, unknown]> {
    for (const f of this.bodies) yield* this.decode(f);
  }

  /** Copies frames out of the file's bytes, about `budget` bytes of them; returns the bytes copied (0: nothing left to copy). */
  detach(budget: number): number {
    if (this.used) return 0;
    let copied = 0;
    while (this.detached < this.bodies.length && copied < budget) {
      const view = this.bodies[this.detached]!;
      this.bodies[this.detached++] = Buffer.from(view);
      copied += view.length;
    }
    return copied;
  }
}

/**
 * A store's writes from the log, in sequence order, flat: a decoded list (a format 1 line), or a format 2
 * part still encoded as three items, the log file's bytes and the part's start and end in them.
 */
type LogParts = Array<Array<[StoreKey] | [StoreKey, unknown]> | Buffer | number>;

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

  private async eachWriteAsync(apply: (key: StoreKey, value: unknown, deleted: boolean) => void, step: (() => void | Promise<void>) | undefined, turn: WorkTurn): Promise<void> {
    let decoded = 0;
    for (let i = 0; i < this.parts.length; ) {
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

const DELETED = Symbol('deleted');
/** Log text a compaction decodes per turn of the event loop when it copies a store nobody used (a few milliseconds). */
const PREPARE_TURN_BYTES = 256 * 1024;
/**
 * How long a compaction works before it lets the event loop run, decoding a log or building a slice
 * (decision P17): on a slow machine 256 KiB of small records took 20–30 ms to decode and a slice of
 * 2,048 receipts 5–24 ms to gather, and a scavenge landing in the same turn took it past 50 ms.
 */
const COMPACT_TURN_MS = 4;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** How long a compaction has worked since it last let the event loop run, against its budget (P17). */
class WorkTurn {
  private started = performance.now();
  constructor(private readonly budgetMs: number) {}

  get spent(): boolean {
    return performance.now() - this.started >= this.budgetMs;
  }

  /** Lets the event loop run, then `after` (a check, a test's probe), then starts a new turn. */
  async next(after?: () => void | Promise<void>): Promise<void> {
    await nextTurn();
    await after?.();
    this.restart();
  }

  /** The loop ran meanwhile (an awaited write). */
  restart(): void {
    this.started = performance.now();
  }
}

function decodePart(text: string, name: string): Array<[StoreKey] | [StoreKey, unknown]> {
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

/** A store's entries as loaded: decoded (formats 1 and 2, or replayed from the log), or lazily. */
export type StoreLoad = Array<[StoreKey, unknown]> | LazyEntries | LoggedEntries;
export const loadedEntries = (load: StoreLoad): Array<[StoreKey, unknown]> => (Array.isArray(load) ? load : load.all());

type LoadedSnapshot = { seq: number; stores: Array<[string, StoreLoad]> };

/**
 * Version 3: the frames after the header. Every frame's checksum is verified and the small frames
 * (head, store names, end) decoded now; each store's entry frames are copied out and decoded only
 * when the store is first used, so a restart does not decode what it does not read.
 */
function readFrames(bytes: Buffer, start: number, path: string): LoadedSnapshot {
  let at = start;
  const next = (): Buffer => {
    if (at + 8 > bytes.length) throw new CorruptStateError(`snapshot ${path} ends early`);
    const length = bytes.readUInt32BE(at);
    const crc = bytes.readUInt32BE(at + 4);
    if (at + 8 + length > bytes.length) throw new CorruptStateError(`snapshot ${path} ends early`);
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (crc32(body) !== crc) throw new CorruptStateError(`snapshot ${path} is damaged (checksum mismatch at byte ${at})`);
    at += 8 + length;
    return body;
  };
  const value = (body: Buffer): unknown => {
    try {
      return deserialize(body);
    } catch (e) {
      throw new CorruptStateError(`unreadable snapshot ${path}: ${(e as Error).message}`);
    }
  };
  const head = value(next()) as { seq?: unknown };
  if (!Number.isSafeInteger(head?.seq)) throw new CorruptStateError(`unreadable snapshot ${path}`);
  const slices = new Map<string, Buffer[]>();
  let count = 0;
  for (;;) {
    const body = next();
    const v = value(body) as unknown;
    if (typeof v === 'string') {
      const entries = next(); // a view into the file's bytes, copied out later (LazyEntries.detach)
      const list = slices.get(v);
      if (list) list.push(entries);
      else slices.set(v, [entries]);
      count += 1;
    } else if ((v as { end?: unknown })?.end === count && at === bytes.length) {
      const stores: Array<[string, StoreLoad]> = [...slices].map(([name, frames]) => [
        name,
        new LazyEntries(frames, (f) => {
          const entries = value(f);
          if (!Array.isArray(entries)) throw new CorruptStateError(`unreadable snapshot ${path}: ${name}`);
          return entries as Array<[StoreKey, unknown]>;
        }),
      ]);
      return { seq: head.seq as number, stores };
    } else throw new CorruptStateError(`unreadable snapshot ${path}`);
  }
}

/** The newest snapshot in `dir`: the binary format (versions 3 and 2) or, from before it, the JSON one (version 1). */
function readSnapshot(dir: string): LoadedSnapshot | undefined {
  const binPath = join(dir, SNAPSHOT);
  if (existsSync(binPath)) {
    chmodSync(binPath, 0o600);
    const bytes = readFileSync(binPath);
    const head = SNAPSHOT_MAGIC.length;
    if (bytes.length < head + 4 || !bytes.subarray(0, head).equals(SNAPSHOT_MAGIC)) throw new CorruptStateError(`${binPath} is not a snapshot`);
    const version = bytes.readUInt32BE(head);
    if (version !== 2 && version !== 3) throw new CorruptStateError(`unknown snapshot version ${version} in ${binPath}`);
    let snap: LoadedSnapshot;
    try {
      snap = version === 3 ? readFrames(bytes, head + 4, binPath) : (deserialize(bytes.subarray(head + 4)) as LoadedSnapshot);
    } catch (e) {
      if (e instanceof CorruptStateError) throw e;
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

/** The value of an ASCII hex digit, or -1. */
function hexValue(c: number): number {
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
class StoreNames {
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

function splitLine(bytes: Buffer, start: number, end: number, names: StoreNames, stores: string[], ranges: number[]): number | string {
  // "L2 " + 8 hex digits + " " + rest
  if (bytes[start] !== 0x4c || end - start < 13 || bytes[start + 2] !== 0x20 || bytes[start + 11] !== 0x20) return 'unreadable record';
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

/** Makes a directory entry (a created or renamed file) durable. */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function syncDirectoryAsync(dir: string): Promise<void> {
  const handle = await openFile(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A body frame of the snapshot in place, if its bytes still check out (else it is serialized again). */
async function readFrame(file: FileHandle, at: SliceRecord): Promise<Buffer | undefined> {
  const bytes = Buffer.alloc(at.length);
  const { bytesRead } = await file.read(bytes, 0, at.length, at.offset);
  if (bytesRead !== at.length || at.length < 8 || bytes.readUInt32BE(0) !== at.length - 8 || bytes.readUInt32BE(4) !== crc32(bytes.subarray(8))) return undefined;
  return bytes;
}

/** One version 3 frame: length, CRC-32 and the v8-serialized value. */
function frame(value: unknown): Buffer {
  return framed(serialize(value));
}

function framed(body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length);
  head.writeUInt32BE(crc32(body), 4);
  return Buffer.concat([head, body]);
}

export class WriteAheadLog {
  private fd: number;
  private seq: number;
  /** Characters of the records not yet written (for the compaction size; written bytes are `pos`). */
  private pendingChars = 0;
  /** Size of the snapshot in place, for the default compaction size. */
  private snapshotBytes: number;
  /** fsync mode: encoded records not yet written and the last sequence made durable. */
  private pending: string[] = [];
  /** Where the next record goes in the open log, and how far the file is written ahead with zeros (decision P9). */
  private pos = 0;
  private allocated = 0;
  private durableSeq: number;
  /** Highest sequence an answer waits for, highest covered by an fsync already started, fsyncs running. */
  private wanted = 0;
  private submitted = 0;
  private inFlight = 0;
  private scheduled = false;
  /** A closed log's last fsync is running: the new log's records wait for it (durability in order). */
  private barrier = false;
  /** Files being synced (fd → syncs running) and closed logs to close once no sync uses them. */
  private readonly fdUsers = new Map<number, number>();
  private readonly retired = new Set<number>();
  private failed: Error | undefined;
  private waiters: Array<{ seq: number; resolve: () => void; reject: (e: Error) => void }> = [];
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
    this.durableSeq = seq;
    this.submitted = seq;
    this.pos = statSync(join(dir, LOG)).size;
    this.allocated = this.pos;
    this.snapshotBytes = existsSync(join(dir, SNAPSHOT)) ? statSync(join(dir, SNAPSHOT)).size : existsSync(join(dir, LEGACY_SNAPSHOT)) ? statSync(join(dir, LEGACY_SNAPSHOT)).size : 0;
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
      for (let start = 0; start < limit; ) {
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
          throw new CorruptStateError(`sequence goes backwards in ${walPath}: record ${recordSeq} after ${previous} at line ${lineNo} (two writers?)`);
        }
        previous = recordSeq;
        if (recordSeq <= seq) continue; // already in the snapshot (crash between snapshot and truncation)
        if (recordSeq !== seq + 1) throw new CorruptStateError(`gap in ${walPath}: record ${recordSeq} after ${seq}`);
        if (record) for (const op of record.ops) parts(op[0]).push([op.length === 3 ? [op[1], op[2]] : [op[1]]]);
        else for (let i = 0; i < lineStores.length; i++) parts(lineStores[i]!).push(bytes, lineRanges[2 * i]!, lineRanges[2 * i + 1]!);
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
    if (this.failed) throw this.failed;
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
    if (!this.syncs || seq <= this.durableSeq) return Promise.resolve();
    if (this.failed) return Promise.reject(this.failed);
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
    if (seq > this.wanted) this.wanted = seq;
    // The disk is idle: sync now. A group that has grown as large as the records still syncing ahead of
    // it is synced now too (decision P12): its fsync runs while this turn goes on instead of after it,
    // so the disk and the CPU work at once. Otherwise the next fsync starts at the end of this turn of
    // the event loop (or when one in flight completes), so every update answered meanwhile joins its group.
    if (this.inFlight === 0 || (this.inFlight < MAX_FSYNCS_IN_FLIGHT && this.pending.length >= Math.max(MIN_SPLIT_GROUP, this.submitted - this.durableSeq))) this.issue();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.issue();
      });
    }
    return done;
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
   * One group commit: writes every pending record in one call and fsyncs off the main thread. Up to
   * MAX_FSYNCS_IN_FLIGHT overlap, so the next group's records are written while the previous one is
   * still syncing; an fsync covers everything written before it started, whichever finishes first.
   */
  private issue(): void {
    if (this.failed || this.closed || this.barrier || this.inFlight >= MAX_FSYNCS_IN_FLIGHT || this.wanted <= this.submitted) return;
    try {
      this.writePending();
    } catch (e) {
      this.fail(new LogWriteError(`writing the log in ${this.dir} failed: ${(e as Error).message}`, { cause: e }));
      return;
    }
    this.startSync(this.seq, this.fd);
  }

  private startSync(target: number, fd: number, then?: () => Promise<void>): void {
    this.submitted = target;
    this.inFlight += 1;
    this.fdUsers.set(fd, (this.fdUsers.get(fd) ?? 0) + 1);
    void this.syncUpTo(target, fd, then);
  }

  private async syncUpTo(target: number, fd: number, then?: () => Promise<void>): Promise<void> {
    try {
      await this.fsyncProbeBefore();
      if (this.closed) return;
      // A group's records: fdatasync (the data, and the size only when it grew). A closed log: fsync.
      await new Promise<void>((resolve, reject) => (then ? fsync : fdatasync)(fd, (e) => (e ? reject(e) : resolve())));
      if (then) await then();
      this.markDurable(target);
      this.options.fsyncProbe?.after?.(target);
    } catch (e) {
      if (!this.closed) this.fail(new LogWriteError(`syncing the log in ${this.dir} failed: ${(e as Error).message}`, { cause: e }));
    } finally {
      this.inFlight -= 1;
      const users = this.fdUsers.get(fd)! - 1;
      if (users > 0) this.fdUsers.set(fd, users);
      else {
        this.fdUsers.delete(fd);
        if (this.retired.delete(fd) && !this.closed) closeSync(fd);
      }
      if (then) this.barrier = false;
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

  /**
   * Closes the current log under the name of its last record and opens an empty one; returns that
   * sequence number. With fsync, the closed log's last fsync and the directory's run before any record
   * of the new log is synced, so what is durable is always a prefix of the sequence.
   */
  private rotate(): number {
    if (this.failed) throw this.failed;
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
      this.fail(error);
      throw error;
    }
    this.pos = 0;
    this.allocated = 0;
    if (!this.syncs) {
      closeSync(old);
      return last;
    }
    this.retired.add(old);
    this.barrier = true;
    this.startSync(last, old, () => syncDirectoryAsync(this.dir));
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
    const run: Promise<void> = (running ? running.catch(() => undefined) : Promise.resolve()).then(() => this.compactNow(capture));
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
      (this.options.onCompactionError ?? ((err) => console.error('embedded host: compaction failed (the log keeps every update; retried when it grows):', err)))(e);
    });
  }

  private async compactNow(capture: () => StoreEntries): Promise<void> {
    if (this.closed) return;
    const seq = this.rotate();
    // From here the open log is the one written beside this compaction (what P11 measures).
    this.besideCompaction = true;
    const stores = capture();
    const tmp = join(this.dir, `${SNAPSHOT}.${randomUUID()}.tmp`);
    const handle = await openFile(tmp, 'w', 0o600);
    const sliceSize = this.options.compactSliceEntries ?? SLICE_ENTRIES;
    let installed = false;
    // Decision P15: the snapshot in place is still the one whose slices are recorded (only an installed
    // compaction replaces it); an open handle keeps reading it after the rename below.
    const previous = this.options.reuseSnapshotFrames === false ? undefined : this.lastSlices;
    const previousFile = previous ? await openFile(join(this.dir, SNAPSHOT), 'r').catch(() => undefined) : undefined;
    const recorded = new Map<string, SliceRecord[]>();
    const stats = { copied: 0, serialized: 0 };
    try {
      const version = Buffer.alloc(4);
      version.writeUInt32BE(SNAPSHOT_VERSION);
      let written = 0;
      // Decision P17: the loop runs once the turn's budget is spent, also in the middle of a slice
      // (whose bounds, what P15 compares, stay where they are).
      const turn = new WorkTurn(this.options.compactTurnMs ?? COMPACT_TURN_MS);
      const check = (stage: 'decode' | 'gather') => async () => {
        if (this.closed) throw new Error('the log was closed during compaction');
        await this.options.compactionProbe?.(stage);
      };
      const gathered = check('gather');
      const put = async (b: Buffer) => {
        await handle.write(b);
        turn.restart();
        written += b.length;
      };
      await put(Buffer.concat([SNAPSHOT_MAGIC, version, frame({ seq, stores: stores.length })]));
      let count = 0;
      for (const [name, entries] of stores) {
        if (entries instanceof LazyEntries) {
          // Nobody has used the store since the restart: its frames are copied as they are, neither
          // decoded nor serialized again (what they hold is exactly the store's state).
          for (const body of entries.frames) {
            await put(Buffer.concat([frame(name), framed(body)]));
            count += 1;
            if (this.closed) throw new Error('the log was closed during compaction');
            await this.options.compactionProbe?.('slice');
          }
          continue;
        }
        if (entries instanceof LoggedEntries) {
          await entries.prepare(check('decode'), turn);
        }
        // A store nobody used since the restart is decoded afresh each time (P6): its records never
        // match, and keeping them would hold what P6 frees. Nor are its slices' entries kept until the
        // store is written (decision P18): each slice's are garbage once it is, instead of all of them
        // being promoted to the old generation (10 of the 66 MiB promoted in the bench's compaction).
        const keep = !(entries instanceof LoggedEntries);
        const before = keep ? previous?.get(name) : undefined;
        const slices: SliceRecord[] = [];
        if (keep) recorded.set(name, slices);
        let index = 0;
        const nameFrame = frame(name);
        let slice: Array<[StoreKey, unknown]> = [];
        let flat: unknown[] = [];
        // The slice so far holds exactly the entries of the last snapshot's slice at this position.
        let same = before !== undefined;
        const flush = async () => {
          const was = before?.[index];
          let body = same && was && was.flat.length === flat.length && previousFile ? await readFrame(previousFile, was) : undefined;
          if (body) stats.copied += 1;
          else {
            if (turn.spent) await turn.next(gathered);
            body = frame(slice);
            stats.serialized += 1;
          }
          if (keep) slices.push({ flat, offset: written + nameFrame.length, length: body.length });
          index += 1;
          await put(Buffer.concat([nameFrame, body]));
          count += 1;
          slice = [];
          flat = [];
          same = before !== undefined;
          if (this.closed) throw new Error('the log was closed during compaction');
          await this.options.compactionProbe?.('slice');
        };
        for (const entry of entries) {
          if (same) {
            const was = before![index];
            same = was !== undefined && was.flat[flat.length] === entry[0] && was.flat[flat.length + 1] === entry[1];
          }
          slice.push(entry);
          // Kept for P15's comparison at the next compaction; a store decoded afresh is never compared.
          if (keep) flat.push(entry[0], entry[1]);
          if (slice.length >= sliceSize) await flush();
          else if ((slice.length & 63) === 0 && turn.spent) await turn.next(gathered);
        }
        if (slice.length > 0) await flush();
      }
      await put(frame({ end: count }));
      await handle.sync();
      await handle.close();
      if (this.closed) throw new Error('the log was closed during compaction');
      await rename(tmp, join(this.dir, SNAPSHOT));
      installed = true;
      this.snapshotBytes = written;
      this.lastSlices = recorded;
      this.options.compactionStats?.(stats);
    } finally {
      await previousFile?.close().catch(() => undefined);
      if (!installed) {
        await handle.close().catch(() => undefined);
        await rm(tmp, { force: true });
      }
    }
    // The version 1 snapshot is superseded (the binary one is read first, so a crash before this is harmless).
    await rm(join(this.dir, LEGACY_SNAPSHOT), { force: true });
    await syncDirectoryAsync(this.dir);
    await this.options.compactionProbe?.('installed');
    // Closed logs up to the snapshot are in it; a crash before they go only makes replay skip them.
    for (const log of closedLogs(this.dir)) if (log.lastSeq <= seq) await rm(join(this.dir, log.name), { force: true });
  }

  close(): void {
    if (this.closed) return;
    if (!this.failed && this.pending.length > 0) this.write(Buffer.from(this.pending.join(''), 'utf8'));
    this.pending = [];
    this.pendingChars = 0;
    // A clean close leaves the log as plain JSON lines (the space written ahead is cut).
    if (this.allocated > this.pos) ftruncateSync(this.fd, this.pos);
    // Closed logs whose last fsync had not run yet, then the open one and the directory (a rename).
    for (const fd of this.retired) fsyncSync(fd);
    fsyncSync(this.fd);
    if (this.retired.size > 0) syncDirectory(this.dir);
    this.closed = true;
    this.markDurable(this.seq);
    for (const fd of this.retired) closeSync(fd);
    this.retired.clear();
    closeSync(this.fd);
    this.lock.release();
  }
}
