// The embedded Store: an in-memory B-tree (ordered like StableBTreeMap) whose writes go through the
// current update's transaction, so a throw undoes them and a commit journals them.
import { deepFreeze, newBTree, orderedEntries, type BTree, type EntriesOptions } from '../btree.ts';
import type { Store, StoreKey } from '../store.ts';
import type { Transaction } from './transaction.ts';
import { loadedEntries, type StoreLoad } from './wal.ts';

export class MemoryStore<K extends StoreKey, V> implements Store<K, V> {
  private built: BTree<K, V> | undefined;
  /** What the host loaded for this store, indexed on first use (a restart does not pay for stores nobody touches yet). */
  private loaded: StoreLoad | undefined;

  constructor(
    readonly canister: string,
    readonly qualifiedName: string,
    private readonly currentTx: () => Transaction | undefined,
    entries: StoreLoad = [],
  ) {
    this.loaded = entries;
  }

  /**
   * The ordered index, built on first use from what was loaded. Loaded records are frozen as they are
   * handed out rather than here (decision P6): a restart does not walk every record.
   */
  get tree(): BTree<K, V> {
    if (!this.built) {
      this.built = newBTree<K, V>();
      for (const [k, v] of loadedEntries(this.loaded ?? []) as Array<[K, V]>) this.built.set(k, v);
      this.loaded = undefined;
    }
    return this.built;
  }

  get(key: K): V | undefined {
    const v = this.tree.get(key);
    return v === undefined ? undefined : deepFreeze(v);
  }
  has(key: K): boolean {
    return this.tree.has(key);
  }
  get size(): number {
    return this.tree.size;
  }

  set(key: K, value: V): void {
    const tx = this.writable();
    const frozen = deepFreeze(value);
    tx.record(this as unknown as MemoryStore<StoreKey, unknown>, key, this.tree.get(key), this.tree.has(key));
    this.tree.set(key, frozen);
    tx.redo(this.qualifiedName, key, frozen, false);
  }

  delete(key: K): boolean {
    if (!this.tree.has(key)) return false;
    const tx = this.writable();
    tx.record(this as unknown as MemoryStore<StoreKey, unknown>, key, this.tree.get(key), true);
    this.tree.delete(key);
    tx.redo(this.qualifiedName, key, undefined, true);
    return true;
  }

  *entries(options: EntriesOptions<K> = {}): IterableIterator<[K, V]> {
    for (const [k, v] of orderedEntries(this.tree, options)) yield [k, deepFreeze(v)];
  }

  /** Undo of one write, used by a rolled-back transaction. */
  restore(key: K, value: V | undefined, existed: boolean): void {
    if (existed) this.tree.set(key, value as V);
    else this.tree.delete(key);
  }

  private writable(): Transaction {
    const tx = this.currentTx();
    if (!tx) throw new Error(`${this.qualifiedName}: state may only change inside an update call`);
    if (tx.readOnly) throw new Error(`${this.qualifiedName}: a query may not change state`);
    if (tx.canister !== this.canister) throw new Error(`${this.qualifiedName}: ${tx.canister} may not write ${this.canister}'s state`);
    return tx;
  }
}
