// The test replica (decisions W1–W13): the built canisters' wasm run in Node's WebAssembly with the IC's
// message semantics, metering and certification. Tests reach it in process; `../http/` serves it over
// the IC's HTTP interface.
export { WasmCanister } from './canister.ts';
export { TestSubnetKey } from './certification.ts';
export { meter } from './meter.ts';
export { exportTableAndGlobals } from './patch.ts';
export { trapResult, WasmReplica } from './replica.ts';
export {
  ERROR_CODE,
  INSTRUCTION_LIMITS,
  limitOf,
  REJECT,
  Trap,
  type CanisterImage,
  type CanisterLog,
  type ErrorCode,
  type InstructionCount,
  type InstructionLimits,
  type MessageState,
  type ReplicaImage,
  type Result,
} from './types.ts';
export { u32 } from './wasm-binary.ts';
