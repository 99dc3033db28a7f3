import type { StoreKey } from '../store.ts';
import type { Op } from './wal-types.ts';

/** What a transaction needs of a store (memory-store.ts's MemoryStore): its journal name and a way to undo a write. */
export interface JournaledStore {
  readonly qualifiedName: string;
  restore(key: StoreKey, before: unknown, existed: boolean): void;
}

/** One write of an update call: the value before (to undo it) and after (to journal it). */
interface Write {
  store: JournaledStore;
  key: StoreKey;
  before: unknown;
  existed: boolean;
  after: unknown;
  deleted: boolean;
}

/** Writes of one call past which the last write per key is found with a Map rather than a scan. */
const SCAN_LIMIT = 16;

/** One update call's writes: enough to undo them on a throw and to journal them on commit. */
export class Transaction {
  private writes: Write[] = [];

  constructor(
    readonly canister: string,
    readonly readOnly: boolean,
    readonly parent: Transaction | undefined,
  ) {}

  /** A write: the key's value before it (`existed` false: absent) and after it (`deleted`: removed). */
  record(
    store: JournaledStore,
    key: StoreKey,
    before: unknown,
    existed: boolean,
    after: unknown,
    deleted: boolean,
  ): void {
    this.writes.push({ store, key, before, existed, after, deleted });
  }

  rollback(): void {
    const w = this.writes;
    for (let i = w.length - 1; i >= 0; i--) w[i]!.store.restore(w[i]!.key, w[i]!.before, w[i]!.existed);
  }

  /** Undoes this call's writes since its last commit point on copies of the stores (a compaction's capture). */
  undoOn(copies: Map<string, { set(key: StoreKey, value: unknown): unknown; delete(key: StoreKey): unknown }>): void {
    for (let i = this.writes.length - 1; i >= 0; i--) {
      const u = this.writes[i]!;
      const copy = copies.get(u.store.qualifiedName);
      if (!copy) continue;
      if (u.existed) copy.set(u.key, u.before);
      else copy.delete(u.key);
    }
  }

  /** The writes so far, now final: they are no longer undone by a rollback nor journaled again. */
  commitPoint(): Op[] {
    const ops = this.committedOps();
    this.writes = [];
    return ops;
  }

  /**
   * One op per key written, its last write; ops on different keys are independent, so their order is
   * free (they come in the order of each key's last write).
   */
  committedOps(): Op[] {
    const w = this.writes;
    const ops: Op[] = [];
    const last = w.length > SCAN_LIMIT ? lastWrites(w) : undefined;
    for (let i = 0; i < w.length; i++) {
      const x = w[i]!;
      if (last ? last.get(x.store)!.get(x.key) !== i : overwritten(w, i)) continue;
      ops.push(x.deleted ? [x.store.qualifiedName, x.key] : [x.store.qualifiedName, x.key, x.after]);
    }
    return ops;
  }

  /** True when `canister` already has an update call in progress further up this call chain. */
  reenters(canister: string): boolean {
    if (!this.readOnly && this.canister === canister) return true;
    return this.parent?.reenters(canister) ?? false;
  }
}

function overwritten(w: Write[], i: number): boolean {
  const x = w[i]!;
  for (let j = i + 1; j < w.length; j++) if (w[j]!.store === x.store && w[j]!.key === x.key) return true;
  return false;
}

function lastWrites(w: Write[]): Map<JournaledStore, Map<StoreKey, number>> {
  const last = new Map<JournaledStore, Map<StoreKey, number>>();
  w.forEach((x, i) => {
    let m = last.get(x.store);
    if (!m) last.set(x.store, (m = new Map<StoreKey, number>()));
    m.set(x.key, i);
  });
  return last;
}
