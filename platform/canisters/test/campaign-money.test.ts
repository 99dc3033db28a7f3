// Decisions L14–L19: campaign contributions are real DOM pulled with icrc2_transfer_from into the
// campaign's escrow subaccount; at the deadline the escrow is released (goal met) or refunded (failed,
// cancelled); retries and a crash between the ledger transfer and the campaign's record never move
// money twice; donation burns (decisions L14–L19). Through the embedded platform's clients, with the
// ledger's total supply checked against every account's balance after each scenario.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Account } from '@domdao/canister-kit';
import { DAY, HOUR, harness, ratifyPrice, type Harness } from './harness.ts';

const E8S = 100_000_000n;
const FEE = 10_000n;

/** Conservation (decision L3): the sum of every account's balance is the ledger's total supply, and no DOM was created. */
async function assertConserved(h: Harness, accounts: Account[], minted: bigint): Promise<void> {
  const ledger = h.admin.ledger;
  let sum = 0n;
  for (const a of accounts) sum += await ledger.icrc1_balance_of(a);
  const supply = await ledger.icrc1_total_supply();
  assert.equal(sum, supply, 'every DOM is in a listed account');
  const { blocks } = await ledger.icrc3_get_blocks([{ start: 0n, length: 2000n }]);
  const field = (b: unknown, k: string) => (b as { Map: Array<[string, unknown]> }).Map.find(([x]) => x === k)?.[1];
  let mintedByLog = 0n;
  let burnedByLog = 0n;
  let fees = 0n;
  for (const { block } of blocks) {
    const type = (field(block, 'btype') as { Text: string }).Text;
    const amt = (field(field(block, 'tx'), 'amt') as { Nat: bigint }).Nat;
    if (type === '1mint') mintedByLog += amt;
    else if (type === '1burn') burnedByLog += amt;
    else fees += FEE;
  }
  assert.equal(mintedByLog, minted, 'minted = what the test minted');
  assert.equal(sum + burnedByLog + fees, minted, 'balances + burned + fees = minted');
}

async function setup() {
  const h = await harness();
  const voter = await h.activate('voter');
  const owner = await h.register('owner');
  const alice = await h.register('alice');
  const bob = await h.register('bob');
  const beneficiary = await h.register('beneficiary');
  // 100 DOM each once the approval's fee is paid.
  for (const m of [alice, bob]) await h.fund(m, 100n * E8S + FEE);
  const escrowOf = async (id: string) => (await h.admin.campaign.get_campaign(id))!.escrow;
  const accounts = async (ids: string[]) => [
    ...[voter, owner, alice, bob, beneficiary, h.platform.ids.treasury].map((owner) => ({ owner })),
    ...(await Promise.all(ids.map(escrowOf))),
  ];
  return { h, voter, owner, alice, bob, beneficiary, escrowOf, accounts, minted: 200n * E8S + 2n * FEE };
}

