// The ledger canister on the IC (Azle): Candid in and out through ../candid.ts, state in stable memory.
// Production networks run DFINITY's ICRC-1 ledger wasm as the DOM ledger instead (dfx.json "ledger",
// decision L1); this build keeps the embedded core deployable on a local replica with the same interface.
import { certifiedDataSet, dataCertificate, IDL, init, postUpgrade, query, update } from 'azle';
import { armIndexBuild, AzleIdl, azleMethods, context, dispatcher, fromCandidArgs, hostServices, stableStores } from '@domdao/canister-kit/azle';
import { ledgerMethods, ledgerTypes } from '../candid.ts';
import { certifiedTip } from '../core/icrc3.ts';
import { ledgerCore } from '../core/ledger.ts';
import { LEDGER_STORE_NAMES, type LedgerInit, type LedgerStores } from '../core/types.ts';
import { ledgerWiring } from '../wiring.ts';

const table = ledgerMethods(AzleIdl);
const methods = azleMethods(table);
const types = ledgerTypes(AzleIdl);
const stores = stableStores<LedgerStores>(LEDGER_STORE_NAMES);
const core = ledgerCore(
  stores,
  ledgerWiring.deps(() => Promise.reject(new Error('the ledger calls no canister')), hostServices),
  { dataCertificate },
);
const calls = dispatcher(table, core);

/** Decision L26: the certified data is the tip tree's root hash, set whenever a message may have appended a block. */
function certifyTip(): void {
  const data = certifiedTip(stores);
  if (data) certifiedDataSet(data);
}
async function appending(name: string, a: unknown[]): Promise<unknown> {
  const result = await calls.update(name, a);
  certifyTip();
  return result;
}

export default class {
  @init([types.InitArgs as unknown as IDL.Type])
  init(args: unknown): void {
    core.init(fromCandidArgs<LedgerInit>(types.InitArgs, args), context());
    certifyTip();
  }

  /** Upgrades keep the ledger's configuration and state; the argument is accepted and ignored. */
  @postUpgrade([types.InitArgs as unknown as IDL.Type])
  postUpgrade(_args: unknown): void {
    armIndexBuild(stores);
    certifyTip();
  }

  @query(methods.icrc1_name.args, methods.icrc1_name.ret)
  icrc1_name(...a: unknown[]) {
    return calls.query('icrc1_name', a);
  }
  @query(methods.icrc1_symbol.args, methods.icrc1_symbol.ret)
  icrc1_symbol(...a: unknown[]) {
    return calls.query('icrc1_symbol', a);
  }
  @query(methods.icrc1_decimals.args, methods.icrc1_decimals.ret)
  icrc1_decimals(...a: unknown[]) {
    return calls.query('icrc1_decimals', a);
  }
  @query(methods.icrc1_fee.args, methods.icrc1_fee.ret)
  icrc1_fee(...a: unknown[]) {
    return calls.query('icrc1_fee', a);
  }
  @query(methods.icrc1_metadata.args, methods.icrc1_metadata.ret)
  icrc1_metadata(...a: unknown[]) {
    return calls.query('icrc1_metadata', a);
  }
  @query(methods.icrc1_total_supply.args, methods.icrc1_total_supply.ret)
  icrc1_total_supply(...a: unknown[]) {
    return calls.query('icrc1_total_supply', a);
  }
  @query(methods.icrc1_minting_account.args, methods.icrc1_minting_account.ret)
  icrc1_minting_account(...a: unknown[]) {
    return calls.query('icrc1_minting_account', a);
  }
  @query(methods.icrc1_balance_of.args, methods.icrc1_balance_of.ret)
  icrc1_balance_of(...a: unknown[]) {
    return calls.query('icrc1_balance_of', a);
  }
  @update(methods.icrc1_transfer.args, methods.icrc1_transfer.ret)
  icrc1_transfer(...a: unknown[]) {
    return appending('icrc1_transfer', a);
  }
  @query(methods.icrc1_supported_standards.args, methods.icrc1_supported_standards.ret)
  icrc1_supported_standards(...a: unknown[]) {
    return calls.query('icrc1_supported_standards', a);
  }
  @update(methods.icrc2_approve.args, methods.icrc2_approve.ret)
  icrc2_approve(...a: unknown[]) {
    return appending('icrc2_approve', a);
  }
  @query(methods.icrc2_allowance.args, methods.icrc2_allowance.ret)
  icrc2_allowance(...a: unknown[]) {
    return calls.query('icrc2_allowance', a);
  }
  @update(methods.icrc2_transfer_from.args, methods.icrc2_transfer_from.ret)
  icrc2_transfer_from(...a: unknown[]) {
    return appending('icrc2_transfer_from', a);
  }
  @query(methods.icrc3_get_blocks.args, methods.icrc3_get_blocks.ret)
  icrc3_get_blocks(...a: unknown[]) {
    return calls.query('icrc3_get_blocks', a);
  }
  @query(methods.icrc3_supported_block_types.args, methods.icrc3_supported_block_types.ret)
  icrc3_supported_block_types(...a: unknown[]) {
    return calls.query('icrc3_supported_block_types', a);
  }
  @query(methods.icrc3_get_tip_certificate.args, methods.icrc3_get_tip_certificate.ret)
  icrc3_get_tip_certificate(...a: unknown[]) {
    return calls.query('icrc3_get_tip_certificate', a);
  }
  @query(methods.icrc3_get_archives.args, methods.icrc3_get_archives.ret)
  icrc3_get_archives(...a: unknown[]) {
    return calls.query('icrc3_get_archives', a);
  }
  @query(methods.icrc10_supported_standards.args, methods.icrc10_supported_standards.ret)
  icrc10_supported_standards(...a: unknown[]) {
    return calls.query('icrc10_supported_standards', a);
  }
  @update(methods.icrc21_canister_call_consent_message.args, methods.icrc21_canister_call_consent_message.ret)
  icrc21_canister_call_consent_message(...a: unknown[]) {
    return calls.update('icrc21_canister_call_consent_message', a);
  }
}
