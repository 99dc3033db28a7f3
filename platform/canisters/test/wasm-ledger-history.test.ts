// test-lane: wasm (decision R17: one file on the built wasm at a time)
// Issue 46 items 5 and 6 on the built ledger (`ledger_embedded`) and the metered test replica (decision
// W4; every figure is the replica's count of one message, deterministic): icrc3_get_blocks at most
// 100 blocks a call and at most 2 M instructions a block (decision L42; it was about 41 M, so 135 blocks
// passed the 5 B query limit); archive mode, whose callback the IC client follows (decision L43); the
// fixed cost of a message (decision W17: icrc1_symbol was 15.1 M), with text written and read back
// through stable memory by the kit's UTF-8 codec.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { IDL } from '@icp-sdk/core/candid';
import { toCandid } from '@domdao/canister-kit/candid';
import { ARCHIVE_METHOD, ledgerTypes, MAX_BLOCKS_PER_REQUEST, type GetBlocksResult } from '@domdao/canister-ledger';
import { EMBEDDED_CANISTER_IDS, type LedgerClient } from '../src/index.ts';
import { blocksCallbackQuery, candidClients, principalCodec } from '../src/ic/index.ts';
import { principalFromSeed } from '../src/principals.ts';
import { WasmReplica } from '@domdao/replica/host';
import { wasmOf } from '@domdao/replica';
import { valueHash, type Value } from './icrc-suite/verify.ts';

const ids = EMBEDDED_CANISTER_IDS;
const CONTROLLER = principalFromSeed('controller');
const READER = principalFromSeed('history-reader');
const BLOCKS = 150;
/** Decision L42's bound on the instructions a returned block may add to a reply. */
const PER_BLOCK = 2_000_000n;
/** A name that the UTF-8 codec must carry through stable memory: non-ASCII, a quote, a backslash, an emoji. */
const NAME = 'Dóm "ĐOM" \\ 😀';

/** A ledger installed unmetered with BLOCKS mint blocks (its initial balances, to accounts with subaccounts), optionally in archive mode. */
async function ledgerWith(
  archive?: bigint,
): Promise<{ replica: WasmReplica; ledger: LedgerClient; upgrade(): Promise<void> }> {
  const replica = new WasmReplica();
  const init = ledgerTypes(IDL).InitArgs;
  const sub = (i: number) => Uint8Array.from({ length: 32 }, (_, j) => (j === 31 ? i & 0xff : j === 30 ? 1 : 0));
  const arg = {
    minting_account: { owner: ids.governance },
    transfer_fee: 10_000n,
    token_name: NAME,
    token_symbol: 'DOM',
    decimals: 8,
    initial_balances: Array.from({ length: BLOCKS }, (_, i) => [
      { owner: principalFromSeed(`holder-${i % 40}`), subaccount: sub(i) },
      BigInt(1 + i),
    ]),
    ...(archive !== undefined && { archive: { local_blocks: archive } }),
  };
  const initArg = new Uint8Array(IDL.encode([init], [toCandid(init as never, arg, principalCodec)]));
  replica.metering = false;
  await replica.install(ids.ledger, wasmOf('ledger'), initArg, CONTROLLER);
  replica.metering = true;
  return {
    replica,
    ledger: candidClients(ids, replica.transport(READER)).ledger,
    upgrade: () => replica.upgrade(ids.ledger, initArg, CONTROLLER),
  };
}

/** The instructions of the last message of `method`. */
const cost = (replica: WasmReplica, method: string) =>
  replica.counts.findLast((c) => c.method === method)!.instructions;

/** Each block's parent hash is the hash of the block before it: the blocks are the ledger's, in order. */
function assertChained(blocks: GetBlocksResult['blocks']): void {
  for (let i = 1; i < blocks.length; i++) {
    const phash = (blocks[i]!.block as { Map: Array<[string, Value]> }).Map.find(([k]) => k === 'phash')![1] as {
      Blob: Uint8Array;
    };
    assert.deepEqual(
      Buffer.from(phash.Blob),
      valueHash(blocks[i - 1]!.block as Value),
      `block ${blocks[i]!.id} follows ${blocks[i - 1]!.id}`,
    );
  }
}

