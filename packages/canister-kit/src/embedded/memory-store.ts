// The embedded Store: an in-memory B-tree (ordered like StableBTreeMap) whose writes go through the
// current update's transaction, so a throw undoes them and a commit journals them. Point reads and
// writes find their key through a hash map beside the tree (decision P7): a B-tree descent compares
// the key a dozen times or more, which for string keys built per call was most of a vote's reads.
import { deepFreeze, freezeRecord, newBTree, orderedEntries, type BTree, type EntriesOptions } from '../btree.ts';
import type { Store, StoreKey } from '../store.ts';
import type { Transaction } from './transaction.ts';
import { loadedEntries } from './snapshot-format.ts';
import type { StoreLoad } from './wal-types.ts';

export class MemoryStore<K extends StoreKey, V> implements Store<K, V> {
  private built: BTree<K, V> | undefined;
  /** The same entries as the tree, by key: get, has, size and the value a write replaces. */
  private byKey: Map<K, V> | undefined;
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
    if (!this.built) this.build();
    return this.built!;
  }

  /**
   * What a compaction copies of this store (decision P5): what was loaded for it while nobody has used
   * it since the host opened (nothing can have been written), so the copy stays encoded and is decoded
   * a slice at a time; otherwise undefined, and the compaction clones the tree.
   */
  get unused(): StoreLoad | undefined {
    return this.built ? undefined : this.loaded;
  }

  private get map(): Map<K, V> {
    if (!this.byKey) this.build();
    return this.byKey!;
  }

  private build(): void {
    const tree = newBTree<K, V>();
    const map = new Map<K, V>();
    for (const [k, v] of loadedEntries(this.loaded ?? []) as Array<[K, V]>) {
      tree.set(k, v);
      map.set(k, v);
    }
    this.built = tree;
    this.byKey = map;
    this.loaded = undefined;
  }

  get(key: K): V | undefined {
    const v = this.map.get(key);
    return v === undefined ? undefined : deepFreeze(v);
  }
  has(key: K): boolean {
    return this.map.has(key);
  }
  get size(): number {
    return this.map.size;
  }

  set(key: K, value: V): void {
    const tx = this.writable();
    const frozen = freezeRecord(value);
    const map = this.map;
    const existed = map.has(key);
    tx.record(this, key, existed ? map.get(key) : undefined, existed, frozen, false);
    map.set(key, frozen);
    this.tree.set(key, frozen);
  }

  delete(key: K): boolean {
    const map = this.map;
    if (!map.has(key)) return false;
    const tx = this.writable();
    tx.record(this, key, map.get(key), true, undefined, true);
    map.delete(key);
    this.tree.delete(key);
    return true;
  }

  *entries(options: EntriesOptions<K> = {}): IterableIterator<[K, V]> {
    for (const [k, v] of orderedEntries(this.tree, options)) yield [k, deepFreeze(v)];
  }

  /** Undo of one write, used by a rolled-back transaction. */
  restore(key: K, value: V | undefined, existed: boolean): void {
    if (existed) {
      this.map.set(key, value as V);
      this.tree.set(key, value as V);
    } else {
      this.map.delete(key);
      this.tree.delete(key);
    }
  }

  private writable(): Transaction {
    const tx = this.currentTx();
    if (!tx) throw new Error(`${this.qualifiedName}: state may only change inside an update call`);
    if (tx.readOnly) throw new Error(`${this.qualifiedName}: a query may not change state`);
    if (tx.canister !== this.canister)
      throw new Error(`${this.qualifiedName}: ${tx.canister} may not write ${this.canister}'s state`);
    return tx;
  }
}
