// The state transfer on the IC (decisions K23, W22): its record in stable memory 251 (the stores take
// 0–99, their indexes 100–199, the ledger's encoded blocks 252, the wiring 253), the controller check
// by ic0.is_controller, and the hold on other update calls and on the timers while an import is under
// way. The status is kept in the heap too, so an update call pays no stable read for the hold: the
// heap and stable memory roll back together when a message traps, and a new instance (after an
// upgrade) reads it again.
import { isController, Principal, query, update } from 'azle';
import { stateTransferMethods } from '../candid/state-transfer.ts';
import type { Store, StoreKey } from '../store.ts';
import { stateTransfer, type TransferHost, type TransferRecord, type TransferStatus } from '../state-transfer/core.ts';
import { AzleIdl, azleMethods, dispatcher, hostServices, transferHold } from './entry.ts';
import { StableStore } from './stable-store.ts';

export const TRANSFER_MEMORY_ID = 251;

const methods = azleMethods(stateTransferMethods(AzleIdl));

/** The canister's state transfer over its stores; `hooks` rebuild what the canister derives from them. */
export function canisterStateTransfer(stores: object, hooks: Pick<TransferHost, 'cleared' | 'sealed'> = {}) {
  const own = new StableStore<string, TransferRecord>(TRANSFER_MEMORY_ID); // read by key only: no index
  const transfer = stateTransfer(stores as Record<string, Store<StoreKey, unknown>>, own, {
    isController: (caller) => isController(Principal.fromText(caller)),
    // Decision K25: Azle's console.log is ic0.debug_print (the canister log its controllers fetch) and writes an object
    // as its JSON.
    log: (line) => console.log(line),
    instructions: hostServices.instructions, // an export page stops within the query limit (W33)
    ...hooks,
  });
  let status: TransferStatus | undefined;
  const current = () => (status ??= transfer.status());
  transferHold.beforeUpdate = () => {
    const s = current();
    if (s === 'importing')
      throw new Error('this canister is importing its state: update calls wait until the import is sealed');
    if (s === 'fresh') {
      transfer.touched();
      status = 'live';
    }
  };
  transferHold.timersHeld = () => current() === 'importing';
  const calls = dispatcher(stateTransferMethods(AzleIdl), transfer);
  return {
    /** At init: importable until the first other update call. */
    installed(): void {
      transfer.installed();
      status = 'fresh';
    },
    /** The base class of the canister's entry point: the three methods, and `Base`'s (ICRC-7's) if given. */
    entryPoints(Base: new () => object = class {}): new () => object {
      class StateTransferEntryPoints extends Base {
        @query(methods.state_status.args, methods.state_status.ret)
        state_status(...a: unknown[]) {
          return calls.query('state_status', a);
        }
        @query(methods.state_export.args, methods.state_export.ret)
        state_export(...a: unknown[]) {
          return calls.query('state_export', a);
        }
        @update(methods.state_import.args, methods.state_import.ret)
        async state_import(...a: unknown[]) {
          const result = await calls.update('state_import', a, { transfer: true });
          status = transfer.status();
          return result;
        }
      }
      return StateTransferEntryPoints;
    },
  };
}
