// Decision W14: REPLICA_DIR's canister state, durable across restarts and crashes. `state.bin` is a
// snapshot (every canister's image, the call statuses, the clock) of generation N; `journal-N.bin`
// holds one record per round after it (the heap and stable memory pages the round wrote, each
// canister's globals, timer, version and certified data, the calls it answered), each written and
// fdatasync'd before any answer of that round goes out. A record is framed by its length and CRC-32,
// so a torn last record (a crash mid-write) is cut off at the next start and nothing acknowledged is
// lost. A clean stop, and a journal past JOURNAL_MAX bytes, write a new snapshot (to a temporary file,
// synced, renamed over, the directory synced) and start the next generation's journal.
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { syncDir, writeSynced } from './durable-file.ts';
import { deserialize, serialize } from 'node:v8';
import { crc32 } from 'node:zlib';
import type { WasmCanister, WasmReplica } from './host/index.ts';
import type { CanisterPatch } from './host/types.ts';
import type { CallStatus } from './http/read-state.ts';
import type { SnapshotChange, StoredImage } from './snapshot-files.ts';
import type { CanisterChange } from './canister-changes.ts';

/** A journal past this many bytes is folded into a new snapshot. */
export const JOURNAL_MAX = 256 * 1024 * 1024;
/** The page size the journal compares and records (the heap is compared, stable memory writes are tracked). */
const PAGE = 4096;
const FORMAT = 1;

export interface Snapshot {
  format: number;
  generation: number;
  /** Decision W28: the canister snapshots are named, their images are in files of their own. */
  image: StoredImage;
  calls: Array<[string, CallStatus]>;
  offsetNs: bigint;
}

export interface RoundRecord {
  time: bigint;
  offsetNs: bigint;
  canisters: Array<[id: string, patch: CanisterPatch]>;
  calls: Array<[string, CallStatus]>;
  /** Decision W26: the canisters stopped after the round (absent in records of earlier releases). */
  stopped?: string[];
  /** Decision W28: the canister snapshots taken, deleted or loaded in the round (absent if none). */
  snapshots?: SnapshotChange;
  /** Decision W34: the canisters created, installed or upgraded and the controllers changed in the round (absent if none). */
  installs?: CanisterChange;
}

/** The records of a journal file up to its first incomplete or damaged one, and where that one starts. */
function readJournal(file: string): { records: RoundRecord[]; good: number } {
  if (!existsSync(file)) return { records: [], good: 0 };
  const bytes = readFileSync(file);
  const records: RoundRecord[] = [];
  let at = 0;
  while (at + 8 <= bytes.length) {
    const length = bytes.readUInt32LE(at);
    const sum = bytes.readUInt32LE(at + 4);
    if (at + 8 + length > bytes.length) break;
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (crc32(body) !== sum) break;
    records.push(deserialize(body) as RoundRecord);
    at += 8 + length;
  }
  return { records, good: at };
}

export class ReplicaStore {
  private fd = -1;
  private size = 0;
  private generation = 0;

  constructor(readonly dir: string) {}

  /** The snapshot and the journal records after it, a torn tail cut off; undefined for a new directory. */
  open(): { snapshot: Snapshot; records: RoundRecord[] } | undefined {
    const file = join(this.dir, 'state.bin');
    if (!existsSync(file)) return undefined;
    const snapshot = deserialize(readFileSync(file)) as Snapshot;
    if (snapshot.format !== FORMAT)
      throw new Error(`${file} is of format ${snapshot.format}, not ${FORMAT}: remove ${this.dir} to start afresh`);
    this.generation = snapshot.generation;
    const journal = this.journalFile();
    const { records, good } = readJournal(journal);
    this.fd = openSync(journal, 'a+', 0o600);
    ftruncateSync(this.fd, good);
    this.size = good;
    this.dropOtherJournals();
    return { snapshot, records };
  }

  private journalFile(generation = this.generation): string {
    return join(this.dir, `journal-${generation}.bin`);
  }

