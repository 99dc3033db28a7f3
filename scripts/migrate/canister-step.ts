// The canister half of `npm run migrate` (decision B113): the embedded canisters' state (DATA_DIR/canisters)
// exported whole, imported into the deployed canisters (each accepts it only from a controller and only
// while fresh), read back and compared store by store; the ledger's tip hash before and after.
import {
  exportDeployedState,
  exportEmbeddedState,
  importState,
  remapPrincipals,
  StateTransferRefusal,
  summarizeState,
  type CanisterStateExport,
  type IcTarget,
  type StateReport,
} from '@domdao/canisters/state-transfer';
import { identityFromPem } from '@domdao/canisters/ic';
import { CANISTERS } from '@domdao/canisters';
import { EMBEDDED_BRIDGE_PRINCIPAL } from '../../services/bridge/src/compose/canisters.ts';
import type { MigrationReport, StoreCompare } from './report.ts';
import { Refusal } from './refusal.ts';

export interface CanisterStep {
  /** Reads the embedded state (refused when it cannot be read: one sentence, nothing changed). */
  check(dataDir: string): Promise<void>;
  /** Imports it; a refusal of the target (not fresh, another state version) comes before anything is written. */
  transfer(dataDir: string): Promise<NonNullable<MigrationReport['canisters']>>;
}

const refusal = <T>(p: Promise<T>): Promise<T> =>
  p.catch((e: unknown) => {
    throw e instanceof StateTransferRefusal ? new Refusal(e.message) : e;
  });

export async function canisterStep(target: IcTarget, say: (line: string) => void): Promise<CanisterStep> {
  const identity = identityFromPem(target.identityPem).getPrincipal().toText();
  let exported: CanisterStateExport | undefined;
  return {
    async check(dataDir) {
      exported = await refusal(exportEmbeddedState(dataDir));
    },
    async transfer() {
      const exp = exported!;
      // The embedded bridge's principal (registrar, trusted proposer, governance admin) is the deployed
      // bridge's identity, as `npm run deploy` installed it; the canister ids map onto the deployed ones.
      const principals = { [EMBEDDED_BRIDGE_PRINCIPAL]: identity };
      const mapping = {
        ...principals,
        ...Object.fromEntries(CANISTERS.map((n) => [exp.canisterIds[n], target.canisterIds[n]])),
      };
      const source = summarizeState(exp);
      const expected = summarizeState(remapPrincipals(exp, mapping));
      await refusal(importState(target, exp, { principals, verify: false, say }));
      const after: StateReport = summarizeState(await exportDeployedState(target));
      const stores: StoreCompare[] = [];
      for (const canister of CANISTERS)
        for (const [store, s] of Object.entries(expected.canisters[canister].stores)) {
          const t = after.canisters[canister].stores[store];
          stores.push({
            canister,
            store,
            source: { count: s.count, checksum: s.sha256 },
            target: t ? { count: t.count, checksum: t.sha256 } : null,
            ok: t !== undefined && t.count === s.count && t.sha256 === s.sha256,
          });
        }
      return {
        stores,
        ledger_tip: {
          source: source.ledger.tipHash,
          target: after.ledger.tipHash,
          ok: source.ledger.tipHash === after.ledger.tipHash && source.ledger.blocks === after.ledger.blocks,
        },
      };
    },
  };
}
