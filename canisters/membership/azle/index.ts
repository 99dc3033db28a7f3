// The membership canister on the IC (Azle): Candid in and out through ../candid.ts, state in stable
// memory. It calls no other canister; the user canister and governance call it.
import { IDL, init, postUpgrade, query, update } from 'azle';
import { AzleIdl, azleMethods, dispatcher, icrc7EntryPoints, fromCandidArgs, stableStores, wiringStore } from '@domdao/canister-kit/azle';
import { membershipMethods, membershipTypes } from '../candid.ts';
import { MEMBERSHIP_STORE_NAMES, membershipCore, type MembershipConfig, type MembershipStores } from '../core/membership.ts';

type InitArgs = Omit<MembershipConfig, 'next_token_id'>;
const table = membershipMethods(AzleIdl);
const M = azleMethods(table);
const T = membershipTypes(AzleIdl);
const wiring = wiringStore<InitArgs>();
const core = membershipCore(stableStores<MembershipStores>(MEMBERSHIP_STORE_NAMES));
const d = dispatcher(table, core);

export default class extends icrc7EntryPoints(d) {
  @init([T.InitArgs as unknown as IDL.Type])
  init(args: unknown): void {
    const a = fromCandidArgs<InitArgs>(T.InitArgs, args);
    wiring.set(a);
    core.init(a);
  }

  /** Upgrades take the same arguments and keep the stored configuration (governance changes it). */
  @postUpgrade([T.InitArgs as unknown as IDL.Type])
  postUpgrade(args: unknown): void {
    wiring.set(fromCandidArgs<InitArgs>(T.InitArgs, args));
  }

  @update(M.mint_membership_registered.args, M.mint_membership_registered.ret)
  mint_membership_registered(...a: unknown[]) { return d.update('mint_membership_registered', a); }
  @update(M.upgrade_to_active.args, M.upgrade_to_active.ret)
  upgrade_to_active(...a: unknown[]) { return d.update('upgrade_to_active', a); }
  @update(M.revoke_membership.args, M.revoke_membership.ret)
  revoke_membership(...a: unknown[]) { return d.update('revoke_membership', a); }
  @update(M.apply_policy.args, M.apply_policy.ret)
  apply_policy(...a: unknown[]) { return d.update('apply_policy', a); }
  @query(M.get_membership_status.args, M.get_membership_status.ret)
  get_membership_status(...a: unknown[]) { return d.query('get_membership_status', a); }
  @query(M.count_active_members.args, M.count_active_members.ret)
  count_active_members(...a: unknown[]) { return d.query('count_active_members', a); }
}
