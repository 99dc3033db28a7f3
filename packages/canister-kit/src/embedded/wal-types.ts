// The write-ahead log's records, loaded state and options (see wal.ts).
import type { StoreKey } from '../store.ts';

/**
 * A store's entries as a restart loads them: a list, or a view decoded on first use (snapshot-format.ts's
 * LazyEntries, log-format.ts's LoggedEntries). Described by shape, so the two formats need not import each other.
 */
export interface LoadedView extends Iterable<[StoreKey, unknown]> {
  all(): Array<[StoreKey, unknown]>;
}
export type StoreLoad = Array<[StoreKey, unknown]> | LoadedView;
export type Op = [store: string, key: StoreKey, value: unknown] | [store: string, key: StoreKey];
export type Snapshot = Map<string, StoreLoad>;
/** What a compaction writes: every store's entries as they were at one sequence number. */
export type StoreEntries = Array<[string, Iterable<[StoreKey, unknown]>]>;

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
