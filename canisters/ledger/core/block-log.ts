// The ledger's block log (decisions L26, L42, L43): appending a block to ICRC-3's hash chain, and which
// blocks an icrc3_get_blocks reply (or the archive's) holds, at most MAX_BLOCKS_PER_REQUEST a call.
import { requireNats } from '@domdao/canister-kit';
import { blockValue } from './blocks.ts';
import { hashValue } from './certification.ts';
import { blockHash, lastBlock, type LedgerHost } from './icrc3.ts';
import type { Block, LedgerConfig, LedgerStores, Value } from './types.ts';

/**
 * Blocks one icrc3_get_blocks answers at most, over all its ranges (decision L42): DFINITY's ICRC ledger
 * answers 100, and 100 blocks cost the wasm a small part of a query's 5 B instructions.
 */
export const MAX_BLOCKS_PER_REQUEST = 100n;
/** The method of this ledger that answers its archived blocks in archive mode (decision L43). */
export const ARCHIVE_METHOD = 'get_archived_blocks';

export interface GetBlocksArgs {
  start: bigint;
  length: bigint;
}
/** ICRC-3's callback: a query method, as its canister's principal and the method's name. */
export type BlocksCallback = [canister: string, method: string];
export interface GetBlocksResult {
  log_length: bigint;
  blocks: Array<{ id: bigint; block: Value }>;
  /** The ranges asked for that an archive answers, by callback (archive mode, decision L43). */
  archived_blocks: Array<{ args: GetBlocksArgs[]; callback: BlocksCallback }>;
}

/** Which blocks a reply holds: the log's length, the runs of blocks it answers itself, the ranges it leaves to the archive. */
export interface BlocksPlan {
  log_length: bigint;
  runs: Array<{ start: bigint; count: number }>;
  archived: GetBlocksArgs[];
}

/** The log over the ledger's stores; `config` is read at each call (archive mode's boundary). */
export function blockLog(
  stores: Pick<LedgerStores, 'blocks' | 'counters'>,
  host: LedgerHost,
  config: () => LedgerConfig,
) {
  const blockCount = (): bigint => stores.counters.get('blocks') ?? 0n;
  const append = (block: Block): bigint => {
    const index = blockCount();
    const parent = lastBlock(stores);
    const chained: Block = parent ? { ...block, phash: blockHash(parent.block) } : block;
    const stored: Block = { ...chained, hash: hashValue(blockValue(chained)) };
    stores.blocks.set(index, stored);
    stores.counters.set('blocks', index + 1n);
    host.blockAppended?.(index, stored);
    return index;
  };
  /** Archive mode (decision L43): the blocks below this index are answered by the archive callback. */
  const archivedBelow = (length: bigint): bigint => {
    const local = config().archive_local_blocks;
    return local === undefined || length <= local ? 0n : length - local;
  };
  /**
   * The plan of an icrc3_get_blocks reply (`ledger`) or of the archive's (`archive`), as DFINITY's ledger
   * makes it: ranges in the order given, each cut to what is left of MAX_BLOCKS_PER_REQUEST; the ledger
   * answers its blocks at or above the archive boundary and names the ranges below it; the archive
   * answers the blocks below it and nothing else.
   */
  function plan(ranges: GetBlocksArgs[], facet: 'ledger' | 'archive'): BlocksPlan {
    for (const r of ranges) requireNats({ start: r.start, length: r.length });
    const length = blockCount();
    const boundary = archivedBelow(length);
    const runs: BlocksPlan['runs'] = [];
    const archived: GetBlocksArgs[] = [];
    let budget = MAX_BLOCKS_PER_REQUEST;
    for (const r of ranges) {
      if (budget === 0n) break;
      const start = r.start;
      const end = [r.start + (r.length < budget ? r.length : budget), length].reduce((x, y) => (x < y ? x : y));
      if (start >= end) continue;
      const own =
        facet === 'ledger'
          ? { from: start > boundary ? start : boundary, to: end }
          : { from: start, to: end < boundary ? end : boundary };
      if (facet === 'ledger' && start < boundary)
        archived.push({ start, length: (end < boundary ? end : boundary) - start });
      if (own.from >= own.to) continue;
      runs.push({ start: own.from, count: Number(own.to - own.from) });
      budget -= own.to - own.from;
    }
    return { log_length: length, runs, archived };
  }
  const answer = (p: BlocksPlan): GetBlocksResult => {
    const blocks: GetBlocksResult['blocks'] = [];
    for (const run of p.runs)
      for (const [id, block] of stores.blocks.entries({ from: run.start, limit: run.count }))
        blocks.push({ id, block: blockValue(block) });
    return {
      log_length: p.log_length,
      blocks,
      archived_blocks: p.archived.length ? [{ args: p.archived, callback: [host.self(), ARCHIVE_METHOD] }] : [],
    };
  };
  return { append, archivedBelow, plan, answer };
}
