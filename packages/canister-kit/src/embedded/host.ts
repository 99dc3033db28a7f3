// The embedded host: runs canister cores in-process for the bridge and for tests with the guarantees
// the IC gives them (ARCHITECTURE "Canisters: one core, two hosts"):
// - an update call is atomic: if it throws, every write it made is undone, like a trap;
// - committed state is durable: it is in the write-ahead log, fsynced by default (group commit,
//   decision P1), before the call answers, and a new host on the same directory starts from it;
// - update calls to one canister run one at a time, in arrival order; queries never change state;
// - a canister writes only its own stores.
// Inter-canister update calls made from inside an update are calls of their own: they commit or roll
// back independently of the caller, as on the IC. A call chain that re-enters a canister with an
// update in progress is refused (on the IC it would interleave; here it would deadlock). Cores keep
// their writes after their last await, so no other call ever observes a half-done update.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Store, StoreKey } from '../store.ts';
import { MemoryStore } from './memory-store.ts';
import { Transaction } from './transaction.ts';
import type { BTree } from '../btree.ts';
import { LazyEntries, LoggedEntries, WriteAheadLog, type Snapshot, type StoreEntries, type WalOptions } from './wal.ts';

/** When, after open, unused stores' snapshot frames start being copied out of the file's bytes, and how many bytes per turn. */
const DETACH_AFTER_MS = 1_000;
const DETACH_TURN_BYTES = 4 * 1024 * 1024;

export interface EmbeddedHostOptions extends WalOptions {
  /** Directory of the durable state; without one the host keeps state in memory only (tests). */
  dir?: string;
}

type Outcome<T> = { ok: true; value: T; seq: number } | { ok: false; error: unknown; seq: number };
const settle = <T>(o: Outcome<T>): T => {
  if (o.ok) return o.value;
  throw o.error;
};

export class ReentrantCallError extends Error {
  override name = 'ReentrantCallError';
}

/**
 * Decision P21: one storage for every host of the process, each host's transaction under its own key.
 * Node 20 keeps every AsyncLocalStorage that has run in a process-wide list, visits each one for every
 * promise made anywhere in the process, and frees none: a storage per host made a process that opens
 * hosts and never closes them (a core's property test opens hundreds) slow for everything after it.
 */
const CONTEXT = new AsyncLocalStorage<ReadonlyMap<EmbeddedHost, Transaction>>();

export class EmbeddedHost {
  /** This host's transaction in the current async context, if any. */
  private current(): Transaction | undefined {
    return CONTEXT.getStore()?.get(this);
  }

  /** Runs `fn` with `tx` as this host's transaction; other hosts' stay as they were. */
  private within<T>(tx: Transaction, fn: () => T): T {
    return CONTEXT.run(new Map(CONTEXT.getStore()).set(this, tx), fn);
  }
  private readonly stores = new Map<string, MemoryStore<StoreKey, unknown>>();
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Update calls under way: their writes since the last commit point are not in the log yet. */
  private readonly active = new Set<Transaction>();
  private closed = false;

  private constructor(
    private readonly wal: WriteAheadLog | undefined,
    private readonly loaded: Snapshot,
  ) {}

  static open(options: EmbeddedHostOptions = {}): EmbeddedHost {
    if (options.dir === undefined) return new EmbeddedHost(undefined, new Map());
    const { wal, state } = WriteAheadLog.open(options.dir, options);
    const host = new EmbeddedHost(wal, state);
    host.detachSnapshotLater();
    return host;
  }

  /**
   * The snapshot's frames are views into the file's bytes at open (a restart copies nothing); a second
   * after it, the frames of stores still unused are copied out a few MiB per turn of the event loop,
   * so the file's bytes are freed once the used stores have dropped theirs (decision P6).
   */
  private detachSnapshotLater(): void {
    const lazy = [...this.loaded.values()].flatMap((l) =>
      l instanceof LazyEntries ? [l] : l instanceof LoggedEntries && l.base instanceof LazyEntries ? [l.base] : [],
    );
    if (lazy.length === 0) return;
    const step = () => {
      if (this.closed) return;
      for (let budget = DETACH_TURN_BYTES; lazy.length > 0 && budget > 0;) {
        const copied = lazy[0]!.detach(budget);
        if (copied === 0) lazy.shift();
        budget -= copied;
      }
      if (lazy.length > 0) setImmediate(step).unref();
    };
    setTimeout(step, DETACH_AFTER_MS).unref();
  }

  /** The store `name` of `canister`, with whatever state it had when the host was opened. */
  store<K extends StoreKey, V>(canister: string, name: string): Store<K, V> {
    const qualified = `${canister}/${name}`;
    let store = this.stores.get(qualified);
    if (!store) {
      store = new MemoryStore<StoreKey, unknown>(
        canister,
        qualified,
        () => this.current(),
        this.loaded.get(qualified) ?? [],
      );
      this.stores.set(qualified, store);
      this.loaded.delete(qualified); // the store holds it now (and drops it once indexed)
    }
    return store as unknown as Store<K, V>;
  }

