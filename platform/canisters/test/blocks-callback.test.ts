// Decision L44: an ICRC-3 `archived_blocks` callback called through the embedded platform, as the wallet
// index calls it (the IC side, through the agent transport, is in wasm-ledger-history.test.ts). The
// embedded ledger in archive mode (decision L43) names its own get_archived_blocks; only a query method
// of one of the platform's canisters can be called this way.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ARCHIVE_METHOD } from '@domdao/canister-ledger';
import { principalFromSeed } from '../src/principals.ts';
import { harness } from './harness.ts';

const HOLDER = principalFromSeed('callback-holder');

describe('ICRC-3 callbacks on the embedded platform (decisions L43, L44)', () => {
  it('the ledger’s callback is followed in-process; an unknown canister, a method it lacks and an update method are refused', async () => {
    const h = await harness({
      ledger: {
        archive: { localBlocks: 5n },
        initialBalances: Array.from({ length: 12 }, (_, i) => [{ owner: HOLDER }, BigInt(i + 1)]),
      },
    });
    after(() => h.platform.close());
    const ledger = h.as(HOLDER).ledger;
    const r = await ledger.icrc3_get_blocks([{ start: 0n, length: 100n }]);
    assert.deepEqual(
      r.blocks.map((b) => b.id),
      [7n, 8n, 9n, 10n, 11n],
    );
    assert.deepEqual(r.archived_blocks, [
      { args: [{ start: 0n, length: 7n }], callback: [h.platform.ids.ledger, ARCHIVE_METHOD] },
    ]);
    const follow = h.platform.blocksCallback(HOLDER);
    const archived = await follow(r.archived_blocks[0]!.callback, r.archived_blocks[0]!.args);
    assert.deepEqual(
      archived.blocks.map((b) => b.id),
      [0n, 1n, 2n, 3n, 4n, 5n, 6n],
    );
    assert.deepEqual(archived.blocks, (await ledger.get_archived_blocks([{ start: 0n, length: 7n }])).blocks);
    await assert.rejects(
      follow([principalFromSeed('not-a-canister-here'), 'icrc3_get_blocks'], []),
      /no canister .* on the embedded platform/,
    );
    await assert.rejects(
      follow([h.platform.ids.ledger, 'icrc3_no_such_method'], []),
      /ledger has no query method icrc3_no_such_method/,
    );
    await assert.rejects(
      follow([h.platform.ids.ledger, 'icrc1_transfer'], []),
      /ledger has no query method icrc1_transfer/,
    );
  });
});
