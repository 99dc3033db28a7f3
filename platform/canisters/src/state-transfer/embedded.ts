// Reading the state of a stopped `npm start` (DATA_DIR/canisters: the snapshot and the write-ahead
// log) through the embedded host itself, so the replay is the one `npm start` makes (decision W22).
// The host's directory lock (K20) tells a running process from a stopped one.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { encode, type Store, type StoreKey } from '@domdao/canister-kit';
import { DirectoryLockedError, EmbeddedHost } from '@domdao/canister-kit/embedded';
import { STATE_FORMAT, stateVersion, type EntryText } from '@domdao/canister-kit/state-transfer';
import { CAMPAIGN_STORE_NAMES } from '@domdao/canister-campaign';
import { GOVERNANCE_STORE_NAMES } from '@domdao/canister-governance';
import { LEDGER_STORE_NAMES } from '@domdao/canister-ledger';
import { MEMBERSHIP_STORE_NAMES } from '@domdao/canister-membership';
import { TREASURY_STORE_NAMES } from '@domdao/canister-treasury';
import { USER_STORE_NAMES } from '@domdao/canister-user';
import { CANISTERS, type CanisterName } from '../api.ts';
import { EMBEDDED_CANISTER_IDS } from '../principals.ts';
import { StateTransferRefusal, type CanisterState, type CanisterStateExport } from './types.ts';

/** Each canister's stores: the name a core knows a store by (the export's, and the wasm's) → the embedded host's name. */
export const STORE_NAMES: Record<CanisterName, Record<string, string>> = {
  governance: GOVERNANCE_STORE_NAMES,
  membership: MEMBERSHIP_STORE_NAMES,
  user: USER_STORE_NAMES,
  campaign: CAMPAIGN_STORE_NAMES,
  treasury: TREASURY_STORE_NAMES,
  ledger: LEDGER_STORE_NAMES,
};

/** Every store of every canister of an embedded host, as an export names them. */
export function readEmbeddedHost(host: EmbeddedHost): Record<CanisterName, CanisterState> {
  const read = (canister: CanisterName): CanisterState => {
    const names = STORE_NAMES[canister];
    const stores: Record<string, EntryText[]> = {};
    for (const [name, hostName] of Object.entries(names)) {
      const store: Store<StoreKey, unknown> = host.store(canister, hostName);
      stores[name] = host.query(canister, () =>
        Array.from(store.entries(), ([k, v]): EntryText => [encode(k), encode(v)]),
      );
    }
    return { version: stateVersion(Object.keys(names)), stores };
  };
  return Object.fromEntries(CANISTERS.map((c) => [c, read(c)])) as Record<CanisterName, CanisterState>;
}

export async function exportEmbeddedState(dataDir: string): Promise<CanisterStateExport> {
  const dir = join(resolve(dataDir), 'canisters');
  if (!existsSync(dir))
    throw new StateTransferRefusal(
      `${dataDir} holds no embedded canister state (no canisters directory): give the DATA_DIR of npm start`,
    );
  const refuse = (e: unknown): never => {
    if (e instanceof DirectoryLockedError)
      throw new StateTransferRefusal(
        `${dataDir} is in use by a running process (PID ${e.pid}): stop npm start before exporting its canisters`,
      );
    throw e;
  };
  // The host locks DATA_DIR/canisters while open (K20): a running npm start holds it, and none can start meanwhile.
  // DATA_DIR's own lock is left to the caller (a migration may hold it for the database).
  let host: EmbeddedHost;
  try {
    host = EmbeddedHost.open({ dir, fsync: false });
  } catch (e) {
    return refuse(e);
  }
  try {
    const canisters = readEmbeddedHost(host);
    if (canisters.ledger.stores.config!.length === 0)
      throw new StateTransferRefusal(
        `${dataDir} holds no initialised canisters: start npm start once before moving it`,
      );
    return {
      format: 'domdao-canister-state',
      formatVersion: STATE_FORMAT,
      exportedAt: new Date().toISOString(),
      source: { kind: 'embedded', dataDir: resolve(dataDir) },
      canisterIds: { ...EMBEDDED_CANISTER_IDS },
      canisters,
    };
  } finally {
    host.close();
  }
}