describe('campaign contributions move DOM into escrow; the deadline releases or refunds it (decisions L14–L17)', () => {
  it('goal met: contributions (DOM and USD at the tick) sit in escrow, then the scheduler releases them to the beneficiary', async () => {
    const s = await setup();
    const { h } = s;
    const tick = await ratifyPrice(h, s.voter, 0.5);
    const id = h.ok(
      await h.as(s.owner).campaign.create_campaign({
        title: 'Garden',
        description: '',
        goal: { UsdValue: 20 },
        deadline: h.now() + DAY,
        beneficiary: s.beneficiary,
      }),
    );
    const a = h.ok(await h.as(s.alice).campaign.contribute(id, { Usd: 15 }, 'op-a'));
    assert.deepEqual([a.amount_e8s, a.usd_value, a.price_tick_id], [30n * E8S, 15, tick]);
    const b = h.ok(await h.as(s.bob).campaign.contribute(id, { Dom: 12n * E8S }));
    assert.equal(b.usd_value, 6);
    const escrow = await s.escrowOf(id);
    assert.equal(await h.admin.ledger.icrc1_balance_of(escrow), 42n * E8S);
    assert.equal(await h.balance(s.alice), 70n * E8S - FEE, 'the contributor paid amount + fee');
    let c = (await h.admin.campaign.get_campaign(id))!;
    assert.deepEqual(c.progress, {
      goal_dom: 40n * E8S,
      raised_dom: 42n * E8S,
      raised_usd: 21,
      goal_usd: 20,
      pct_complete: 100,
      price_tick_id: tick,
    });
    h.advance(DAY);
    await h.tick();
    c = (await h.admin.campaign.get_campaign(id))!;
    assert.equal(c.status, 'Succeeded');
    assert.equal(c.settled, true);
    assert.equal(c.released!.amount_e8s, 42n * E8S - FEE);
    assert.equal(await h.balance(s.beneficiary), 42n * E8S - FEE);
    assert.equal(await h.admin.ledger.icrc1_balance_of(escrow), 0n, 'nothing stranded');
    // The price falls after the deadline: the outcome stays what it was at settlement.
    await ratifyPrice(h, s.voter, 0.01);
    assert.equal((await h.admin.campaign.get_campaign(id))!.status, 'Succeeded');
    await h.tick();
    assert.equal(await h.balance(s.beneficiary), 42n * E8S - FEE, 'released once');
    await assertConserved(h, await s.accounts([id]), s.minted);
  });

  it('goal missed or cancelled: every contributor is refunded (amount less the fee) by the scheduler; my contributions show the refunds', async () => {
    const s = await setup();
    const { h } = s;
    const failed = h.ok(
      await h.as(s.owner).campaign.create_campaign({
        title: 'Big',
        description: '',
        goal: { DomTokens: 1000n * E8S },
        deadline: h.now() + DAY,
      }),
    );
    const cancelled = h.ok(
      await h.as(s.owner).campaign.create_campaign({
        title: 'Stop',
        description: '',
        goal: { DomTokens: 10n * E8S },
        deadline: h.now() + 2n * DAY,
      }),
    );
    h.ok(await h.as(s.alice).campaign.contribute(failed, { Dom: 10n * E8S }));
    h.ok(await h.as(s.alice).campaign.contribute(failed, { Dom: 5n * E8S }));
    h.ok(await h.as(s.bob).campaign.contribute(failed, { Dom: 20n * E8S }));
    h.ok(await h.as(s.bob).campaign.contribute(cancelled, { Dom: 3n * E8S }));
    h.ok(await h.as(s.owner).campaign.cancel_campaign(cancelled));
    await h.tick();
    let k = (await h.admin.campaign.get_campaign(cancelled))!;
    assert.deepEqual([k.status, k.settled, k.refunds], ['Cancelled', true, 1n], 'a cancelled campaign refunds at once');
    assert.equal((await h.admin.campaign.get_campaign(failed))!.refunds, 0n, 'still open');
    h.advance(DAY);
    await h.tick();
    const f = (await h.admin.campaign.get_campaign(failed))!;
    assert.deepEqual([f.status, f.settled, f.refunds, f.contributions], ['Failed', true, 3n, 3n]);
    assert.equal(
      await h.balance(s.alice),
      100n * E8S - 2n * FEE - 2n * FEE,
      'two contributions, each costing the fee twice (in and back)',
    );
    assert.equal(await h.balance(s.bob), 100n * E8S - 4n * FEE);
    const mine = await h.as(s.alice).campaign.list_contributions_by(s.alice, undefined);
    assert.deepEqual(
      mine.map((x) => [x.campaign_id, x.amount_e8s, x.refund!.amount_e8s]),
      [
        [failed, 10n * E8S, 10n * E8S - FEE],
        [failed, 5n * E8S, 5n * E8S - FEE],
      ],
    );
    for (const id of [failed, cancelled])
      assert.equal(await h.admin.ledger.icrc1_balance_of(await s.escrowOf(id)), 0n, 'nothing stranded');
    await h.tick();
    k = (await h.admin.campaign.get_campaign(cancelled))!;
    assert.equal(k.refunds, 1n, 'refunded once');
    await assertConserved(h, await s.accounts([failed, cancelled]), s.minted);
  });

  it("no approval, too little allowance or too few DOM: the ledger's error, nothing recorded", async () => {
    const s = await setup();
    const { h } = s;
    const id = h.ok(
      await h
        .as(s.owner)
        .campaign.create_campaign({ title: 'T', description: '', goal: { DomTokens: E8S }, deadline: h.now() + DAY }),
    );
    assert.deepEqual(await h.as(s.owner).campaign.contribute(id, { Dom: E8S }), {
      Err: { InsufficientAllowance: { allowance: 0n } },
    });
    assert.deepEqual(await h.as(s.alice).campaign.contribute(id, { Dom: 200n * E8S }), {
      Err: { InsufficientAllowance: { allowance: 100n * E8S + FEE } },
    });
    h.ok(
      await h.as(s.alice).ledger.icrc2_approve({ spender: { owner: h.platform.ids.campaign }, amount: 1000n * E8S }),
    );
    assert.deepEqual(
      await h.as(s.alice).campaign.contribute(id, { Dom: 200n * E8S }),
      { Err: { InsufficientFunds: { balance: 100n * E8S - FEE } } },
      'the second approval cost a fee',
    );
    assert.deepEqual(await h.as(s.alice).campaign.contribute(id, { Usd: 1 }), { Err: { PriceUnavailable: null } });
    assert.equal((await h.admin.campaign.get_campaign(id))!.contributions, 0n);
    assert.deepEqual(await h.admin.campaign.list_pending_movements(), []);
  });

  it('a repeated contribution under the same op id moves DOM once and answers the first contribution', async () => {
    const s = await setup();
    const { h } = s;
    const id = h.ok(
      await h.as(s.owner).campaign.create_campaign({
        title: 'T',
        description: '',
        goal: { DomTokens: 100n * E8S },
        deadline: h.now() + DAY,
      }),
    );
    const first = h.ok(await h.as(s.alice).campaign.contribute(id, { Dom: 2n * E8S }, 'req-1'));
    h.advance(1_000_000n);
    assert.deepEqual(h.ok(await h.as(s.alice).campaign.contribute(id, { Dom: 2n * E8S }, 'req-1')), first);
    assert.equal(await h.balance(s.alice), 98n * E8S - FEE);
    const other = h.ok(await h.as(s.alice).campaign.contribute(id, { Dom: 2n * E8S }, 'req-2'));
    assert.equal(other.seq, 2n, 'another op id is another contribution');
    assert.equal(
      h.ok(await h.as(s.bob).campaign.contribute(id, { Dom: 2n * E8S }, 'req-1')).contributor,
      s.bob,
      'op ids are per member',
    );
  });
});

