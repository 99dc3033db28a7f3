// The ledger canister on the IC (Azle): Candid in and out through ../candid.ts, state in stable memory.
// Production networks run DFINITY's ICRC-1 ledger wasm as the DOM ledger instead (dfx.json "ledger",
// decision L1); this build keeps the embedded core deployable on a local replica with the same interface.
import {
  canisterSelf,
  certifiedDataSet,
  dataCertificate,
  IDL,
  init,
  msgArgData,
  msgReply,
  postUpgrade,
  query,
  StableBTreeMap,
  update,
} from 'azle';
import {
  armIndexBuild,
  AzleIdl,
  azleMethods,
  context,
  dispatcher,
  fromCandidArgs,
  hostServices,
  stableStores,
  tableEntryPoints,
  canisterStateTransfer,
} from '@domdao/canister-kit/azle';
import { encodeGetBlocksReply, encodeValue, getBlocksReplyHeader } from '../candid-blocks.ts';
import { ledgerMethods, ledgerTypes } from '../candid.ts';
import { blockValue } from '../core/blocks.ts';
import { certifiedTip } from '../core/icrc3.ts';
import { ARCHIVE_METHOD, type GetBlocksArgs } from '../core/block-log.ts';
import { ledgerCore } from '../core/ledger.ts';
import { LEDGER_STORE_NAMES, type Block, type LedgerInit, type LedgerStores } from '../core/types.ts';
import { ledgerWiring } from '../wiring.ts';

const table = ledgerMethods(AzleIdl);
const methods = azleMethods(table);
const types = ledgerTypes(AzleIdl);
const stores = stableStores<LedgerStores>(LEDGER_STORE_NAMES);

/**
 * Decision L42: each block's ICRC-3 Value in Candid, written when the block is appended, keyed by its
 * index (8 bytes, big-endian), in memory 252 (the stores take 0–6, their indexes 100–106, the wiring 253).
 */
const raw = { toBytes: (b: Uint8Array) => b, fromBytes: (b: Uint8Array) => b };
const encodedBlocks = new StableBTreeMap<Uint8Array, Uint8Array>(252, raw, raw);
function blockKey(index: bigint): Uint8Array {
  const key = new Uint8Array(8);
  new DataView(key.buffer).setBigUint64(0, index);
  return key;
}
const encodeBlock = (block: Block) => encodeValue(blockValue(block));

/**
 * Decision W22: the whole state in and out. Begin drops the encoded blocks of the install's own mint
 * (an imported block has none: it is encoded from the block when read, as L42's older blocks are);
 * the seal certifies the imported tip, or nothing for an empty log (decision L47).
 */
const transfer = canisterStateTransfer(stores, {
  cleared() {
    for (const key of encodedBlocks.keys()) encodedBlocks.remove(key);
  },
  sealed() {
    certifiedDataSet(certifiedTip(stores) ?? new Uint8Array());
  },
});

const core = ledgerCore(
  stores,
  ledgerWiring.deps(() => Promise.reject(new Error('the ledger calls no canister')), hostServices),
  {
    self: () => canisterSelf().toText(),
    dataCertificate,
    blockAppended: (index, block) => encodedBlocks.insert(blockKey(index), encodeBlock(block)),
  },
);
const calls = dispatcher(table, core);
/** The type table of a get_blocks reply, made once per instance (init and post_upgrade keep it for every query). */
const REPLY_HEADER = getBlocksReplyHeader(AzleIdl, types.GetBlocksResult as never);

/**
 * icrc3_get_blocks and the archive's method on the wasm (decisions L42, L43): the same plan as the
 * core's, each block copied from its stored encoding (a block appended before this release, which has
 * none, is encoded from the block), the reply written without the candid library's encoder.
 */
function replyBlocks(facet: 'ledger' | 'archive'): void {
  const [arg] = IDL.decode([types.GetBlocksArgs as unknown as IDL.Type], msgArgData());
  const ranges = fromCandidArgs<GetBlocksArgs[]>(types.GetBlocksArgs, arg);
  const plan = core.blocksPlan(ranges, facet);
  const blocks: Array<{ id: bigint; value: Uint8Array }> = [];
  for (const run of plan.runs)
    for (let i = 0; i < run.count; i++) {
      const id = run.start + BigInt(i);
      blocks.push({ id, value: encodedBlocks.get(blockKey(id)) ?? encodeBlock(stores.blocks.get(id)!) });
    }
  const archived = plan.archived.length
    ? [{ args: plan.archived, callback: { canister: canisterSelf().toUint8Array(), method: ARCHIVE_METHOD } }]
    : [];
  msgReply(encodeGetBlocksReply(REPLY_HEADER, { log_length: plan.log_length, blocks, archived_blocks: archived }));
}

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

// The appending updates certify the new tip, and the block queries reply by hand: declared below.
const SPECIAL = ['icrc1_transfer', 'icrc2_approve', 'icrc2_transfer_from', 'icrc3_get_blocks', 'get_archived_blocks'];

export default class extends transfer.entryPoints(tableEntryPoints(table, calls, { except: SPECIAL })) {
  @init([types.InitArgs as unknown as IDL.Type])
  init(args: unknown): void {
    transfer.installed();
    core.init(fromCandidArgs<LedgerInit>(types.InitArgs, args), context());
    certifyTip();
  }

  /** Upgrades keep the ledger's configuration and state; the argument is accepted and ignored. */
  @postUpgrade([types.InitArgs as unknown as IDL.Type])
  postUpgrade(_args: unknown): void {
    armIndexBuild(stores);
    certifyTip();
  }

  @update(methods.icrc1_transfer.args, methods.icrc1_transfer.ret)
  icrc1_transfer(...a: unknown[]) {
    return appending('icrc1_transfer', a);
  }
  @update(methods.icrc2_approve.args, methods.icrc2_approve.ret)
  icrc2_approve(...a: unknown[]) {
    return appending('icrc2_approve', a);
  }
  @update(methods.icrc2_transfer_from.args, methods.icrc2_transfer_from.ret)
  icrc2_transfer_from(...a: unknown[]) {
    return appending('icrc2_transfer_from', a);
  }
  @query(methods.icrc3_get_blocks.args, methods.icrc3_get_blocks.ret, { manual: true })
  icrc3_get_blocks(): void {
    replyBlocks('ledger');
  }
  @query(methods.get_archived_blocks.args, methods.get_archived_blocks.ret, { manual: true })
  get_archived_blocks(): void {
    replyBlocks('archive');
  }
}
