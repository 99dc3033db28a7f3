// Canister ids differ between where a state was read and where it goes (the embedded platform's are
// fixed, K8; a network gives its own), and the state names them: configurations, the treasury's and
// the campaigns' ledger accounts, the minting account. Decision W23: every principal the mapping
// names is renamed wherever it stands as a whole token in a key or value (a principal's text is
// [a-z0-9-]; anything else bounds it), except in the ledger's blocks, which are history under
// ICRC-3's hash chain and keep the ids they were written with.
import { compareKeys, decode, type StoreKey } from '@domdao/canister-kit';
import { CANISTERS } from '../api.ts';
import { isPrincipalText } from '../principals.ts';
import { StateTransferRefusal, type CanisterStateExport, type EntryText } from './types.ts';

/** Stores never renamed: the ledger's blocks (hashed history). */
const HISTORY = new Set(['ledger/blocks']);

export function remapPrincipals(exp: CanisterStateExport, map: Record<string, string>): CanisterStateExport {
  const pairs = Object.entries(map).filter(([from, to]) => from !== to);
  for (const [from, to] of pairs)
    if (!isPrincipalText(from) || !isPrincipalText(to))
      throw new StateTransferRefusal(`${from} → ${to} is not a mapping between two principals`);
  if (pairs.length === 0) return exp;
  const byOld = new Map(pairs);
  const pattern = new RegExp(
    `(?<![a-z0-9-])(${pairs.map(([from]) => from.replace(/-/g, '\\-')).join('|')})(?![a-z0-9-])`,
    'g',
  );
  const rename = (text: string) => text.replace(pattern, (p) => byOld.get(p)!);
  const canisters = { ...exp.canisters };
  for (const name of CANISTERS) {
    const stores: Record<string, EntryText[]> = {};
    for (const [store, entries] of Object.entries(exp.canisters[name].stores)) {
      if (HISTORY.has(`${name}/${store}`)) {
        stores[store] = entries;
        continue;
      }
      const renamed = entries.map(([k, v]): EntryText => [rename(k), rename(v)]);
      const keyed = renamed.map((e) => ({ key: decode<StoreKey>(e[0]), e }));
      keyed.sort((a, b) => compareKeys(a.key, b.key));
      for (let i = 1; i < keyed.length; i++)
        if (compareKeys(keyed[i - 1]!.key, keyed[i]!.key) === 0)
          throw new StateTransferRefusal(
            `renaming principals makes two keys of ${name}.${store} one (${keyed[i]!.e[0]}): the mapping is not one to one`,
          );
      stores[store] = keyed.map((x) => x.e);
    }
    canisters[name] = { ...exp.canisters[name], stores };
  }
  const canisterIds = Object.fromEntries(
    CANISTERS.map((n) => [n, byOld.get(exp.canisterIds[n]) ?? exp.canisterIds[n]]),
  ) as CanisterStateExport['canisterIds'];
  return { ...exp, canisterIds, canisters };
}