  private dropOtherJournals(): void {
    for (const f of readdirSync(this.dir))
      if (/^journal-\d+\.bin$/.test(f) && f !== `journal-${this.generation}.bin`)
        rmSync(join(this.dir, f), { force: true });
  }

  /** Writes one round's record and syncs it: called before the round's answers go out. */
  append(record: RoundRecord): void {
    const body = serialize(record);
    const head = Buffer.alloc(8);
    head.writeUInt32LE(body.length, 0);
    head.writeUInt32LE(crc32(body), 4);
    writeSync(this.fd, Buffer.concat([head, body]));
    fdatasyncSync(this.fd);
    this.size += 8 + body.length;
  }

  get journalBytes(): number {
    return this.size;
  }

  /** A new snapshot of generation N + 1, then its empty journal; the old journal goes last. */
  snapshot(s: Omit<Snapshot, 'format' | 'generation'>): void {
    const next = this.generation + 1;
    const file = join(this.dir, 'state.bin');
    writeSynced(file, serialize({ ...s, format: FORMAT, generation: next } satisfies Snapshot));
    syncDir(this.dir);
    if (this.fd >= 0) closeSync(this.fd);
    this.generation = next;
    this.fd = openSync(this.journalFile(), 'w', 0o600);
    this.size = 0;
    syncDir(this.dir);
    this.dropOtherJournals();
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}

/**
 * What each round changed, read from the canisters that committed a message: heap pages that differ
 * from the copy last recorded (4 KiB pages compared natively), stable memory pages written (told by
 * the system API), and the small state beside them.
 */
export class RoundTracker {
  private readonly recorded = new Map<string, Uint8Array>();
  private readonly written = new Map<string, Set<number>>();

  constructor(private readonly replica: WasmReplica) {
    for (const c of replica.canisters.values()) this.watch(c);
  }

  watch(c: WasmCanister): void {
    this.recorded.set(c.id, c.live().heap.slice());
    const pages = new Set<number>();
    this.written.set(c.id, pages);
    c.written = (offset, size) => {
      for (let p = Math.floor(offset / PAGE), last = Math.floor((offset + size - 1) / PAGE); p <= last; p++)
        pages.add(p);
    };
    c.committed = false;
  }

  /** The patches of this round (and forgets them): canisters that committed nothing are left out. */
  collect(): Array<[string, CanisterPatch]> {
    const out: Array<[string, CanisterPatch]> = [];
    for (const c of this.replica.canisters.values()) {
      if (!this.recorded.has(c.id)) this.watch(c);
      if (!c.committed) continue;
      c.committed = false;
      const live = c.live();
      let copy = this.recorded.get(c.id)!;
      if (copy.length < live.heap.length) {
        const grown = new Uint8Array(live.heap.length);
        grown.set(copy);
        this.recorded.set(c.id, (copy = grown));
      }
      const heapPages: Array<[number, Uint8Array]> = [];
      const now = Buffer.from(live.heap.buffer, live.heap.byteOffset, live.heap.length);
      const before = Buffer.from(copy.buffer, copy.byteOffset, copy.length);
      for (let at = 0; at < now.length; at += PAGE) {
        const end = Math.min(at + PAGE, now.length);
        if (now.compare(before, at, end, at, end) !== 0) {
          const bytes = live.heap.slice(at, end);
          copy.set(bytes, at);
          heapPages.push([at, bytes]);
        }
      }
      const pages = this.written.get(c.id)!;
      const stablePagesWritten: Array<[number, Uint8Array]> = [...pages].map((p) => [
        p * PAGE,
        c.stable.slice(p * PAGE, Math.min((p + 1) * PAGE, c.stable.length)),
      ]);
      pages.clear();
      out.push([
        c.id,
        {
          heapLength: live.heap.length,
          heapPages,
          globals: live.globals,
          stableLength: c.stable.length,
          stablePages: live.stablePages,
          stablePagesWritten,
          timer: live.timer,
          version: live.version,
          certifiedData: live.certifiedData.slice(),
        },
      ]);
    }
    return out;
  }
}