  /**
   * Runs `fn` as an update call of `canister`: serialised, atomic, journaled. The next update of the
   * canister may start once this one's record is appended; this one answers only when it is durable
   * (decision P1), so updates waiting for one fsync share it. A call made from inside another update
   * answers at once: its record precedes the outer call's, whose answer waits for both.
   */
  update<T>(canister: string, fn: () => T | Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the embedded host is closed'));
    const parent = this.current();
    if (parent?.reenters(canister)) {
      return Promise.reject(
        new ReentrantCallError(`re-entrant update call into ${canister} while it has one in progress`),
      );
    }
    let previous = this.queues.get(canister) ?? Promise.resolve();
    // A compaction far behind the log holds new calls until it ends (decision P11); calls made from
    // inside an update are part of one already admitted.
    const stall = parent ? undefined : this.wal?.stall();
    if (stall) previous = Promise.all([previous, stall]);
    // runUpdate never rejects: the queue only orders calls, one call's failure must not fail the next.
    const run = previous.then(() =>
      this.closed
        ? { ok: false as const, error: new Error('the embedded host is closed'), seq: 0 }
        : this.runUpdate(canister, parent, fn),
    );
    this.queues.set(canister, run);
    const wal = this.wal;
    if (!parent && wal?.syncs) {
      // A failed call waits too: writes it kept (commit points, inner calls) are durable before its error.
      return run.then((outcome) => wal.durable(outcome.seq).then(() => settle(outcome)));
    }
    return run.then(settle);
  }

  /**
   * Inside an update call: journals the writes made so far and keeps them whatever happens later in the
   * call, as the IC commits a canister's state when it makes an inter-canister call (decision L10). The
   * embedded platform calls it before every inter-canister call; elsewhere it does nothing.
   */
  commitPoint(): void {
    const tx = this.current();
    if (!tx || tx.readOnly) return;
    const ops = tx.commitPoint();
    if (ops.length && this.wal && this.wal.append(ops)) this.wal.compactInBackground(() => this.capture());
  }

  /** Runs `fn` as a query of `canister`: it sees committed state and may not write. */
  query<T>(canister: string, fn: () => T): T {
    this.assertOpen();
    return this.within(new Transaction(canister, true, this.current()), fn);
  }

  /**
   * Writes a fresh snapshot of everything committed before the call and drops the log it replaces
   * (also started automatically past `compactBytes`). Updates and queries go on while it runs.
   */
  compact(): Promise<void> {
    return this.wal?.compact(() => this.capture()) ?? Promise.resolve();
  }

  /**
   * Decision P24: the committed state as it is at this call (taken synchronously: a copy-on-write clone,
   * as a compaction takes it), written as a snapshot into `dir`, an empty directory a host can later be
   * opened on. Updates and queries go on meanwhile. Resolves with the snapshot's sequence number once
   * the file is synced and every update it holds is durable in this host's own log too.
   */
  backupInto(dir: string): Promise<number> {
    if (this.closed) return Promise.reject(new Error('the embedded host is closed'));
    const wal = this.wal;
    if (!wal) return Promise.reject(new Error('an embedded host without a directory has no state to back up'));
    const seq = wal.lastSeq;
    const stores = this.capture();
    return wal.snapshotInto(dir, seq, stores).then(() => seq);
  }

  /** True while new update calls wait for a compaction that fell behind the log (decision P11). */
  get stalling(): boolean {
    return this.wal?.stalling ?? false;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.wal?.close();
  }

  private async runUpdate<T>(
    canister: string,
    parent: Transaction | undefined,
    fn: () => T | Promise<T>,
  ): Promise<Outcome<T>> {
    const tx = new Transaction(canister, false, parent);
    this.active.add(tx);
    try {
      let value: T;
      try {
        value = await this.within(tx, fn);
      } catch (error) {
        tx.rollback();
        return { ok: false, error, seq: this.wal?.lastSeq ?? 0 };
      }
      let full = false;
      try {
        full = this.wal?.append(tx.committedOps()) ?? false;
      } catch (error) {
        tx.rollback(); // not in the log (it failed): memory must not hold it either
        throw error;
      }
      // In the log now: a capture from here on must see these writes (same synchronous step as append).
      this.active.delete(tx);
      if (full) this.wal!.compactInBackground(() => this.capture());
      return { ok: true, value, seq: this.wal?.lastSeq ?? 0 };
    } catch (error) {
      return { ok: false, error, seq: this.wal?.lastSeq ?? 0 };
    } finally {
      this.active.delete(tx);
    }
  }

  /**
   * The committed state, as the log holds it at this moment: an O(1) copy-on-write clone of every
   * store (later writes copy the nodes they touch), less the writes of updates still under way.
   */
  private capture(): StoreEntries {
    const clones = new Map<string, BTree<StoreKey, unknown>>();
    const entries: StoreEntries = [];
    for (const [name, store] of this.stores) {
      // A store nobody has used since the restart is copied from what was loaded, still encoded: building
      // its tree here would block the event loop for its whole decode (seconds after a long log).
      const unused = store.unused;
      if (unused) entries.push([name, unused]);
      else clones.set(name, store.tree.clone());
    }
    // Only used stores can hold writes of updates under way.
    for (const tx of this.active) tx.undoOn(clones);
    for (const [name, tree] of clones) entries.push([name, tree.entries()]);
    // Stores not opened in this process keep what was loaded for them.
    for (const [name, loaded] of this.loaded) if (!this.stores.has(name)) entries.push([name, loaded]);
    return entries;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the embedded host is closed');
  }
}
