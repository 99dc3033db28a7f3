// The treasury canister on the IC (Azle): Candid in and out through ../candid.ts, state in stable
// memory, the ratified price read from governance for USD payouts.
import { canisterSelf, IDL, init, postUpgrade } from 'azle';
import {
  armIndexBuild,
  AzleIdl,
  canisterCalls,
  dispatcher,
  fromCandidArgs,
  hostServices,
  stableStores,
  tableEntryPoints,
  wiringStore,
  canisterStateTransfer,
} from '@domdao/canister-kit/azle';
import { governanceMethods } from '@domdao/canister-governance';
import { ledgerMethods } from '@domdao/canister-ledger';
import { treasuryMethods, treasuryTypes } from '../candid.ts';
import { TREASURY_STORE_NAMES, treasuryCore, type TreasuryStores } from '../core/treasury.ts';
import { treasuryWiring } from '../wiring.ts';

interface InitArgs {
  governance_canister: string;
  ledger_canister: string;
  admins: string[];
  price_max_age?: bigint;
}
const table = treasuryMethods(AzleIdl);
const types = treasuryTypes(AzleIdl);
const initArgs = wiringStore<InitArgs>();
const callees = canisterCalls(
  { governance: governanceMethods(AzleIdl), ledger: ledgerMethods(AzleIdl) },
  (to) => initArgs.get()[`${to}_canister`],
);
const stores = stableStores<TreasuryStores>(TREASURY_STORE_NAMES);
/** Decision W22: the whole state in and out, by a controller, into a canister not yet used. */
const transfer = canisterStateTransfer(stores);
const core = treasuryCore(stores, treasuryWiring.deps(callees, hostServices));
const calls = dispatcher(table, core);

export default class extends transfer.entryPoints(tableEntryPoints(table, calls)) {
  @init([types.InitArgs as unknown as IDL.Type])
  init(args: unknown): void {
    transfer.installed();
    const a = fromCandidArgs<InitArgs>(types.InitArgs, args);
    initArgs.set(a);
    core.init({
      governance_canister: a.governance_canister,
      self: canisterSelf().toText(),
      admins: a.admins,
      ...(a.price_max_age !== undefined && { price_max_age: a.price_max_age }),
    });
  }

  /** Upgrades take the same arguments; they may re-point governance and the ledger, nothing else. */
  @postUpgrade([types.InitArgs as unknown as IDL.Type])
  postUpgrade(args: unknown): void {
    initArgs.set(fromCandidArgs<InitArgs>(types.InitArgs, args));
    armIndexBuild(stores);
  }
}
