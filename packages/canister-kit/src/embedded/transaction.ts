import type { StoreKey } from '../store.ts';
import type { MemoryStore } from './memory-store.ts';
import type { Op } from './wal.ts';

/** One update call's writes: enough to undo them on a throw and to journal them on commit. */
export class Transaction {
  private readonly undo: Array<{ store: MemoryStore<StoreKey, unknown>; key: StoreKey; value: unknown; existed: boolean }> = [];
  private readonly ops = new Map<string, Op>();

  constructor(
    readonly canister: string,
    readonly readOnly: boolean,
    readonly parent: Transaction | undefined,
  ) {}

  record(store: MemoryStore<StoreKey, unknown>, key: StoreKey, value: unknown, existed: boolean): void {
    this.undo.push({ store, key, value, existed });
  }

  redo(store: string, key: StoreKey, value: unknown, deleted: boolean): void {
    // One op per key, its last write; ops on different keys are independent, so their order is free.
    const id = `${store}\u0000${typeof key}\u0000${String(key)}`;
    this.ops.delete(id);
    this.ops.set(id, deleted ? [store, key] : [store, key, value]);
  }

  rollback(): void {
    for (let i = this.undo.length - 1; i >= 0; i--) {
      const u = this.undo[i]!;
      u.store.restore(u.key, u.value, u.existed);
    }
  }

  /** Undoes this call's writes since its last commit point on copies of the stores (a compaction's capture). */
  undoOn(copies: Map<string, { set(key: StoreKey, value: unknown): unknown; delete(key: StoreKey): unknown }>): void {
    for (let i = this.undo.length - 1; i >= 0; i--) {
      const u = this.undo[i]!;
      const copy = copies.get(u.store.qualifiedName);
      if (!copy) continue;
      if (u.existed) copy.set(u.key, u.value);
      else copy.delete(u.key);
    }
  }

  /** The writes so far, now final: they are no longer undone by a rollback nor journaled again. */
  commitPoint(): Op[] {
    const ops = this.committedOps();
    this.undo.length = 0;
    this.ops.clear();
    return ops;
  }

  committedOps(): Op[] {
    return [...this.ops.values()];
  }

  /** True when `canister` already has an update call in progress further up this call chain. */
  reenters(canister: string): boolean {
    for (let t: Transaction | undefined = this; t; t = t.parent) if (!t.readOnly && t.canister === canister) return true;
    return false;
  }
}
