// Decisions W1–W3: the six canisters' built wasm (`npm run build:canisters`, in `.azle/`) installed on the
// test replica under the embedded platform's ids, wired to each other by their init arguments as a
// deployment would be, and reached through the Candid clients the bridge uses on an IC network.
import { createHash } from 'node:crypto';
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
import { EMBEDDED_CANISTER_IDS, type CanisterClients, type CanisterIds, type CanisterName } from '@domdao/canisters';
import { candidClients, principalCodec } from '@domdao/canisters/ic';
import { WasmReplica, type ReplicaImage } from './host/index.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
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
  /** Whether the canisters were restored from this process's image of the same deployment (decision W10). */
  restored: boolean;
}

export interface DeployOptions {
  admins: string[];
  registrars: string[];
  controller: string;
  transferFee?: bigint;
  /** The ledger's initial distribution (decision L6): accounts' owners and their e8s. */
  initialBalances?: Array<[owner: string, e8s: bigint]>;
  /** Install for real even when this process has installed the same deployment before (decision W10). */
  fresh?: boolean;
  /** The ledger in archive mode, for tests of ICRC-3 clients (decision L43). */
  ledgerArchive?: { localBlocks: bigint };
}

/**
 * Decision W10: the deployments this process installed, as the replica was right after, by everything
 * an install's outcome depends on (the wasm, the init arguments, the installer, the replica's clock,
 * metering and limits). Installing the six canisters runs about 12 B instructions of Azle's QuickJS
 * (3 to 4 CPU seconds); the same deployment again is restored from its image instead. An install is
 * deterministic (two give the same heap, globals and stable memory, which a test checks), so the image
 * is what the install would make, with the same instruction counts in `replica.counts`.
 */
const installed = new Map<string, ReplicaImage>();

/**
 * Each canister's init (and upgrade) argument, Candid-encoded, wiring the six to each other by `ids`
 * (decision W18: `npm run deploy` installs with the same arguments as the replica does).
 */
export function canisterInitArgs(
  ids: CanisterIds,
  o: Pick<DeployOptions, 'admins' | 'registrars' | 'transferFee' | 'initialBalances' | 'ledgerArchive'>,
): Record<CanisterName, () => Uint8Array> {
  const encode = (type: IDL.Type, value: unknown) =>
    new Uint8Array(IDL.encode([type], [toCandid(type as never, value, principalCodec)]));
  return {
    membership: () =>
      encode(membershipTypes(IDL).InitArgs, {
        user_canister: ids.user,
        governance_canister: ids.governance,
        admins: o.admins,
      }),
    governance: () =>
      encode(governanceTypes(IDL).InitArgs, {
        membership_canister: ids.membership,
        treasury_canister: ids.treasury,
        campaign_canister: ids.campaign,
        admins: o.admins,
        trusted_proposers: o.registrars,
      }),
    user: () =>
      encode(userTypes(IDL).InitArgs, {
        membership_canister: ids.membership,
        registrars: o.registrars,
        admins: o.admins,
      }),
    campaign: () =>
      encode(campaignTypes(IDL).InitArgs, {
        governance_canister: ids.governance,
        membership_canister: ids.membership,
        ledger_canister: ids.ledger,
        admins: o.admins,
      }),
    treasury: () =>
      encode(treasuryTypes(IDL).InitArgs, {
        governance_canister: ids.governance,
        ledger_canister: ids.ledger,
        admins: o.admins,
      }),
    ledger: () =>
      encode(ledgerTypes(IDL).InitArgs, {
        minting_account: { owner: ids.governance },
        transfer_fee: o.transferFee ?? 10_000n,
        token_name: 'DOM',
        token_symbol: 'DOM',
        decimals: 8,
        initial_balances: (o.initialBalances ?? []).map(([owner, e8s]) => [{ owner }, e8s]),
        ...(o.ledgerArchive && { archive: { local_blocks: o.ledgerArchive.localBlocks } }),
      }),
  };
}

export async function deployWasm(options: DeployOptions, replica = new WasmReplica()): Promise<WasmDeployment> {
  const ids = EMBEDDED_CANISTER_IDS;
  const args = canisterInitArgs(ids, options);
  const order: CanisterName[] = ['ledger', 'membership', 'governance', 'user', 'campaign', 'treasury'];
  const wasms = Object.fromEntries(order.map((c) => [c, wasmOf(c)])) as Record<CanisterName, Uint8Array>;
  const inits = Object.fromEntries(order.map((c) => [c, args[c]()])) as Record<CanisterName, Uint8Array>;
  const digest = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
  const key = JSON.stringify({
    canisters: order.map((c) => [c, digest(wasms[c]), digest(inits[c])]),
    controller: options.controller,
    time: String(replica.time),
    metering: replica.metering,
    limits: Object.entries(replica.limits).map(([k, v]) => [k, String(v)]),
  });
  // Only onto an empty replica with nothing recorded and no fault set: then the image is all there is.
  const blank =
    replica.canisters.size === 0 &&
    replica.log.length === 0 &&
    replica.counts.length === 0 &&
    replica.trapAtReply === undefined;
  const image = blank && !options.fresh ? installed.get(key) : undefined;
  if (image) replica.restore(image);
  else {
    for (const canister of order)
      await replica.install(ids[canister], wasms[canister], inits[canister], options.controller);
    if (blank) installed.set(key, replica.image());
  }
  const clients = new Map<string, CanisterClients>();
  return {
    replica,
    ids,
    controller: options.controller,
    restored: image !== undefined,
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
