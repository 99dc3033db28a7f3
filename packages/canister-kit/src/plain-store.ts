// For tests that drive a canister core directly with interleaved calls: the embedded host serialises
// updates and would hide the interleavings the IC allows between awaits.
import { compareKeys, type Store, type StoreKey } from './index.ts';

/** A plain ordered map as a Store: writes land at once, as on the IC between awaits. */
export function plainStore<K extends StoreKey, V>(): Store<K, V> {
  const m = new Map<K, V>();
  const sorted = () => [...m.entries()].sort(([a], [b]) => compareKeys(a, b));
  return {
    get: (k) => m.get(k),
    has: (k) => m.has(k),
    set: (k, v) => void m.set(k, v),
    delete: (k) => m.delete(k),
    get size() {
      return m.size;
    },
    *entries(o = {}) {
      let all = sorted();
      if (o.reverse) all = all.reverse();
      if (o.from !== undefined)
        all = all.filter(([k]) => (o.reverse ? compareKeys(k, o.from!) <= 0 : compareKeys(k, o.from!) >= 0));
      yield* all.slice(0, o.limit ?? all.length);
    },
  };
}
