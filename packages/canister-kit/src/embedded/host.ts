// The embedded host: runs canister cores in-process for the bridge and for tests with the guarantees
// the IC gives them (ARCHITECTURE "Canisters: one core, two hosts"):
// - an update call is atomic: if it throws, every write it made is undone, like a trap;
// - committed state is durable: it is in the write-ahead log before the call returns, and a new host
//   on the same directory starts from it;
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
import { WriteAheadLog, type Snapshot, type WalOptions } from './wal.ts';

export interface EmbeddedHostOptions extends WalOptions {
  /** Directory of the durable state; without one the host keeps state in memory only (tests). */
  dir?: string;
}

export class ReentrantCallError extends Error {
  override name = 'ReentrantCallError';
}

export class EmbeddedHost {
  private readonly context = new AsyncLocalStorage<Transaction>();
  private readonly stores = new Map<string, MemoryStore<StoreKey, unknown>>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private closed = false;

  private constructor(
    private readonly wal: WriteAheadLog | undefined,
    private readonly loaded: Snapshot,
  ) {}

  static open(options: EmbeddedHostOptions = {}): EmbeddedHost {
    if (options.dir === undefined) return new EmbeddedHost(undefined, new Map());
    const { wal, state } = WriteAheadLog.open(options.dir, options);
    return new EmbeddedHost(wal, state);
  }

  /** The store `name` of `canister`, with whatever state it had when the host was opened. */
  store<K extends StoreKey, V>(canister: string, name: string): Store<K, V> {
    const qualified = `${canister}/${name}`;
    let store = this.stores.get(qualified);
    if (!store) {
      const entries = (this.loaded.get(qualified) ?? []) as Array<[StoreKey, unknown]>;
      store = new MemoryStore<StoreKey, unknown>(canister, qualified, () => this.context.getStore(), entries);
      this.stores.set(qualified, store);
    }
    return store as unknown as Store<K, V>;
  }

  /** Runs `fn` as an update call of `canister`: serialised, atomic, journaled. */
  update<T>(canister: string, fn: () => T | Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the embedded host is closed'));
    const parent = this.context.getStore();
    if (parent?.reenters(canister)) {
      return Promise.reject(new ReentrantCallError(`re-entrant update call into ${canister} while it has one in progress`));
    }
    const previous = this.queues.get(canister) ?? Promise.resolve();
    const run = previous.then(
      () => this.runUpdate(canister, parent, fn),
      () => this.runUpdate(canister, parent, fn),
    );
    // The queue only orders calls; one call's failure must not fail the next.
    this.queues.set(canister, run.catch(() => undefined));
    return run;
  }

  /** Runs `fn` as a query of `canister`: it sees committed state and may not write. */
  query<T>(canister: string, fn: () => T): T {
    this.assertOpen();
    return this.context.run(new Transaction(canister, true, this.context.getStore()), fn);
  }

  /** Writes a fresh snapshot and empties the log (also done automatically past `compactBytes`). */
  compact(): void {
    this.wal?.compact(this.snapshotEntries());
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.wal?.close();
  }

  private async runUpdate<T>(canister: string, parent: Transaction | undefined, fn: () => T | Promise<T>): Promise<T> {
    const tx = new Transaction(canister, false, parent);
    let result: T;
    try {
      result = await this.context.run(tx, fn);
    } catch (err) {
      tx.rollback();
      throw err;
    }
    if (this.wal && this.wal.append(tx.committedOps())) this.compact();
    return result;
  }

  private *snapshotEntries(): Iterable<[string, Iterable<[StoreKey, unknown]>]> {
    for (const [name, store] of this.stores) yield [name, store.tree.entries()];
    // Stores not opened in this process keep what was loaded for them.
    for (const [name, entries] of this.loaded) if (!this.stores.has(name)) yield [name, entries];
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the embedded host is closed');
  }
}
