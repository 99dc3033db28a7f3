// The ICRC-7 and ICRC-10 entry points, declared once for every soul-bound collection (membership,
// vote passes): a canister's default-export class extends this base. Azle registers decorated
// methods when the exported class is instantiated, base-class methods included (proved by
// npm run build:canisters leaving both .did files unchanged).
import { query, update } from 'azle';
import { icrc7Methods } from '../candid/icrc7.ts';
import { AzleIdl, azleMethods, type dispatcher } from './entry.ts';

const methods = azleMethods(icrc7Methods(AzleIdl));

/** A base class answering the ICRC-7/ICRC-10 methods through `calls` (the canister's dispatcher). */
export function icrc7EntryPoints(calls: ReturnType<typeof dispatcher>) {
  return class Icrc7EntryPoints {
    @query(methods.icrc7_collection_metadata.args, methods.icrc7_collection_metadata.ret)
    icrc7_collection_metadata(...a: unknown[]) {
      return calls.query('icrc7_collection_metadata', a);
    }
    @query(methods.icrc7_name.args, methods.icrc7_name.ret)
    icrc7_name(...a: unknown[]) {
      return calls.query('icrc7_name', a);
    }
    @query(methods.icrc7_symbol.args, methods.icrc7_symbol.ret)
    icrc7_symbol(...a: unknown[]) {
      return calls.query('icrc7_symbol', a);
    }
    @query(methods.icrc7_description.args, methods.icrc7_description.ret)
    icrc7_description(...a: unknown[]) {
      return calls.query('icrc7_description', a);
    }
    @query(methods.icrc7_logo.args, methods.icrc7_logo.ret)
    icrc7_logo(...a: unknown[]) {
      return calls.query('icrc7_logo', a);
    }
    @query(methods.icrc7_total_supply.args, methods.icrc7_total_supply.ret)
    icrc7_total_supply(...a: unknown[]) {
      return calls.query('icrc7_total_supply', a);
    }
    @query(methods.icrc7_supply_cap.args, methods.icrc7_supply_cap.ret)
    icrc7_supply_cap(...a: unknown[]) {
      return calls.query('icrc7_supply_cap', a);
    }
    @query(methods.icrc7_max_query_batch_size.args, methods.icrc7_max_query_batch_size.ret)
    icrc7_max_query_batch_size(...a: unknown[]) {
      return calls.query('icrc7_max_query_batch_size', a);
    }
    @query(methods.icrc7_max_update_batch_size.args, methods.icrc7_max_update_batch_size.ret)
    icrc7_max_update_batch_size(...a: unknown[]) {
      return calls.query('icrc7_max_update_batch_size', a);
    }
    @query(methods.icrc7_max_take_value.args, methods.icrc7_max_take_value.ret)
    icrc7_max_take_value(...a: unknown[]) {
      return calls.query('icrc7_max_take_value', a);
    }
    @query(methods.icrc7_default_take_value.args, methods.icrc7_default_take_value.ret)
    icrc7_default_take_value(...a: unknown[]) {
      return calls.query('icrc7_default_take_value', a);
    }
    @query(methods.icrc7_max_memo_size.args, methods.icrc7_max_memo_size.ret)
    icrc7_max_memo_size(...a: unknown[]) {
      return calls.query('icrc7_max_memo_size', a);
    }
    @query(methods.icrc7_atomic_batch_transfers.args, methods.icrc7_atomic_batch_transfers.ret)
    icrc7_atomic_batch_transfers(...a: unknown[]) {
      return calls.query('icrc7_atomic_batch_transfers', a);
    }
    @query(methods.icrc7_tx_window.args, methods.icrc7_tx_window.ret)
    icrc7_tx_window(...a: unknown[]) {
      return calls.query('icrc7_tx_window', a);
    }
    @query(methods.icrc7_permitted_drift.args, methods.icrc7_permitted_drift.ret)
    icrc7_permitted_drift(...a: unknown[]) {
      return calls.query('icrc7_permitted_drift', a);
    }
    @query(methods.icrc7_balance_of.args, methods.icrc7_balance_of.ret)
    icrc7_balance_of(...a: unknown[]) {
      return calls.query('icrc7_balance_of', a);
    }
    @query(methods.icrc7_owner_of.args, methods.icrc7_owner_of.ret)
    icrc7_owner_of(...a: unknown[]) {
      return calls.query('icrc7_owner_of', a);
    }
    @query(methods.icrc7_tokens.args, methods.icrc7_tokens.ret)
    icrc7_tokens(...a: unknown[]) {
      return calls.query('icrc7_tokens', a);
    }
    @query(methods.icrc7_tokens_of.args, methods.icrc7_tokens_of.ret)
    icrc7_tokens_of(...a: unknown[]) {
      return calls.query('icrc7_tokens_of', a);
    }
    @query(methods.icrc7_token_metadata.args, methods.icrc7_token_metadata.ret)
    icrc7_token_metadata(...a: unknown[]) {
      return calls.query('icrc7_token_metadata', a);
    }
    @update(methods.icrc7_transfer.args, methods.icrc7_transfer.ret)
    icrc7_transfer(...a: unknown[]) {
      return calls.update('icrc7_transfer', a);
    }
    @query(methods.icrc10_supported_standards.args, methods.icrc10_supported_standards.ret)
    icrc10_supported_standards(...a: unknown[]) {
      return calls.query('icrc10_supported_standards', a);
    }
  };
}