describe("a crash between the ledger transfer and the campaign's record, then recovery: no double movement (decisions L10, L16)", () => {
  it("the reply of transfer_from is lost: the member's retry with its op id records the contribution once", async () => {
    let lose = true;
    const h = await harness({
      interceptReply: (from, _to, method) => {
        if (lose && from === 'campaign' && method === 'icrc2_transfer_from')
          throw new Error('campaign canister trapped after the transfer');
      },
    });
    const alice = await h.register('alice');
    await h.fund(alice, 10n * E8S + FEE);
    const id = h.ok(
      await h.as(alice).campaign.create_campaign({
        title: 'T',
        description: '',
        goal: { DomTokens: 100n * E8S },
        deadline: h.now() + DAY,
      }),
    );
    await assert.rejects(h.as(alice).campaign.contribute(id, { Dom: 3n * E8S }, 'pay-1'), /trapped after the transfer/);
    const escrow = (await h.admin.campaign.get_campaign(id))!.escrow;
    assert.equal(await h.admin.ledger.icrc1_balance_of(escrow), 3n * E8S, 'the DOM moved');
    assert.equal((await h.admin.campaign.get_campaign(id))!.contributions, 0n, 'not recorded');
    assert.equal((await h.admin.campaign.list_pending_movements()).length, 1, 'the intent survived');
    lose = false;
    h.advance(60n * 1_000_000_000n);
    const c = h.ok(await h.as(alice).campaign.contribute(id, { Dom: 3n * E8S }, 'pay-1'));
    assert.equal(c.amount_e8s, 3n * E8S);
    assert.equal(await h.admin.ledger.icrc1_balance_of(escrow), 3n * E8S, 'moved once');
    assert.equal(await h.balance(alice), 7n * E8S - FEE);
    assert.equal((await h.admin.campaign.get_campaign(id))!.progress.raised_dom, 3n * E8S);
    assert.deepEqual(await h.admin.campaign.list_pending_movements(), []);
  });

  it('…or the scheduler finishes it; settlement waits for it; a refund whose reply is lost is finished once, after a restart', async () => {
    let lose: string | undefined = 'icrc2_transfer_from';
    const h0 = await harness({
      dir: (await import('./harness.ts')).tempDir(),
      interceptReply: (from, _to, method) => {
        if (from === 'campaign' && method === lose) throw new Error(`lost reply of ${method}`);
      },
    });
    const alice = await h0.register('alice');
    await h0.fund(alice, 10n * E8S + FEE);
    const id = h0.ok(
      await h0.as(alice).campaign.create_campaign({
        title: 'T',
        description: '',
        goal: { DomTokens: 100n * E8S },
        deadline: h0.now() + DAY,
      }),
    );
    await assert.rejects(h0.as(alice).campaign.contribute(id, { Dom: 4n * E8S }));
    lose = 'icrc1_transfer';
    h0.advance(DAY);
    await h0.tick();
    // The pending contribution was finished first (recorded once), then its refund was sent and its reply lost.
    let c = (await h0.admin.campaign.get_campaign(id))!;
    assert.deepEqual([c.status, c.contributions, c.refunds, c.settled], ['Failed', 1n, 0n, false]);
    const [pending] = await h0.admin.campaign.list_pending_movements();
    assert.deepEqual([pending!.kind, pending!.last_error], ['refund', 'lost reply of icrc1_transfer']);
    assert.equal(await h0.balance(alice), 10n * E8S - 4n * E8S - FEE + 4n * E8S - FEE, 'the refund reached alice');
    // The process restarts: the intent is durable; the next step finishes it without a second refund.
    lose = undefined;
    const h = await h0.reopen();
    h.advance(2n * 60n * 1_000_000_000n);
    await h.tick();
    c = (await h.admin.campaign.get_campaign(id))!;
    assert.deepEqual([c.refunds, c.settled], [1n, true]);
    assert.equal(await h.balance(alice), 10n * E8S - 2n * FEE, 'refunded once');
    assert.equal(await h.admin.ledger.icrc1_balance_of(c.escrow), 0n);
    assert.deepEqual(await h.admin.campaign.list_pending_movements(), []);
  });
});

