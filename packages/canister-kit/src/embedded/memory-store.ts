// The embedded Store: an in-memory B-tree (ordered like StableBTreeMap) whose writes go through the
// current update's transaction, so a throw undoes them and a commit journals them.
import { deepFreeze, newBTree, orderedEntries, type BTree, type EntriesOptions } from '../btree.ts';
import type { Store, StoreKey } from '../store.ts';
import type { Transaction } from './transaction.ts';

export class MemoryStore<K extends StoreKey, V> implements Store<K, V> {
  readonly tree: BTree<K, V>;

  constructor(
    readonly canister: string,
    readonly qualifiedName: string,
    private readonly currentTx: () => Transaction | undefined,
    entries: Array<[K, V]> = [],
  ) {
    this.tree = newBTree<K, V>();
    for (const [k, v] of entries) this.tree.set(k, deepFreeze(v));
  }

  get(key: K): V | undefined {
    return this.tree.get(key);
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

  entries(options: EntriesOptions<K> = {}): IterableIterator<[K, V]> {
    return orderedEntries(this.tree, options);
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