describe('the ledger’s history on the built wasm (decisions L42, W17)', () => {
  let replica: WasmReplica;
  let ledger: LedgerClient;
  let upgrade: () => Promise<void>;
  before(async () => ({ replica, ledger, upgrade } = await ledgerWith()));

  it('decision L42: icrc3_get_blocks answers at most 100 blocks a call, and each block returned costs at most 2 M instructions', async () => {
    assert.equal(MAX_BLOCKS_PER_REQUEST, 100n);
    const none = await ledger.icrc3_get_blocks([{ start: 0n, length: 0n }]);
    const fixed = cost(replica, 'icrc3_get_blocks');
    assert.deepEqual([none.log_length, none.blocks], [BigInt(BLOCKS), []]);
    const page = await ledger.icrc3_get_blocks([{ start: 0n, length: 100n }]);
    const hundred = cost(replica, 'icrc3_get_blocks');
    assert.deepEqual(
      page.blocks.map((b) => b.id),
      Array.from({ length: 100 }, (_, i) => BigInt(i)),
    );
    assertChained(page.blocks);
    const perBlock = (hundred - fixed) / 100n;
    assert.ok(perBlock <= PER_BLOCK, `${perBlock} instructions a block (fixed ${fixed})`);
    // What the wallet index used to ask for (500), and the ledger's former limit (2 000): a short page, far within the
    // query limit.
    for (const length of [135n, 500n, 2000n]) {
      const r = await ledger.icrc3_get_blocks([{ start: 10n, length }]);
      assert.deepEqual(
        [r.blocks.length, r.blocks[0]!.id, r.blocks.at(-1)!.id],
        [100, 10n, 109n],
        `a request for ${length}`,
      );
      assert.ok(cost(replica, 'icrc3_get_blocks') < fixed + 100n * PER_BLOCK);
    }
    const tail = await ledger.icrc3_get_blocks([{ start: 140n, length: 100n }]);
    assert.deepEqual(
      [tail.blocks.length, tail.blocks[0]!.id, tail.archived_blocks],
      [10, 140n, []],
      'the end of the log; nothing archived',
    );
    assertChained([...page.blocks, ...(await ledger.icrc3_get_blocks([{ start: 100n, length: 100n }])).blocks]);
    // The kept encodings are in stable memory: after an upgrade the same blocks at the same cost.
    await upgrade();
    assert.deepEqual((await ledger.icrc3_get_blocks([{ start: 0n, length: 100n }])).blocks, page.blocks);
    assert.ok(cost(replica, 'icrc3_get_blocks') <= hundred + 1_000_000n, 'no dearer after the upgrade');
  });

  it('decision W17: icrc1_symbol costs under 4 M instructions (15.1 M before), and a name with non-ASCII text, a quote and a backslash reads back as written', async () => {
    assert.equal(await ledger.icrc1_symbol(), 'DOM');
    const symbol = cost(replica, 'icrc1_symbol');
    assert.ok(symbol < 4_000_000n, `icrc1_symbol: ${symbol}`);
    assert.equal(await ledger.icrc1_name(), NAME);
    assert.deepEqual(
      (await ledger.icrc1_metadata()).find(([k]) => k === 'icrc1:name'),
      ['icrc1:name', { Text: NAME }],
    );
  });
});

describe('archive mode on the built wasm (decision L43)', () => {
  it('older blocks come by the callback get_archived_blocks on the ledger, which the IC client follows; they chain with the ledger’s own', async () => {
    const { replica, ledger } = await ledgerWith(60n);
    const r = await ledger.icrc3_get_blocks([{ start: 50n, length: 100n }]);
    assert.deepEqual(
      r.blocks.map((b) => b.id),
      Array.from({ length: 60 }, (_, i) => BigInt(90 + i)),
    );
    assert.deepEqual(r.archived_blocks, [
      { args: [{ start: 50n, length: 40n }], callback: [ids.ledger, ARCHIVE_METHOD] },
    ]);
    assert.deepEqual(await ledger.icrc3_get_archives({}), [{ canister_id: ids.ledger, start: 0n, end: 89n }]);
    const follow = blocksCallbackQuery(replica.transport(READER));
    const archived = await follow(r.archived_blocks[0]!.callback, r.archived_blocks[0]!.args);
    assert.deepEqual(
      archived.blocks.map((b) => b.id),
      Array.from({ length: 40 }, (_, i) => BigInt(50 + i)),
    );
    assert.ok(
      cost(replica, ARCHIVE_METHOD) < cost(replica, 'icrc3_get_blocks'),
      'the archive’s reply costs like the ledger’s',
    );
    assertChained([...archived.blocks, ...r.blocks]);
    await assert.rejects(follow([ids.ledger, 'icrc3_no_such_method'], []), /no_such_method|not found|has no/);
  });
});