describe("a movement stuck past the ledger's window is reconciled by an admin against the block log (decision L19)", () => {
  it("the block named must be the movement's; then it is applied once and settlement goes on; without a block it is dropped", async () => {
    let mode: 'lose-reply' | 'reject' | undefined = 'lose-reply';
    const h = await harness({
      interceptCall: (from, _to, method) => {
        if (mode === 'reject' && from === 'campaign' && method === 'icrc2_transfer_from')
          throw new Error('ledger stopped');
      },
      interceptReply: (from, _to, method) => {
        if (mode === 'lose-reply' && from === 'campaign' && method === 'icrc2_transfer_from') throw new Error('lost');
      },
    });
    const alice = await h.register('alice');
    await h.fund(alice, 10n * E8S + FEE);
    const id = h.ok(
      await h.as(alice).campaign.create_campaign({
        title: 'T',
        description: '',
        goal: { DomTokens: 100n * E8S },
        deadline: h.now() + 3n * DAY,
      }),
    );
    await assert.rejects(h.as(alice).campaign.contribute(id, { Dom: 2n * E8S }));
    mode = 'reject';
    await assert.rejects(h.as(alice).campaign.contribute(id, { Dom: 3n * E8S }));
    mode = undefined;
    // The scheduler was down for two days: re-sending now could pay twice, so the ledger says TooOld.
    h.advance(2n * DAY);
    await h.tick();
    const stuck = await h.admin.campaign.list_pending_movements();
    assert.deepEqual(
      stuck.map((m) => [m.id, m.amount_e8s, m.last_error!.slice(0, 6)]),
      [
        [1n, 2n * E8S, 'TooOld'],
        [2n, 3n * E8S, 'TooOld'],
      ],
    );
    const { blocks } = await h.admin.ledger.icrc3_get_blocks([{ start: 0n, length: 100n }]);
    const moved = blocks.at(-1)!.id;
    assert.deepEqual(await h.as(alice).campaign.reconcile_movement(1n, moved), { Err: { NotAuthorized: null } });
    assert.deepEqual(await h.admin.campaign.reconcile_movement(2n, moved), {
      Err: { InvalidArgument: `block ${moved} is not movement 2 (memo dom-mv:2, amount 300000000)` },
    });
    h.ok(await h.admin.campaign.reconcile_movement(1n, moved));
    h.ok(await h.admin.campaign.reconcile_movement(2n, undefined));
    assert.deepEqual(await h.admin.campaign.list_pending_movements(), []);
    const c = (await h.admin.campaign.get_campaign(id))!;
    assert.deepEqual([c.contributions, c.progress.raised_dom], [1n, 2n * E8S]);
    assert.equal(await h.admin.ledger.icrc1_balance_of(c.escrow), 2n * E8S, 'the record matches the escrow');
    h.advance(DAY);
    await h.tick();
    assert.equal((await h.admin.campaign.get_campaign(id))!.settled, true);
    assert.equal(await h.balance(alice), 10n * E8S - 2n * FEE, 'refunded');
  });
});

