// The user canister on the IC (Azle): Candid in and out through ../candid.ts, state in stable memory,
// calls to the membership canister, verification tokens from raw_rand, and a 5-minute timer that
// works the mint retry queue (spec 2 Limits "mint retry").
import { IDL, init, postUpgrade } from 'azle';
import {
  armIndexBuild,
  armTimers,
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
import { membershipMethods } from '@domdao/canister-membership';
import { userMethods, userTypes } from '../candid.ts';
import { USER_STORE_NAMES, userCore, type UserConfig, type UserStores } from '../core/user.ts';
import { userWiring } from '../wiring.ts';

type InitArgs = UserConfig & { membership_canister: string };
const table = userMethods(AzleIdl);
const types = userTypes(AzleIdl);
const initArgs = wiringStore<InitArgs>();
const callees = canisterCalls({ membership: membershipMethods(AzleIdl) }, (to) => initArgs.get()[`${to}_canister`]);
const stores = stableStores<UserStores>(USER_STORE_NAMES);
/** Decision W22: the whole state in and out, by a controller, into a canister not yet used. */
const transfer = canisterStateTransfer(stores);
const core = userCore(stores, userWiring.deps(callees, hostServices));
const calls = dispatcher(table, core);

export default class extends transfer.entryPoints(tableEntryPoints(table, calls)) {
  @init([types.InitArgs as unknown as IDL.Type])
  init(args: unknown): void {
    transfer.installed();
    const a = fromCandidArgs<InitArgs>(types.InitArgs, args);
    initArgs.set(a);
    core.init({ registrars: a.registrars, admins: a.admins });
    armTimers(userWiring.timers, core);
  }

  /** Upgrades take the same arguments; they may re-point the membership canister, nothing else. */
  @postUpgrade([types.InitArgs as unknown as IDL.Type])
  postUpgrade(args: unknown): void {
    initArgs.set(fromCandidArgs<InitArgs>(types.InitArgs, args));
    armTimers(userWiring.timers, core);
    armIndexBuild(stores);
  }
}
