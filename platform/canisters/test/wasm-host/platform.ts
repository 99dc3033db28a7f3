// Decisions W1–W3: the six canisters' built wasm (`npm run build:canisters`, in `.azle/`) installed on the
// test replica under the embedded platform's ids, wired to each other by their init arguments as a
// deployment would be, and reached through the Candid clients the bridge uses on an IC network.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IDL } from '@icp-sdk/core/candid';
import { toCandid } from '@domdao/canister-kit/candid';
import { governanceTypes } from '@domdao/canister-governance';
import { membershipTypes } from '@domdao/canister-membership';
import { userTypes } from '@domdao/canister-user';
import { campaignTypes } from '@domdao/canister-campaign';
import { treasuryTypes } from '@domdao/canister-treasury';
import { ledgerTypes } from '@domdao/canister-ledger';
import { EMBEDDED_CANISTER_IDS, type CanisterClients, type CanisterIds, type CanisterName } from '../../src/index.ts';
import { candidClients, principalCodec } from '../../src/ic/index.ts';
import { WasmReplica } from './host.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
/** The build's output per canister (the ledger's Azle build is `ledger_embedded`, decision L9). */
const WASM: Record<CanisterName, string> = {
  governance: 'governance',
  membership: 'membership',
  user: 'user',
  campaign: 'campaign',
  treasury: 'treasury',
  ledger: 'ledger_embedded',
};

export function wasmOf(canister: CanisterName): Uint8Array {
  const file = join(ROOT, '.azle', WASM[canister], `${WASM[canister]}.wasm`);
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build:canisters\` (npm test does)`);
  return readFileSync(file);
}

export interface WasmDeployment {
  replica: WasmReplica;
  ids: CanisterIds;
  /** The clients calling as `principal`, Candid over the replica. */
  as(principal: string): CanisterClients;
  /** Each canister's init (and upgrade) argument, Candid-encoded. */
  initArg(canister: CanisterName): Uint8Array;
  /** Upgrades every canister to its own wasm again (stable memory kept, heap fresh). */
  upgradeAll(): Promise<void>;
  controller: string;
}

export interface DeployOptions {
  admins: string[];
  registrars: string[];
  controller: string;
  transferFee?: bigint;
}

export async function deployWasm(options: DeployOptions, replica = new WasmReplica()): Promise<WasmDeployment> {
  const ids = EMBEDDED_CANISTER_IDS;
  const encode = (type: IDL.Type, value: unknown) => new Uint8Array(IDL.encode([type], [toCandid(type as never, value, principalCodec)]));
  const args: Record<CanisterName, () => Uint8Array> = {
    membership: () => encode(membershipTypes(IDL).InitArgs, { user_canister: ids.user, governance_canister: ids.governance, admins: options.admins }),
    governance: () =>
      encode(governanceTypes(IDL).InitArgs, {
        membership_canister: ids.membership,
        treasury_canister: ids.treasury,
        admins: options.admins,
        trusted_proposers: options.registrars,
      }),
    user: () => encode(userTypes(IDL).InitArgs, { membership_canister: ids.membership, registrars: options.registrars, admins: options.admins }),
    campaign: () =>
      encode(campaignTypes(IDL).InitArgs, {
        governance_canister: ids.governance,
        membership_canister: ids.membership,
        ledger_canister: ids.ledger,
        admins: options.admins,
      }),
    treasury: () => encode(treasuryTypes(IDL).InitArgs, { governance_canister: ids.governance, ledger_canister: ids.ledger, admins: options.admins }),
    ledger: () =>
      encode(ledgerTypes(IDL).InitArgs, {
        minting_account: { owner: ids.governance },
        transfer_fee: options.transferFee ?? 10_000n,
        token_name: 'DOM',
        token_symbol: 'DOM',
        decimals: 8,
        initial_balances: [],
      }),
  };
  const order: CanisterName[] = ['ledger', 'membership', 'governance', 'user', 'campaign', 'treasury'];
  for (const canister of order) await replica.install(ids[canister], wasmOf(canister), args[canister](), options.controller);
  const clients = new Map<string, CanisterClients>();
  return {
    replica,
    ids,
    controller: options.controller,
    as(principal) {
      let c = clients.get(principal);
      if (!c) clients.set(principal, (c = candidClients(ids, replica.transport(principal))));
      return c;
    },
    initArg: (canister) => args[canister](),
    async upgradeAll() {
      for (const canister of order) await replica.upgrade(ids[canister], args[canister](), options.controller);
    },
  };
}
