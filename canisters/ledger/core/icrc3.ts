// ICRC-3 beyond icrc3_get_blocks (decision L26): the certified tip and the archives list. The tip is
// the last block's index and hash; the canister certifies the root hash of ICRC-3's tip tree
// (`certifiedTip`, set by the Azle entry after every message that appends a block) and
// icrc3_get_tip_certificate pairs that tree with the certificate the host gives a query. The
// embedded host has none (no subnet signs its state), so it answers none there.
import type { CallContext } from '@domdao/canister-kit';
import { blockValue } from './blocks.ts';
import { hashValue, tipTree, treeCbor, treeRootHash } from './certification.ts';
import type { Block, LedgerStores } from './types.ts';

/** Where the certificate of a query comes from: ic0.data_certificate on the IC; absent embedded. */
export interface LedgerCertification {
  dataCertificate(): Uint8Array | undefined;
}

/** What the host tells the ledger core beyond its stores (the Azle entry's; the embedded platform's). */
export interface LedgerHost extends Partial<LedgerCertification> {
  /** The ledger's own principal: the canister of the archive callback (decision L43). */
  self(): string;
  /** Told of every block appended, in the message that appends it (the wasm keeps its Candid encoding, decision L42). */
  blockAppended?(index: bigint, block: Block): void;
}

export interface DataCertificate {
  certificate: Uint8Array;
  hash_tree: Uint8Array;
}

export interface ArchiveInfo {
  canister_id: string;
  start: bigint;
  end: bigint;
}

/** The last block of the log and its index; none while the log is empty. */
export function lastBlock(
  stores: Pick<LedgerStores, 'blocks' | 'counters'>,
): { index: bigint; block: Block } | undefined {
  const length = stores.counters.get('blocks') ?? 0n;
  return length === 0n ? undefined : { index: length - 1n, block: stores.blocks.get(length - 1n)! };
}

/** A block's ICRC-3 hash: the one stored with it, or computed (blocks written before L26 have none stored). */
export const blockHash = (b: Block): Uint8Array => b.hash ?? hashValue(blockValue(b));

function tip(stores: LedgerStores) {
  const last = lastBlock(stores);
  return last && tipTree(last.index, blockHash(last.block));
}

/** The 32 bytes the canister certifies: the root hash of the tip tree; none while the log is empty. */
export function certifiedTip(stores: LedgerStores): Uint8Array | undefined {
  const t = tip(stores);
  return t && treeRootHash(t);
}

export function icrc3TipQueries(stores: LedgerStores, certification: Partial<LedgerCertification> | undefined) {
  return {
    icrc3_get_tip_certificate(_ctx: CallContext): DataCertificate | undefined {
      const certificate = certification?.dataCertificate?.();
      const t = tip(stores);
      return certificate && t ? { certificate, hash_tree: treeCbor(t) } : undefined;
    },
  };
}
