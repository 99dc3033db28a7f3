// The canisters' state out of a stopped `npm start` (issue 47 item 2; decisions K23, W22–W24): every
// store of the six canisters, read through the embedded host's own replay, refused while a process
// holds the directory, written to a file and read back the same, summarised per store.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { decode } from '@domdao/canister-kit';
import { hashValue, type Value } from '@domdao/canister-ledger';
import { CANISTERS } from '../src/api.ts';
import {
  exportEmbeddedState,
  readStateExport,
  remapPrincipals,
  StateTransferRefusal,
  summarizeState,
  writeStateExport,
} from '../src/state-transfer/index.ts';
import { harness, tempDir } from './harness.ts';
import { populate } from './scenarios/populated.ts';

describe('state transfer from the embedded platform (decisions K23, W22–W24)', () => {
  it('W22: a running platform is refused in one sentence; stopped, every store is exported, and the platform opens unchanged after', async () => {
    const dataDir = tempDir();
    const h = await harness({ dir: join(dataDir, 'canisters') });
    const { members, openProposal } = await populate(h);
    await assert.rejects(exportEmbeddedState(dataDir), (e: unknown) => {
      assert.ok(e instanceof StateTransferRefusal);
      assert.match(
        e.message,
        new RegExp(
          `^${dataDir} is in use by a running process \\(PID ${process.pid}\\): stop npm start before exporting its canisters$`,
        ),
      );
      return true;
    });
    const tally = await h.as(members.a).governance.get_tally(openProposal);
    const blocks = await h.as(members.a).ledger.icrc3_get_blocks([{ start: 0n, length: 1000n }]);
    h.platform.close();

    const exp = await exportEmbeddedState(dataDir);
    assert.deepEqual(Object.keys(exp.canisters), [...CANISTERS]);
    const report = summarizeState(exp);
    assert.equal(report.ledger.blocks, blocks.blocks.length);
    const last = blocks.blocks[blocks.blocks.length - 1]!.block as Value;
    assert.equal(
      report.ledger.tipHash,
      Buffer.from(hashValue(last)).toString('hex'),
      'the tip is the ICRC-3 hash of the last block',
    );
    for (const [canister, stores] of [
      ['user', ['accounts', 'config']],
      ['membership', ['tokens', 'byOwner']],
      ['governance', ['proposals', 'votes', 'delegations', 'prices']],
      ['campaign', ['campaigns', 'contributions']],
      ['ledger', ['balances', 'allowances', 'blocks']],
    ] as const)
      for (const s of stores)
        assert.ok(report.canisters[canister].stores[s]!.count > 0, `${canister}.${s} has entries`);
    assert.equal(report.canisters.membership.stores.tokens!.count, 4);
    assert.deepEqual(
      exp.canisters.governance.stores.proposals!.map(([k]) => decode<bigint>(k)),
      [1n, openProposal],
    );

    const again = await harness({ dir: join(dataDir, 'canisters') });
    assert.deepEqual(await again.as(members.a).governance.get_tally(openProposal), tally);
    again.platform.close();
    assert.deepEqual(summarizeState(await exportEmbeddedState(dataDir)), report, 'an export changes nothing');
  });

  it('W24: an export written to a file (0600) reads back entry for entry; a file cut short is refused', async () => {
    const dataDir = tempDir();
    const h = await harness({ dir: join(dataDir, 'canisters') });
    await populate(h);
    h.platform.close();
    const exp = await exportEmbeddedState(dataDir);
    const file = join(dataDir, 'state.jsonl');
    await writeStateExport(file, exp);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(await readStateExport(file), exp);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    writeFileSync(join(dataDir, 'short.jsonl'), lines.slice(0, -1).join('\n') + '\n');
    await assert.rejects(
      readStateExport(join(dataDir, 'short.jsonl')),
      /is cut short: ledger\.\w+ has \d+ of its \d+ entries/,
    );
  });

  it('W22: a directory with no canister state is refused, and none is made', async () => {
    const dataDir = tempDir();
    mkdirSync(join(dataDir, 'pglite'));
    await assert.rejects(exportEmbeddedState(dataDir), /holds no embedded canister state \(no canisters directory\)/);
    assert.equal(existsSync(join(dataDir, 'canisters')), false);
  });

  it('W23: canister ids are renamed everywhere but in the ledger blocks, whose hash chain and tip stay', async () => {
    const dataDir = tempDir();
    const h = await harness({ dir: join(dataDir, 'canisters') });
    await populate(h);
    h.platform.close();
    const exp = await exportEmbeddedState(dataDir);
    const ids = Object.values(exp.canisterIds);
    const to = [...ids].reverse();
    const moved = remapPrincipals(exp, Object.fromEntries(ids.map((id, i) => [id, to[i]!])));
    const before = summarizeState(exp);
    const after = summarizeState(moved);
    assert.equal(after.ledger.tipHash, before.ledger.tipHash);
    assert.deepEqual(after.canisters.ledger.stores.blocks, before.canisters.ledger.stores.blocks);
    assert.notDeepEqual(
      after.canisters.ledger.stores.balances,
      before.canisters.ledger.stores.balances,
      'the treasury and campaign accounts follow their canisters',
    );
    // The campaign's escrow: its accounts (by subaccount) move to the campaign canister's new id.
    const escrow = exp.canisters.ledger.stores.balances!.filter(([k]) =>
      decode<string>(k).startsWith(exp.canisterIds.campaign),
    );
    assert.ok(escrow.length > 0);
    const movedEscrow = moved.canisters.ledger.stores.balances!.filter(([k]) =>
      decode<string>(k).startsWith(moved.canisterIds.campaign),
    );
    assert.deepEqual(
      movedEscrow.map(([, v]) => v),
      escrow.map(([, v]) => v),
    );
    const text = JSON.stringify(moved.canisters.membership.stores.config);
    assert.ok(!text.includes(exp.canisterIds.user) && text.includes(moved.canisterIds.user));
  });
});
