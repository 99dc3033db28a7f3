export { armIndexBuild, StableStore, sortableKey, stableStores, wiringStore } from './stable-store.ts';
export {
  AzleIdl,
  azleMethods,
  context,
  dispatcher,
  transferHold,
  fromCandidArgs,
  interCanister,
  principals,
  rawRandBytes,
  hostServices,
  type AzleMethods,
} from './entry.ts';
export { icrc7EntryPoints } from './icrc7-entry.ts';
export { tableEntryPoints } from './table-entry.ts';
export { armTimers, canisterCalls } from './wiring.ts';
export { canisterStateTransfer, TRANSFER_MEMORY_ID } from './state-transfer-entry.ts';
