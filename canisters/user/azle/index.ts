// The user canister on the IC (Azle): Candid in and out through ../candid.ts, state in stable memory,
// calls to the membership canister, verification tokens from raw_rand, and a 5-minute timer that
// works the mint retry queue (spec 2 Limits "mint retry").
import { IDL, init, postUpgrade, query, update } from 'azle';
import {
  armIndexBuild,
  armTimers,
  AzleIdl,
  azleMethods,
  canisterCalls,
  dispatcher,
  fromCandidArgs,
  hostServices,
  stableStores,
  wiringStore,
  canisterStateTransfer,
} from '@domdao/canister-kit/azle';
import { membershipMethods } from '@domdao/canister-membership';
import { userMethods, userTypes } from '../candid.ts';
import { USER_STORE_NAMES, userCore, type UserConfig, type UserStores } from '../core/user.ts';
import { userWiring } from '../wiring.ts';

type InitArgs = UserConfig & { membership_canister: string };
const table = userMethods(AzleIdl);
const methods = azleMethods(table);
const types = userTypes(AzleIdl);
const initArgs = wiringStore<InitArgs>();
const callees = canisterCalls({ membership: membershipMethods(AzleIdl) }, (to) => initArgs.get()[`${to}_canister`]);
const stores = stableStores<UserStores>(USER_STORE_NAMES);
/** Decision W22: the whole state in and out, by a controller, into a canister not yet used. */
const transfer = canisterStateTransfer(stores);
const core = userCore(stores, userWiring.deps(callees, hostServices));
const calls = dispatcher(table, core);

export default class extends transfer.entryPoints() {
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

  @update(methods.create_account.args, methods.create_account.ret)
  create_account(...a: unknown[]) {
    return calls.update('create_account', a);
  }
  @update(methods.reissue_verification_token.args, methods.reissue_verification_token.ret)
  reissue_verification_token(...a: unknown[]) {
    return calls.update('reissue_verification_token', a);
  }
  @update(methods.verify_email.args, methods.verify_email.ret)
  verify_email(...a: unknown[]) {
    return calls.update('verify_email', a);
  }
  @update(methods.record_kyc.args, methods.record_kyc.ret)
  record_kyc(...a: unknown[]) {
    return calls.update('record_kyc', a);
  }
  @update(methods.upgrade_membership_to_active.args, methods.upgrade_membership_to_active.ret)
  upgrade_membership_to_active(...a: unknown[]) {
    return calls.update('upgrade_membership_to_active', a);
  }
  @update(methods.remove_unverified_account.args, methods.remove_unverified_account.ret)
  remove_unverified_account(...a: unknown[]) {
    return calls.update('remove_unverified_account', a);
  }
  @update(methods.set_password_hash.args, methods.set_password_hash.ret)
  set_password_hash(...a: unknown[]) {
    return calls.update('set_password_hash', a);
  }
  @query(methods.get_account.args, methods.get_account.ret)
  get_account(...a: unknown[]) {
    return calls.query('get_account', a);
  }
  @query(methods.list_retry_queue.args, methods.list_retry_queue.ret)
  list_retry_queue(...a: unknown[]) {
    return calls.query('list_retry_queue', a);
  }
  @query(methods.list_admin_notifications.args, methods.list_admin_notifications.ret)
  list_admin_notifications(...a: unknown[]) {
    return calls.query('list_admin_notifications', a);
  }
}
