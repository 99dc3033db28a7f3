// The shapes of a canister state transfer (decisions K23, W22–W24): what an export holds, where a
// deployed canister set is, and the report that proves a move kept everything.
import type { EntryText } from '@domdao/canister-kit/state-transfer';
import type { CanisterIds, CanisterName } from '../api.ts';

export type { EntryText } from '@domdao/canister-kit/state-transfer';

/** A deployed canister set, as the bridge's IC_* settings name it. */
export interface IcTarget {
  /** IC_HOST: the replica or boundary node. */
  host: string;
  /** The PEM text (not the file) of a controller of the six canisters. */
  identityPem: string;
  /** IC_FETCH_ROOT_KEY: true on a local replica only. */
  fetchRootKey: boolean;
  canisterIds: CanisterIds;
}

export interface CanisterState {
  /** The canister's state version (`stateVersion`: the transfer's format and its store list). */
  version: string;
  /** Every store by name, in the canister's store order, its entries in ascending key order. */
  stores: Record<string, EntryText[]>;
}

export interface CanisterStateExport {
  format: 'domdao-canister-state';
  formatVersion: number;
  /** ISO time of the export. */
  exportedAt: string;
  source: { kind: 'embedded'; dataDir: string } | { kind: 'deployed'; host: string };
  /** The canisters' ids where the state was read: an import maps them onto the target's (decision W23). */
  canisterIds: CanisterIds;
  canisters: Record<CanisterName, CanisterState>;
}

export interface StoreSummary {
  count: number;
  /** CRC-32 of the store's entries (the one a canister checks at its seal), as 8 hex digits. */
  crc32: string;
  /** SHA-256 of the same bytes, hex. */
  sha256: string;
}

export interface StateReport {
  canisters: Record<CanisterName, { version: string; stores: Record<string, StoreSummary> }>;
  ledger: {
    blocks: number;
    /** ICRC-3 hash of the last block, hex; null for an empty log. */
    tipHash: string | null;
  };
}

export interface ImportOptions {
  /**
   * Further principals to rename in the imported state (old text → new text), beyond the six
   * canister ids, which are always mapped from the export's to the target's (decision W23): e.g.
   * the embedded bridge's principal → the deployed bridge's identity.
   */
  principals?: Record<string, string>;
  /** Export the target again after the seal and compare it with what was sent (default true). */
  verify?: boolean;
  /** Progress lines (one per canister step). */
  say?: (line: string) => void;
}

/** A refusal: one sentence, and nothing was changed. */
export class StateTransferRefusal extends Error {
  override name = 'StateTransferRefusal';
}
