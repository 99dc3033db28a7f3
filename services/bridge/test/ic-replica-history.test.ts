// test-lane: wasm
// Issue 46 item 5 against the test replica over HTTP (decisions B104, L42–L44, R31): the bridge in IC
// mode, its agents reaching the built ledger through the IC's HTTP interface, reads a member's wallet
// history of more than 1 000 blocks. The replica's ledger is in archive mode (decision L43): it answers
// its newest 150 blocks itself, at most 100 a call, and names the rest by its archive callback, which the
// bridge's index follows through the agent, as it would DFINITY's archive canisters.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { candidClients } from '@domdao/canisters/ic';
import { startReplica, type RunningReplica } from '@domdao/replica';
import { bridge, type Bridge } from './harness.ts';

const BLOCKS = 1_100;

describe('a wallet history longer than 1 000 blocks, the bridge in IC mode against the test replica (decisions B104, L43)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-ic-history-'));
  let r: RunningReplica;
  let h: Bridge;

  before(async () => {
    // No timer rounds while the test mints in-process (nothing here has a timer to run).
    r = await startReplica({ dir: join(dir, 'replica'), tickMs: 3_600_000, ledgerArchive: { localBlocks: 150n } });
    h = await bridge(undefined, { ...r.env, COOKIE_DOMAIN: '' });
    h.advance(Date.now() - h.now());
  });
  after(async () => {
    await h?.close();
    await r?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every block of the member, newest first in pages of 100, those the ledger archived read through its callback over HTTP', async () => {
    assert.equal(h.opened.canisters.mode, 'ic');
    const m = await h.member('long-history-ic@domdao.example');
    const { principal } = (await h.request({ method: 'GET', url: '/api/me/profile', jar: m.jar })).json() as {
      principal: string;
    };
    // The member's blocks: mints by the minting account (governance), made in-process and unmetered for speed.
    const minter = candidClients(r.ids, r.replica.transport(r.ids.governance)).ledger;
    r.replica.metering = false;
    const mine: string[] = [];
    for (let i = 0; i < BLOCKS; i++) {
      const made = await minter.icrc1_transfer({ to: { owner: principal }, amount: BigInt(i + 1) });
      assert.ok('Ok' in made);
      mine.push(String(made.Ok));
    }
    r.replica.metering = true;
    const ledger = h.opened.canisters.clients.ledger;
    const archives = await ledger.icrc3_get_archives({});
    assert.equal(archives.length, 1, 'the ledger archives');
    assert.ok(archives[0]!.end >= 900n);

    const listed: Array<{ block_index: string; kind: string; amount_e8s: string }> = [];
    let query = '?limit=100';
    for (let page = 0; page < 20; page++) {
      const res = await h.request({ method: 'GET', url: `/api/me/transactions${query}`, jar: m.jar });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json() as { items: typeof listed; next_before: string | null; caught_up: boolean };
      assert.equal(body.caught_up, true);
      listed.push(...body.items);
      if (body.next_before === null) break;
      query = `?limit=100&before=${body.next_before}`;
    }
    assert.deepEqual(
      listed.map((i) => i.block_index),
      [...mine].reverse(),
      'each of her blocks once, newest first',
    );
    assert.deepEqual(
      listed.map((i) => [i.kind, i.amount_e8s]),
      Array.from({ length: BLOCKS }, (_, i) => ['mint', String(BLOCKS - i)]),
    );
    assert.ok(
      !h.logs
        .lines()
        .some(
          (l: { event?: string }) =>
            l.event === 'wallet.ledger_blocks_archived' || l.event === 'wallet.ledger_follow_failed',
        ),
    );
  });
});
