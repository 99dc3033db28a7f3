// The DOM ledger canister's front door (embedded stand-in for DFINITY's ICRC-1 ledger): its core
// factory and types, its Candid method table and init types. Other packages import only this.
export * from './core/types.ts';
export * from './core/account.ts';
export * from './core/ledger.ts';
export {
  ARCHIVE_METHOD,
  MAX_BLOCKS_PER_REQUEST,
  type BlocksCallback,
  type BlocksPlan,
  type GetBlocksArgs,
  type GetBlocksResult,
} from './core/block-log.ts';
export * from './core/consent.ts';
export * from './candid.ts';
export * from './wiring.ts';
export * from './core/icrc3.ts';
export * from './core/standards.ts';
export * from './core/certification.ts';
export * from './candid-blocks.ts';
