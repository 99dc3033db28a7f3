// The embedded Store: an in-memory B-tree (ordered like StableBTreeMap) whose writes go through the
// current update's transaction, so a throw undoes them and a commit journals them.
import { deepFreeze, newBTree, orderedEntries, type BTree, type EntriesOptions } from '../btree.ts';
import { compareKeys, type Store, type StoreKey } from '../store.ts';
import type { Transaction } from './transaction.ts';
import { loadedEntries, type StoreLoad } from './wal.ts';

/** What a B-tree lookup answers for an absent key (a stored value may itself be undefined). */
const MISSING: unknown = Symbol('missing');

/**
 * The value under `key` or MISSING, in one descent. sorted-btree's get(key, default) answers
 * undefined instead of the default for a key above every key of the tree (its root's range), so an
 * undefined answer is told apart by comparing with the largest key.
 */
function lookup<K extends StoreKey, V>(tree: BTree<K, V>, key: K): V | typeof MISSING {
  const v = tree.get(key, MISSING as V);
  if (v !== undefined) return v;
  const max = tree.maxKey();
  return max === undefined || compareKeys(key, max) > 0 ? MISSING : v;
}

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
    // One descent (sorted-btree's own has() walks a range).
    return lookup(this.tree, key) !== MISSING;
  }
  get size(): number {
    return this.tree.size;
  }

  set(key: K, value: V): void {
    const tx = this.writable();
    const frozen = deepFreeze(value);
    const tree = this.tree;
    const self = this as unknown as MemoryStore<StoreKey, unknown>;
    // A new key (most writes: a vote, a receipt) is inserted in one descent; an existing one is read first for the undo.
    if (tree.set(key, frozen, false)) {
      tx.record(self, key, undefined, false, frozen, false);
      return;
    }
    const old = tree.get(key);
    tree.set(key, frozen);
    tx.record(self, key, old, true, frozen, false);
  }

  delete(key: K): boolean {
    const tree = this.tree;
    const old = lookup(tree, key);
    if (old === MISSING) return false;
    const tx = this.writable();
    tx.record(this as unknown as MemoryStore<StoreKey, unknown>, key, old, true, undefined, true);
    tree.delete(key);
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
