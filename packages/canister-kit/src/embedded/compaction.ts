// Compaction (decision P5): the state at one sequence number written as a new snapshot beside the
// updates, a slice at a time between turns of the event loop, reusing the last snapshot's frames for
// slices that did not change (P15), then the closed logs it covers deleted.
import { mkdir, open as openFile, rename, rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { StoreKey } from '../store.ts';
import { LoggedEntries } from './log-format.ts';
import {
  frame,
  framed,
  LazyEntries,
  readFrame,
  SNAPSHOT_MAGIC,
  SNAPSHOT_VERSION,
  type SliceRecord,
} from './snapshot-format.ts';
import type { StoreEntries, WalOptions } from './wal-types.ts';
import { closedLogs, LEGACY_SNAPSHOT, SNAPSHOT, syncDirectoryAsync } from './wal-files.ts';
import { COMPACT_TURN_MS, WorkTurn } from './work-turn.ts';

/**
 * Entries per slice of a snapshot. A slice's frame is serialized, and decoded on the way back, whole, so
 * its size bounds a compaction's turn where the time budget cannot (decision P17: 2,048 before).
 */
const SLICE_ENTRIES = 512;

export interface Compaction {
  dir: string;
  /** The sequence number the captured state is at (the last record of the closed log). */
  seq: number;
  stores: StoreEntries;
  options: WalOptions;
  /** The slices the snapshot in place was written with (decision P15), or undefined. */
  lastSlices: Map<string, SliceRecord[]> | undefined;
  /** True once the log has closed: the compaction stops. */
  closed: () => boolean;
  /** The new snapshot is in place: its size and slices. */
  installed: (bytes: number, slices: Map<string, SliceRecord[]>) => void;
}

/** Decision P24: `stores` (the state at `seq`) written as the snapshot of `dir`, a new directory (a backup's). */
export async function snapshotInto(
  dir: string,
  seq: number,
  stores: StoreEntries,
  options: WalOptions,
  closed: () => boolean,
): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const { compactionProbe: _probe, compactionStats: _stats, ...plain } = options;
  await compactInto({ dir, seq, stores, options: plain, lastSlices: undefined, closed, installed: () => undefined });
}

/** Writes the snapshot of `stores` at `seq`, installs it, and deletes the logs it covers. */
export async function compactInto(c: Compaction): Promise<void> {
  const { dir, seq, stores, options } = c;
  const tmp = join(dir, `${SNAPSHOT}.${randomUUID()}.tmp`);
  const handle = await openFile(tmp, 'w', 0o600);
  const sliceSize = options.compactSliceEntries ?? SLICE_ENTRIES;
  let installed = false;
  // Decision P15: an open handle keeps reading the snapshot in place after the rename below.
  const previous = c.lastSlices;
  const previousFile = previous ? await openFile(join(dir, SNAPSHOT), 'r').catch(() => undefined) : undefined;
  const recorded = new Map<string, SliceRecord[]>();
  const stats = { copied: 0, serialized: 0 };
  try {
    const version = Buffer.alloc(4);
    version.writeUInt32BE(SNAPSHOT_VERSION);
    let written = 0;
    // Decision P17: the loop runs once the turn's budget is spent, also in the middle of a slice
    // (whose bounds, what P15 compares, stay where they are).
    const turn = new WorkTurn(options.compactTurnMs ?? COMPACT_TURN_MS);
    const check = (stage: 'decode' | 'gather') => async () => {
      if (c.closed()) throw new Error('the log was closed during compaction');
      await options.compactionProbe?.(stage);
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
          if (c.closed()) throw new Error('the log was closed during compaction');
          await options.compactionProbe?.('slice');
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
        let body =
          same && was && was.flat.length === flat.length && previousFile
            ? await readFrame(previousFile, was)
            : undefined;
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
        if (c.closed()) throw new Error('the log was closed during compaction');
        await options.compactionProbe?.('slice');
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
    if (c.closed()) throw new Error('the log was closed during compaction');
    await rename(tmp, join(dir, SNAPSHOT));
    installed = true;
    c.installed(written, recorded);
    options.compactionStats?.(stats);
  } finally {
    await previousFile?.close().catch(() => undefined);
    if (!installed) {
      await handle.close().catch(() => undefined);
      await rm(tmp, { force: true });
    }
  }
  // The version 1 snapshot is superseded (the binary one is read first, so a crash before this is harmless).
  await rm(join(dir, LEGACY_SNAPSHOT), { force: true });
  await syncDirectoryAsync(dir);
  await options.compactionProbe?.('installed');
  // Closed logs up to the snapshot are in it; a crash before they go only makes replay skip them.
  for (const log of closedLogs(dir)) if (log.lastSeq <= seq) await rm(join(dir, log.name), { force: true });
}