describe('donation burns (spec 1, decision L18)', () => {
  it('a member burns DOM as a donation, valued at the tick and recorded; the supply falls by the amount', async () => {
    const s = await setup();
    const { h } = s;
    const campaign = h.platform.ids.campaign;
    const supply = await h.admin.ledger.icrc1_total_supply();
    assert.deepEqual(await h.as(s.alice).campaign.burn_donation({ Usd: 1 }, undefined), {
      Err: { PriceUnavailable: null },
    });
    const d1 = h.ok(await h.as(s.alice).campaign.burn_donation({ Dom: E8S }, 'burn-1'));
    assert.deepEqual([d1.donor, d1.amount_e8s, d1.usd_value, d1.price_tick_id], [s.alice, E8S, undefined, undefined]);
    const tick = await ratifyPrice(h, s.voter, 2);
    const d2 = h.ok(await h.as(s.alice).campaign.burn_donation({ Usd: 4 }, 'burn-2'));
    assert.deepEqual([d2.amount_e8s, d2.usd_value, d2.price_tick_id], [2n * E8S, 4, tick]);
    assert.deepEqual(
      h.ok(await h.as(s.alice).campaign.burn_donation({ Usd: 4 }, 'burn-2')),
      d2,
      'a repeat burns nothing more',
    );
    assert.equal(await h.admin.ledger.icrc1_total_supply(), supply - 3n * E8S, 'a burn charges no fee');
    assert.equal(await h.balance(s.alice), 97n * E8S);
    assert.deepEqual(
      (await h.admin.campaign.list_donations(undefined, undefined)).map((d) => d.amount_e8s),
      [2n * E8S, E8S],
    );
    assert.deepEqual(await h.as(s.alice).campaign.burn_donation({ Dom: FEE - 1n }, undefined), {
      Err: { LedgerError: 'BadBurn: {"min_burn_amount":"10000"}' },
    });
    assert.deepEqual(await h.as(s.owner).campaign.burn_donation({ Dom: E8S }, undefined), {
      Err: { InsufficientAllowance: { allowance: 0n } },
    });
    void campaign;
    await assertConserved(h, await s.accounts([]), s.minted);
  });
});

