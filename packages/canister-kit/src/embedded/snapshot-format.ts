// The snapshot file, snapshot.bin (versions 3 and 2) or snapshot.json (version 1): see wal.ts for the
// layout. Reading it at open (checked whole, each store's frames decoded on first use) and the frames
// a compaction writes.
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { DefaultDeserializer, serialize } from 'node:v8';
import { crc32 } from 'node:zlib';
import { decode } from '../codec.ts';
import type { StoreKey } from '../store.ts';
import type { StoreLoad } from './wal-types.ts';
import { CorruptStateError, LEGACY_SNAPSHOT, SNAPSHOT } from './wal-files.ts';

export const SNAPSHOT_MAGIC = Buffer.from('DOMDAO-SNAPSHOT\n', 'latin1');
export const SNAPSHOT_VERSION = 3;

/**
 * What an installed compaction wrote of one store it serialized (decision P15): per slice, its entries
 * flattened (key, value, key, value…, the frozen records themselves) and where its body frame lies in
 * that snapshot file.
 */
export interface SliceRecord {
  flat: unknown[];
  offset: number;
  length: number;
}

/**
 * Decodes a snapshot body. V8 hands back byte arrays as views into the bytes it decodes, and those
 * bytes are the snapshot file's (P6 keeps frames as views into it): each byte array is copied, so a
 * value kept in a store does not keep the whole file in memory.
 */
export const readHostObject = (
  DefaultDeserializer.prototype as unknown as { _readHostObject(this: DefaultDeserializer): ArrayBufferView }
)._readHostObject;
export class OwnBytesDeserializer extends DefaultDeserializer {
  // Node's own hook (not in its type declarations), called for every byte array in the body.
  _readHostObject(): unknown {
    const view = readHostObject.call(this);
    if (view instanceof DataView)
      return new DataView(view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength));
    return Buffer.isBuffer(view) ? Buffer.from(view) : (view as Uint8Array).slice();
  }
}

export function deserialize(body: Buffer): unknown {
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

/** A store's entries as loaded: decoded (formats 1 and 2, or replayed from the log), or lazily. */
export const loadedEntries = (load: StoreLoad): Array<[StoreKey, unknown]> => (Array.isArray(load) ? load : load.all());

export type LoadedSnapshot = { seq: number; stores: Array<[string, StoreLoad]> };

/**
 * Version 3: the frames after the header. Every frame's checksum is verified and the small frames
 * (head, store names, end) decoded now; each store's entry frames are copied out and decoded only
 * when the store is first used, so a restart does not decode what it does not read.
 */
export function readFrames(bytes: Buffer, start: number, path: string): LoadedSnapshot {
  let at = start;
  const next = (): Buffer => {
    if (at + 8 > bytes.length) throw new CorruptStateError(`snapshot ${path} ends early`);
    const length = bytes.readUInt32BE(at);
    const crc = bytes.readUInt32BE(at + 4);
    if (at + 8 + length > bytes.length) throw new CorruptStateError(`snapshot ${path} ends early`);
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (crc32(body) !== crc)
      throw new CorruptStateError(`snapshot ${path} is damaged (checksum mismatch at byte ${at})`);
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
    const v = value(body);
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
export function readSnapshot(dir: string): LoadedSnapshot | undefined {
  const binPath = join(dir, SNAPSHOT);
  if (existsSync(binPath)) {
    chmodSync(binPath, 0o600);
    const bytes = readFileSync(binPath);
    const head = SNAPSHOT_MAGIC.length;
    if (bytes.length < head + 4 || !bytes.subarray(0, head).equals(SNAPSHOT_MAGIC))
      throw new CorruptStateError(`${binPath} is not a snapshot`);
    const version = bytes.readUInt32BE(head);
    if (version !== 2 && version !== 3)
      throw new CorruptStateError(`unknown snapshot version ${version} in ${binPath}`);
    let snap: LoadedSnapshot;
    try {
      snap =
        version === 3
          ? readFrames(bytes, head + 4, binPath)
          : (deserialize(bytes.subarray(head + 4)) as LoadedSnapshot);
    } catch (e) {
      if (e instanceof CorruptStateError) throw e;
      throw new CorruptStateError(`unreadable snapshot ${binPath}: ${(e as Error).message}`);
    }
    if (!Number.isSafeInteger(snap?.seq) || !Array.isArray(snap.stores))
      throw new CorruptStateError(`unreadable snapshot ${binPath}`);
    return snap;
  }
  const jsonPath = join(dir, LEGACY_SNAPSHOT);
  if (!existsSync(jsonPath)) return undefined;
  chmodSync(jsonPath, 0o600);
  const snap = decode<{ version: number; seq: number; stores: Record<string, Array<[StoreKey, unknown]>> }>(
    readFileSync(jsonPath, 'utf8'),
  );
  if (snap.version !== 1) throw new CorruptStateError(`unknown snapshot version ${snap.version} in ${jsonPath}`);
  return { seq: snap.seq, stores: Object.entries(snap.stores) };
}

/** A body frame of the snapshot in place, if its bytes still check out (else it is serialized again). */
export async function readFrame(file: FileHandle, at: SliceRecord): Promise<Buffer | undefined> {
  const bytes = Buffer.alloc(at.length);
  const { bytesRead } = await file.read(bytes, 0, at.length, at.offset);
  if (
    bytesRead !== at.length ||
    at.length < 8 ||
    bytes.readUInt32BE(0) !== at.length - 8 ||
    bytes.readUInt32BE(4) !== crc32(bytes.subarray(8))
  )
    return undefined;
  return bytes;
}

/** One version 3 frame: length, CRC-32 and the v8-serialized value. */
export function frame(value: unknown): Buffer {
  return framed(serialize(value));
}

export function framed(body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length);
  head.writeUInt32BE(crc32(body), 4);
  return Buffer.concat([head, body]);
}
