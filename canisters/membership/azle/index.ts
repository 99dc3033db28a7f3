// The membership canister on the IC (Azle): Candid in and out through ../candid.ts, state in stable
// memory. It calls no other canister; the user canister and governance call it.
import { IDL, init, postUpgrade, query, update } from 'azle';
import {
  armIndexBuild,
  AzleIdl,
  azleMethods,
  dispatcher,
  icrc7EntryPoints,
  fromCandidArgs,
  stableStores,
  wiringStore,
  canisterStateTransfer,
} from '@domdao/canister-kit/azle';
import { membershipMethods, membershipTypes } from '../candid.ts';
import { MEMBERSHIP_STORE_NAMES, membershipCore, type MembershipConfig, type MembershipStores } from '../core/membership.ts';

type InitArgs = Omit<MembershipConfig, 'next_token_id'>;
const table = membershipMethods(AzleIdl);
const methods = azleMethods(table);
const types = membershipTypes(AzleIdl);
const initArgs = wiringStore<InitArgs>();
const stores = stableStores<MembershipStores>(MEMBERSHIP_STORE_NAMES);
/** Decision W22: the whole state in and out, by a controller, into a canister not yet used. */
const transfer = canisterStateTransfer(stores);
const core = membershipCore(stores);
const calls = dispatcher(table, core);

export default class extends transfer.entryPoints(icrc7EntryPoints(calls)) {
  @init([types.InitArgs as unknown as IDL.Type])
  init(args: unknown): void {
    transfer.installed();
    const a = fromCandidArgs<InitArgs>(types.InitArgs, args);
    initArgs.set(a);
    core.init(a);
  }

  /** Upgrades take the same arguments and keep the stored configuration (governance changes it). */
  @postUpgrade([types.InitArgs as unknown as IDL.Type])
  postUpgrade(args: unknown): void {
    initArgs.set(fromCandidArgs<InitArgs>(types.InitArgs, args));
    armIndexBuild(stores);
  }

  @update(methods.mint_membership_registered.args, methods.mint_membership_registered.ret)
  mint_membership_registered(...a: unknown[]) {
    return calls.update('mint_membership_registered', a);
  }
  @update(methods.upgrade_to_active.args, methods.upgrade_to_active.ret)
  upgrade_to_active(...a: unknown[]) {
    return calls.update('upgrade_to_active', a);
  }
  @update(methods.revoke_membership.args, methods.revoke_membership.ret)
  revoke_membership(...a: unknown[]) {
    return calls.update('revoke_membership', a);
  }
  @update(methods.apply_policy.args, methods.apply_policy.ret)
  apply_policy(...a: unknown[]) {
    return calls.update('apply_policy', a);
  }
  @query(methods.get_membership_status.args, methods.get_membership_status.ret)
  get_membership_status(...a: unknown[]) {
    return calls.query('get_membership_status', a);
  }
  @query(methods.count_active_members.args, methods.count_active_members.ret)
  count_active_members(...a: unknown[]) {
    return calls.query('count_active_members', a);
  }
  @query(methods.active_member_snapshot.args, methods.active_member_snapshot.ret)
  active_member_snapshot(...a: unknown[]) {
    return calls.query('active_member_snapshot', a);
  }
  @query(methods.voting_eligibility.args, methods.voting_eligibility.ret)
  voting_eligibility(...a: unknown[]) {
    return calls.query('voting_eligibility', a);
  }
}
