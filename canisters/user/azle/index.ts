// The user canister on the IC (Azle): Candid in and out through ../candid.ts, state in stable memory,
// calls to the membership canister, verification tokens from raw_rand, and a 5-minute timer that
// works the mint retry queue (spec 2 Limits "mint retry").
import { canisterSelf, IDL, init, postUpgrade, query, setTimerInterval, time, update } from 'azle';
import { AzleIdl, azleMethods, dispatcher, fromCandidArgs, interCanister, rawRandBytes, stableStores, wiringStore } from '@domdao/canister-kit/azle';
import { membershipMethods } from '@domdao/canister-membership';
import { userMethods, userTypes } from '../candid.ts';
import { USER_STORE_NAMES, userCore, type UserConfig, type UserStores } from '../core/user.ts';

type InitArgs = UserConfig & { membership_canister: string };
const table = userMethods(AzleIdl);
const M = azleMethods(table);
const T = userTypes(AzleIdl);
const wiring = wiringStore<InitArgs>();
const membership = interCanister(() => wiring.get().membership_canister, membershipMethods(AzleIdl));
const core = userCore(stableStores<UserStores>(USER_STORE_NAMES), {
  membership: {
    mint_membership_registered: (owner, tos) => membership('mint_membership_registered', owner, tos),
    upgrade_to_active: (owner, proof) => membership('upgrade_to_active', owner, proof),
    get_membership_status: (owner) => membership('get_membership_status', owner),
  },
  randomBytes: rawRandBytes,
});
const d = dispatcher(table, core);

function armTimers(): void {
  setTimerInterval(300, async () => {
    await core.process_retry_queue({ caller: canisterSelf().toText(), now: time() });
  });
}

export default class {
  @init([T.InitArgs as unknown as IDL.Type])
  init(args: unknown): void {
    const a = fromCandidArgs<InitArgs>(T.InitArgs, args);
    wiring.set(a);
    core.init({ registrars: a.registrars, admins: a.admins });
    armTimers();
  }

  /** Upgrades take the same arguments; they may re-point the membership canister, nothing else. */
  @postUpgrade([T.InitArgs as unknown as IDL.Type])
  postUpgrade(args: unknown): void {
    wiring.set(fromCandidArgs<InitArgs>(T.InitArgs, args));
    armTimers();
  }

  @update(M.create_account.args, M.create_account.ret)
  create_account(...a: unknown[]) { return d.update('create_account', a); }
  @update(M.reissue_verification_token.args, M.reissue_verification_token.ret)
  reissue_verification_token(...a: unknown[]) { return d.update('reissue_verification_token', a); }
  @update(M.verify_email.args, M.verify_email.ret)
  verify_email(...a: unknown[]) { return d.update('verify_email', a); }
  @update(M.record_kyc.args, M.record_kyc.ret)
  record_kyc(...a: unknown[]) { return d.update('record_kyc', a); }
  @update(M.upgrade_membership_to_active.args, M.upgrade_membership_to_active.ret)
  upgrade_membership_to_active(...a: unknown[]) { return d.update('upgrade_membership_to_active', a); }
  @query(M.get_account.args, M.get_account.ret)
  get_account(...a: unknown[]) { return d.query('get_account', a); }
  @query(M.list_retry_queue.args, M.list_retry_queue.ret)
  list_retry_queue(...a: unknown[]) { return d.query('list_retry_queue', a); }
  @query(M.list_admin_notifications.args, M.list_admin_notifications.ret)
  list_admin_notifications(...a: unknown[]) { return d.query('list_admin_notifications', a); }
}
