// A test-only canister (decision W7): one StableStore of nat64 keys, the Store the six canisters use,
// with methods to grow it cheaply and to read a page of it, so the test replica can measure a range
// read at 100,000 entries. `fill_unindexed` writes the data map alone, as a release without the
// index left it; post_upgrade arms the build of the index as every canister's does.
import { IDL, postUpgrade, query, StableBTreeMap, update } from 'azle';
import { armIndexBuild, sortableKey, StableStore } from '@domdao/canister-kit/azle';

type Item = { n: number };
const store = new StableStore<bigint, Item>(0, 100);
/** The same data map as bytes, without the index: what an earlier release wrote (the codec's JSON). */
const raw = { toBytes: (b: Uint8Array) => b, fromBytes: (b: Uint8Array) => b };
const data = new StableBTreeMap<Uint8Array, Uint8Array>(0, raw, raw);
const utf8 = new TextEncoder();
const Page = IDL.Record({ keys: IDL.Vec(IDL.Nat64), complete: IDL.Bool, size: IDL.Nat64 });

export default class {
  @postUpgrade([])
  postUpgrade(): void {
    armIndexBuild({ store });
  }

  /** Keys start, start + step, … (n of them), each with a small value. */
  @update([IDL.Nat64, IDL.Nat32, IDL.Nat64, IDL.Bool], IDL.Nat64)
  fill(start: bigint, n: number, step: bigint, indexed: boolean): bigint {
    for (let i = 0; i < n; i++) {
      const key = start + BigInt(i) * step;
      if (indexed) store.set(key, { n: i });
      else data.insert(sortableKey.toBytes(key), utf8.encode(`{"n":${i}}`));
    }
    return BigInt(store.size);
  }

  @update([IDL.Nat64], IDL.Bool)
  remove(key: bigint): boolean {
    return store.delete(key);
  }

  @query([IDL.Opt(IDL.Nat64), IDL.Nat32, IDL.Bool], Page)
  page(from: [] | [bigint], limit: number, reverse: boolean) {
    const keys = [...store.entries({ ...(from.length === 1 && { from: from[0] }), limit, reverse })].map(([k]) => k);
    return { keys, complete: store.index!.state().complete, size: BigInt(store.size) };
  }
}
