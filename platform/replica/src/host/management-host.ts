// What the management canister (management.ts, snapshots.ts) reads and changes of the test replica, and
// the rejects they share with it. WasmReplica implements the interface: the management code depends on it,
// not on replica.ts, which calls the management code (decision S35: no import circle).
import type { WasmCanister } from './canister.ts';
import { ERROR_CODE, REJECT, type CanisterHost, type CanisterSnapshot, type Result } from './types.ts';

export interface ManagementHost extends CanisterHost {
  readonly canisters: Map<string, WasmCanister>;
  /** Canisters created with no module yet, and their controllers (decision W18). */
  readonly empty: Map<string, string[]>;
  readonly modules: Map<string, Uint8Array>;
  /** Decision W26: stopped canisters, snapshots, the last local snapshot number, the limit, the loads. */
  readonly stopped: Set<string>;
  readonly snapshots: Map<string, CanisterSnapshot[]>;
  readonly snapshotCounter: Map<string, bigint>;
  readonly snapshotLimit: number;
  readonly loads: Array<[canister: string, snapshot: Uint8Array]>;
  controllersOf(id: string): string[] | undefined;
  installNow(id: string, wasm: Uint8Array, arg: Uint8Array, installer: string, controllers: string[]): void;
  upgradeNow(id: string, arg: Uint8Array, installer: string, wasm: Uint8Array): void;
}

export const notFound = (id: string): Result => ({
  rejectCode: REJECT.DESTINATION_INVALID,
  rejectMessage: `Canister ${id} not found`,
  errorCode: ERROR_CODE.CANISTER_NOT_FOUND,
});

export const noModule = (id: string): Result => ({
  rejectCode: REJECT.CANISTER_ERROR,
  rejectMessage: `Error from Canister ${id}: Attempted to execute a message, but the canister contains no Wasm module.`,
  errorCode: ERROR_CODE.CANISTER_WASM_MODULE_NOT_FOUND,
});
