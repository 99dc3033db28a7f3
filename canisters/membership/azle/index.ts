// The membership canister on the IC (Azle): Candid in and out through ../candid.ts, state in stable
// memory. It calls no other canister; the user canister and governance call it.
import { IDL, init, postUpgrade, query, update } from 'azle';
import { AzleIdl, azleMethods, dispatcher, fromCandidArgs, stableStores, wiringStore } from '@domdao/canister-kit/azle';
import { membershipMethods, membershipTypes } from '../candid.ts';
import { MEMBERSHIP_STORE_NAMES, membershipCore, type MembershipConfig, type MembershipStores } from '../core/membership.ts';

type InitArgs = Omit<MembershipConfig, 'next_token_id'>;
const table = membershipMethods(AzleIdl);
const M = azleMethods(table);
const T = membershipTypes(AzleIdl);
const wiring = wiringStore<InitArgs>();
const core = membershipCore(stableStores<MembershipStores>(MEMBERSHIP_STORE_NAMES));
const d = dispatcher(table, core);

export default class {
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
  @query(M.icrc7_collection_metadata.args, M.icrc7_collection_metadata.ret)
  icrc7_collection_metadata(...a: unknown[]) { return d.query('icrc7_collection_metadata', a); }
  @query(M.icrc7_name.args, M.icrc7_name.ret)
  icrc7_name(...a: unknown[]) { return d.query('icrc7_name', a); }
  @query(M.icrc7_symbol.args, M.icrc7_symbol.ret)
  icrc7_symbol(...a: unknown[]) { return d.query('icrc7_symbol', a); }
  @query(M.icrc7_description.args, M.icrc7_description.ret)
  icrc7_description(...a: unknown[]) { return d.query('icrc7_description', a); }
  @query(M.icrc7_total_supply.args, M.icrc7_total_supply.ret)
  icrc7_total_supply(...a: unknown[]) { return d.query('icrc7_total_supply', a); }
  @query(M.icrc7_supply_cap.args, M.icrc7_supply_cap.ret)
  icrc7_supply_cap(...a: unknown[]) { return d.query('icrc7_supply_cap', a); }
  @query(M.icrc7_max_query_batch_size.args, M.icrc7_max_query_batch_size.ret)
  icrc7_max_query_batch_size(...a: unknown[]) { return d.query('icrc7_max_query_batch_size', a); }
  @query(M.icrc7_max_take_value.args, M.icrc7_max_take_value.ret)
  icrc7_max_take_value(...a: unknown[]) { return d.query('icrc7_max_take_value', a); }
  @query(M.icrc7_default_take_value.args, M.icrc7_default_take_value.ret)
  icrc7_default_take_value(...a: unknown[]) { return d.query('icrc7_default_take_value', a); }
  @query(M.icrc7_balance_of.args, M.icrc7_balance_of.ret)
  icrc7_balance_of(...a: unknown[]) { return d.query('icrc7_balance_of', a); }
  @query(M.icrc7_owner_of.args, M.icrc7_owner_of.ret)
  icrc7_owner_of(...a: unknown[]) { return d.query('icrc7_owner_of', a); }
  @query(M.icrc7_tokens_of.args, M.icrc7_tokens_of.ret)
  icrc7_tokens_of(...a: unknown[]) { return d.query('icrc7_tokens_of', a); }
  @query(M.icrc7_token_metadata.args, M.icrc7_token_metadata.ret)
  icrc7_token_metadata(...a: unknown[]) { return d.query('icrc7_token_metadata', a); }
  @query(M.icrc7_logo.args, M.icrc7_logo.ret)
  icrc7_logo(...a: unknown[]) { return d.query('icrc7_logo', a); }
  @query(M.icrc7_max_update_batch_size.args, M.icrc7_max_update_batch_size.ret)
  icrc7_max_update_batch_size(...a: unknown[]) { return d.query('icrc7_max_update_batch_size', a); }
  @query(M.icrc7_max_memo_size.args, M.icrc7_max_memo_size.ret)
  icrc7_max_memo_size(...a: unknown[]) { return d.query('icrc7_max_memo_size', a); }
  @query(M.icrc7_atomic_batch_transfers.args, M.icrc7_atomic_batch_transfers.ret)
  icrc7_atomic_batch_transfers(...a: unknown[]) { return d.query('icrc7_atomic_batch_transfers', a); }
  @query(M.icrc7_tx_window.args, M.icrc7_tx_window.ret)
  icrc7_tx_window(...a: unknown[]) { return d.query('icrc7_tx_window', a); }
  @query(M.icrc7_permitted_drift.args, M.icrc7_permitted_drift.ret)
  icrc7_permitted_drift(...a: unknown[]) { return d.query('icrc7_permitted_drift', a); }
  @query(M.icrc7_tokens.args, M.icrc7_tokens.ret)
  icrc7_tokens(...a: unknown[]) { return d.query('icrc7_tokens', a); }
  @update(M.icrc7_transfer.args, M.icrc7_transfer.ret)
  icrc7_transfer(...a: unknown[]) { return d.update('icrc7_transfer', a); }
  @query(M.icrc10_supported_standards.args, M.icrc10_supported_standards.ret)
  icrc10_supported_standards(...a: unknown[]) { return d.query('icrc10_supported_standards', a); }
}