describe('campaign limits at the limit and one unit past it (spec 1, decisions G16, L14–L16)', () => {
  it('a contribution one ns before the deadline is taken, at the deadline it is CampaignClosed; exactly the goal is Succeeded, one e8 short is Failed', async () => {
    const h = await harness();
    const alice = await h.register('alice');
    await h.fund(alice, 100n * E8S);
    const deadline = h.now() + DAY;
    const exact = h.ok(
      await h
        .as(alice)
        .campaign.create_campaign({ title: 'Exact', description: '', goal: { DomTokens: 2n * E8S }, deadline }),
    );
    const short = h.ok(
      await h
        .as(alice)
        .campaign.create_campaign({ title: 'Short', description: '', goal: { DomTokens: 2n * E8S + 1n }, deadline }),
    );
    h.setNow(deadline - 1n);
    h.ok(await h.as(alice).campaign.contribute(exact, { Dom: 2n * E8S }));
    h.ok(await h.as(alice).campaign.contribute(short, { Dom: 2n * E8S }));
    assert.equal((await h.admin.campaign.get_campaign(exact))!.status, 'Open', 'one ns before the deadline');
    h.setNow(deadline);
    assert.deepEqual(await h.as(alice).campaign.contribute(exact, { Dom: E8S }), { Err: { CampaignClosed: null } });
    assert.equal((await h.admin.campaign.get_campaign(exact))!.status, 'Succeeded');
    assert.equal((await h.admin.campaign.get_campaign(short))!.status, 'Failed');
  });

  it('a contribution of the fee + 1 e8 is taken, of exactly the fee refused; 1e9 DOM passes the range check, one e8 more does not', async () => {
    const h = await harness();
    const alice = await h.register('alice');
    await h.fund(alice, E8S);
    const id = h.ok(
      await h
        .as(alice)
        .campaign.create_campaign({ title: 'T', description: '', goal: { DomTokens: E8S }, deadline: h.now() + DAY }),
    );
    assert.deepEqual(await h.as(alice).campaign.contribute(id, { Dom: FEE }), {
      Err: { InvalidArgument: `amount must be above the ledger fee of ${FEE} e8s` },
    });
    assert.equal(h.ok(await h.as(alice).campaign.contribute(id, { Dom: FEE + 1n })).amount_e8s, FEE + 1n);
    const MAX = 10n ** 17n;
    assert.ok(
      !('InvalidArgument' in ((await h.as(alice).campaign.contribute(id, { Dom: MAX })) as { Err: object }).Err),
      'the maximum is in range (the ledger then refuses it)',
    );
    assert.deepEqual(await h.as(alice).campaign.contribute(id, { Dom: MAX + 1n }), {
      Err: { InvalidArgument: 'amount must be above 0 (and at most 1e9 DOM)' },
    });
  });

  it('a price exactly price_max_age old values a USD contribution, one ns older is PriceUnavailable (G16)', async () => {
    const h = await harness();
    const voter = await h.activate('voter');
    await ratifyPrice(h, voter, 2);
    const tick = (await h.admin.governance.get_dom_price())!;
    await h.fund(voter, 100n * E8S);
    const id = h.ok(
      await h.as(voter).campaign.create_campaign({
        title: 'T',
        description: '',
        goal: { DomTokens: 100n * E8S },
        deadline: h.now() + 60n * DAY,
      }),
    );
    h.setNow(tick.timestamp + 10n * DAY);
    assert.equal(h.ok(await h.as(voter).campaign.contribute(id, { Usd: 2 })).amount_e8s, E8S);
    h.advance(1n);
    assert.deepEqual(await h.as(voter).campaign.contribute(id, { Usd: 2 }), { Err: { PriceUnavailable: null } });
  });

  it('create_campaign: title 200 / 201 characters, description 20 000 / 20 001, deadline 1 hour / 1 hour − 1 ns and 365 days / + 1 ns from now', async () => {
    const h = await harness();
    const owner = await h.register('owner');
    const args = { title: 'T', description: '', goal: { DomTokens: E8S }, deadline: h.now() + DAY };
    const made = async (a: typeof args) => 'Ok' in (await h.as(owner).campaign.create_campaign(a));
    assert.deepEqual(
      [
        await made({ ...args, title: 'x'.repeat(200) }),
        await made({ ...args, title: 'x'.repeat(201) }),
        await made({ ...args, description: 'x'.repeat(20_000) }),
        await made({ ...args, description: 'x'.repeat(20_001) }),
        await made({ ...args, deadline: h.now() + HOUR }),
        await made({ ...args, deadline: h.now() + HOUR - 1n }),
        await made({ ...args, deadline: h.now() + 365n * DAY }),
        await made({ ...args, deadline: h.now() + 365n * DAY + 1n }),
      ],
      [true, false, true, false, true, false, true, false],
    );
  });

  it('a USD contribution worth exactly 1e9 DOM passes the range check, one worth more does not; a goal of exactly 1e12 DOM or 1e12 USD is accepted, one unit more is not', async () => {
    const h = await harness();
    const voter = await h.activate('voter');
    await ratifyPrice(h, voter, 1);
    await h.fund(voter, E8S);
    const id = h.ok(
      await h
        .as(voter)
        .campaign.create_campaign({ title: 'T', description: '', goal: { DomTokens: E8S }, deadline: h.now() + DAY }),
    );
    assert.ok(
      !('InvalidArgument' in ((await h.as(voter).campaign.contribute(id, { Usd: 1e9 })) as { Err: object }).Err),
      'exactly 1e17 e8s is in range (the ledger then refuses it)',
    );
    assert.deepEqual(
      await h.as(voter).campaign.contribute(id, { Usd: 1e9 + 1e-6 }),
      { Err: { InvalidArgument: 'amount must be worth 1e-8 to 1e9 DOM at the current price' } },
      'the next e8s amount a double can express above 1e17',
    );
    const goal = async (g: { DomTokens: bigint } | { UsdValue: number }) =>
      'Ok' in
      (await h.as(voter).campaign.create_campaign({ title: 'G', description: '', goal: g, deadline: h.now() + DAY }));
    assert.deepEqual(
      [
        await goal({ DomTokens: 10n ** 20n }),
        await goal({ DomTokens: 10n ** 20n + 1n }),
        await goal({ UsdValue: 1e12 }),
        await goal({ UsdValue: 1e12 + 0.01 }),
      ],
      [true, false, true, false],
    );
  });

  it('an op id is per caller: two members using the same op id make two contributions', async () => {
    const h = await harness();
    const alice = await h.register('alice');
    const bob = await h.register('bob');
    await h.fund(alice, 10n * E8S);
    await h.fund(bob, 10n * E8S);
    const id = h.ok(
      await h.as(alice).campaign.create_campaign({
        title: 'T',
        description: '',
        goal: { DomTokens: 100n * E8S },
        deadline: h.now() + DAY,
      }),
    );
    const a = h.ok(await h.as(alice).campaign.contribute(id, { Dom: E8S }, 'same-op'));
    const b = h.ok(await h.as(bob).campaign.contribute(id, { Dom: 2n * E8S }, 'same-op'));
    assert.deepEqual([a.contributor, a.seq, b.contributor, b.seq, b.amount_e8s], [alice, 1n, bob, 2n, 2n * E8S]);
  });

  it('a contribution still pending at the deadline holds the settlement: the campaign is not settled until it is recorded, then refunded', async () => {
    let mode: 'lose-reply' | 'reject' | undefined = 'lose-reply';
    const h = await harness({
      interceptCall: (from, _to, method) => {
        if (mode === 'reject' && from === 'campaign' && method === 'icrc2_transfer_from')
          throw new Error('ledger stopped');
      },
      interceptReply: (from, _to, method) => {
        if (mode === 'lose-reply' && from === 'campaign' && method === 'icrc2_transfer_from') throw new Error('lost');
      },
    });
    const alice = await h.register('alice');
    await h.fund(alice, 10n * E8S + FEE);
    const id = h.ok(
      await h.as(alice).campaign.create_campaign({
        title: 'T',
        description: '',
        goal: { DomTokens: 100n * E8S },
        deadline: h.now() + DAY,
      }),
    );
    await assert.rejects(h.as(alice).campaign.contribute(id, { Dom: 2n * E8S }));
    mode = 'reject';
    h.advance(DAY);
    await h.tick();
    let c = (await h.admin.campaign.get_campaign(id))!;
    assert.deepEqual(
      [c.status, c.contributions, c.settled],
      ['Failed', 0n, false],
      'not settled while the contribution is pending',
    );
    mode = undefined;
    h.advance(60n * 1_000_000_000n);
    await h.tick();
    h.advance(60n * 1_000_000_000n);
    await h.tick();
    c = (await h.admin.campaign.get_campaign(id))!;
    assert.deepEqual([c.contributions, c.refunds, c.settled], [1n, 1n, true]);
    assert.equal(await h.admin.ledger.icrc1_balance_of(c.escrow), 0n, 'nothing stranded in escrow');
  });
});
