// Group commit of the write-ahead log (decisions P1, P9, P12): when an update's record is fsynced, and who
// waits for it. Records appended while an fsync is in flight are written and synced together by the next
// one; up to MAX_FSYNCS_IN_FLIGHT overlap. A closed log's last fsync runs before any record of the next
// log is synced, so what is durable is always a prefix of the sequence. The log itself is wal.ts's.
import { closeSync, fdatasync, fsync, fsyncSync } from 'node:fs';
import { LogWriteError } from './wal-files.ts';
import type { WalOptions } from './wal-types.ts';

/**
 * Overlapping syncs of the log (decision P9): while one group syncs, the next ones are written and
 * started, so under a slow disk an answer waits for about one sync rather than two. Three, so one of
 * libuv's four threads stays free for other file work (a compaction's writes, argon2 in the bridge).
 */
const MAX_FSYNCS_IN_FLIGHT = 3;
/** A group split off mid-turn (decision P12) holds at least this many records: each split costs one more write and fdatasync. */
const MIN_SPLIT_GROUP = 4;

/** What group commit reads of the log it syncs. */
export interface SyncedLog {
  readonly dir: string;
  readonly options: WalOptions;
  /** The sequence of the last record appended, and the open log's file. */
  lastSeq(): number;
  fd(): number;
  closed(): boolean;
  /** Records appended and not yet written. */
  pendingRecords(): number;
  /** Writes them at the log's end (throws when the write fails). */
  writePending(): void;
}

export class GroupCommit {
  private durableSeq: number;
  /** Highest sequence an answer waits for, highest covered by an fsync already started, fsyncs running. */
  private wanted = 0;
  private submitted: number;
  private inFlight = 0;
  private scheduled = false;
  /** A closed log's last fsync is running: the new log's records wait for it (durability in order). */
  private barrier = false;
  /** Files being synced (fd → syncs running) and closed logs to close once no sync uses them. */
  private readonly fdUsers = new Map<number, number>();
  private readonly retired = new Set<number>();
  private waiters: Array<{ seq: number; resolve: () => void; reject: (e: Error) => void }> = [];
  /** The error that stopped the log: nothing more is written or acknowledged. */
  failed: Error | undefined;

  constructor(
    private readonly log: SyncedLog,
    seq: number,
  ) {
    this.durableSeq = seq;
    this.submitted = seq;
  }

  /** Resolves once every record up to `seq` is on disk and fsynced. */
  durable(seq: number): Promise<void> {
    if (seq <= this.durableSeq) return Promise.resolve();
    if (this.failed) return Promise.reject(this.failed);
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
    if (seq > this.wanted) this.wanted = seq;
    // The disk is idle: sync now. A group that has grown as large as the records still syncing ahead of
    // it is synced now too (decision P12): its fsync runs while this turn goes on instead of after it,
    // so the disk and the CPU work at once. Otherwise the next fsync starts at the end of this turn of
    // the event loop (or when one in flight completes), so every update answered meanwhile joins its group.
    const group = this.log.pendingRecords();
    if (
      this.inFlight === 0 ||
      (this.inFlight < MAX_FSYNCS_IN_FLIGHT && group >= Math.max(MIN_SPLIT_GROUP, this.submitted - this.durableSeq))
    )
      this.issue();
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
   * A log closed by rotation (`fd`, last record `last`): its fsync, then `then` (the directory's), run
   * before any record of the new log is synced; the file is closed once no sync uses it.
   */
  retire(fd: number, last: number, then: () => Promise<void>): void {
    this.retired.add(fd);
    this.barrier = true;
    this.startSync(last, fd, then);
  }

  /** At close: fsyncs the closed logs whose last fsync had not run yet; true when there were any. */
  syncRetired(): boolean {
    for (const fd of this.retired) fsyncSync(fd);
    return this.retired.size > 0;
  }

  /** At close, once everything is synced: every waiter up to `seq` is answered and the closed logs' files closed. */
  closed(seq: number): void {
    this.markDurable(seq);
    for (const fd of this.retired) closeSync(fd);
    this.retired.clear();
  }

  fail(error: Error): void {
    this.failed = error;
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w.reject(error);
  }

  /**
   * One group commit: writes every pending record in one call and fsyncs off the main thread. Up to
   * MAX_FSYNCS_IN_FLIGHT overlap, so the next group's records are written while the previous one is
   * still syncing; an fsync covers everything written before it started, whichever finishes first.
   */
  private issue(): void {
    if (
      this.failed ||
      this.log.closed() ||
      this.barrier ||
      this.inFlight >= MAX_FSYNCS_IN_FLIGHT ||
      this.wanted <= this.submitted
    )
      return;
    try {
      this.log.writePending();
    } catch (e) {
      this.fail(new LogWriteError(`writing the log in ${this.log.dir} failed: ${(e as Error).message}`, { cause: e }));
      return;
    }
    this.startSync(this.log.lastSeq(), this.log.fd());
  }

  private startSync(target: number, fd: number, then?: () => Promise<void>): void {
    this.submitted = target;
    this.inFlight += 1;
    this.fdUsers.set(fd, (this.fdUsers.get(fd) ?? 0) + 1);
    void this.syncUpTo(target, fd, then);
  }

  private async syncUpTo(target: number, fd: number, then?: () => Promise<void>): Promise<void> {
    const probe = this.log.options.fsyncProbe;
    try {
      if (probe?.before) await probe.before();
      if (this.log.closed()) return;
      // A group's records: fdatasync (the data, and the size only when it grew). A closed log: fsync.
      await new Promise<void>((resolve, reject) => (then ? fsync : fdatasync)(fd, (e) => (e ? reject(e) : resolve())));
      if (then) await then();
      this.markDurable(target);
      probe?.after?.(target);
    } catch (e) {
      if (!this.log.closed())
        this.fail(
          new LogWriteError(`syncing the log in ${this.log.dir} failed: ${(e as Error).message}`, { cause: e }),
        );
    } finally {
      this.inFlight -= 1;
      const users = this.fdUsers.get(fd)! - 1;
      if (users > 0) this.fdUsers.set(fd, users);
      else {
        this.fdUsers.delete(fd);
        if (this.retired.delete(fd) && !this.log.closed()) closeSync(fd);
      }
      if (then) this.barrier = false;
      this.issue();
    }
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
}
