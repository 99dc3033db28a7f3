// Moving the canisters' state (issue 47 item 2; decisions K23, W22–W24, L47): from a stopped
// `npm start` data directory or from deployed canisters, into deployed canisters, verified by a report.
export type {
  CanisterState,
  CanisterStateExport,
  EntryText,
  IcTarget,
  ImportOptions,
  StateReport,
  StoreSummary,
} from './types.ts';
export { StateTransferRefusal } from './types.ts';
export { exportEmbeddedState, readEmbeddedHost, STORE_NAMES } from './embedded.ts';
export {
  chunksOf,
  exportDeployedState,
  importState,
  manifestOf,
  readDeployed,
  readStore,
  transferClient,
  type TransferClient,
} from './deployed.ts';
export { compareReports, summarizeState, summarizeStore } from './summary.ts';
export { remapPrincipals } from './remap.ts';
export { readStateExport, writeStateExport } from './file.ts';
