// Spec 1 campaigns with USD goals (CampaignProgress, "USD goal calculation") and the treasury
// (execute_payout, PriceStale), through public methods on the embedded platform.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { principalFromSeed } from '../src/principals.ts';
import { ADMIN, BRIDGE, DAY, HOUR, harness, ratifyPrice } from './harness.ts';

const E8S = 100_000_000n;

describe('campaigns (spec 1 CampaignGoal, CampaignProgress, decision G18)', () => {
  it('a USD goal converts at the ratified price; contributions record the tick they were valued at', async () => {
    const h = await harness();
    const voter = await h.activate('voter');
    const owner = await h.register('owner');
    const tickId = await ratifyPrice(h, voter, 0.5);
    const id = h.ok(
      await h.as(owner).campaign.create_campaign({
        title: 'Community garden',
        description: 'Seeds',
        goal: { UsdValue: 1000 },
        deadline: h.now() + 30n * DAY,
      }),
    );
    assert.equal(id, '1');
    await h.fund(voter, 1000n * E8S);
    await h.fund(owner, 1000n * E8S);
    const c = h.ok(await h.as(voter).campaign.contribute(id, { Usd: 250 }));
    assert.deepEqual(
      { ...c, at: 0n, block_index: 0n },
      {
        campaign_id: '1',
        seq: 1n,
        contributor: voter,
        amount_e8s: 500n * E8S,
        usd_value: 250,
        price_tick_id: tickId,
        at: 0n,
        block_index: 0n,
      },
    );
    const d = h.ok(await h.as(owner).campaign.contribute(id, { Dom: 100n * E8S }));
    assert.equal(d.usd_value, 50);
    const camp = (await h.as(owner).campaign.get_campaign(id))!;
    assert.equal(camp.status, 'Open');
    assert.equal(camp.contributions, 2n);
    assert.deepEqual(camp.progress, {
      goal_dom: 2000n * E8S,
      raised_dom: 600n * E8S,
      raised_usd: 300,
      goal_usd: 1000,
      pct_complete: 30,
      price_tick_id: tickId,
    });
    assert.deepEqual(
      (await h.as(owner).campaign.list_contributions(id, undefined, undefined)).map((x) => x.seq),
      [1n, 2n],
    );
    assert.deepEqual(
      (await h.as(owner).campaign.list_contributions(id, 1n, 10)).map((x) => x.seq),
      [2n],
    );
  });

  it('with no usable price, DOM contributions are accepted and tracked in DOM only; USD ones cannot be valued', async () => {
    const h = await harness();
    const owner = await h.register('owner');
    const id = h.ok(
      await h.as(owner).campaign.create_campaign({
        title: 'USD goal',
        description: '',
        goal: { UsdValue: 100 },
        deadline: h.now() + 10n * DAY,
      }),
    );
    await h.fund(owner, 10n * E8S);
    h.ok(await h.as(owner).campaign.contribute(id, { Dom: 5n * E8S }));
    assert.deepEqual(await h.as(owner).campaign.contribute(id, { Usd: 5 }), { Err: { PriceUnavailable: null } });
    const p = (await h.as(owner).campaign.get_campaign(id))!.progress;
    assert.deepEqual(
      p,
      { goal_dom: 0n, raised_dom: 5n * E8S, goal_usd: 100, pct_complete: 0 },
      'raised_usd and price_tick_id absent',
    );
    const [c] = await h.as(owner).campaign.list_contributions(id, undefined, undefined);
    assert.equal(c!.usd_value, undefined);
    assert.equal(c!.price_tick_id, undefined);
  });

  it('a price older than the staleness window (10 days, decision G16) is unavailable', async () => {
    const h = await harness();
    const voter = await h.activate('voter');
    await ratifyPrice(h, voter, 2);
    const id = h.ok(
      await h.as(voter).campaign.create_campaign({
        title: 'DOM goal',
        description: 'd',
        goal: { DomTokens: 10n * E8S },
        deadline: h.now() + 60n * DAY,
      }),
    );
    assert.equal((await h.as(voter).campaign.get_campaign(id))!.progress.raised_usd, 0);
    h.advance(10n * DAY + 1n);
    const p = (await h.as(voter).campaign.get_campaign(id))!.progress;
    assert.deepEqual(p, { goal_dom: 10n * E8S, raised_dom: 0n, pct_complete: 0 });
    assert.deepEqual(await h.as(voter).campaign.contribute(id, { Usd: 1 }), { Err: { PriceUnavailable: null } });
  });

  it('progress is clamped to 100 %; after the deadline a campaign is Succeeded or Failed and closed to contributions', async () => {
    const h = await harness();
    const owner = await h.register('owner');
    const rich = h.ok(
      await h.as(owner).campaign.create_campaign({
        title: 'Small',
        description: '',
        goal: { DomTokens: E8S },
        deadline: h.now() + DAY,
      }),
    );
    const poor = h.ok(
      await h.as(owner).campaign.create_campaign({
        title: 'Big',
        description: '',
        goal: { DomTokens: 1000n * E8S },
        deadline: h.now() + DAY,
      }),
    );
    await h.fund(owner, 10n * E8S);
    h.ok(await h.as(owner).campaign.contribute(rich, { Dom: 3n * E8S }));
    assert.equal((await h.as(owner).campaign.get_campaign(rich))!.progress.pct_complete, 100);
    h.advance(DAY);
    assert.equal((await h.as(owner).campaign.get_campaign(rich))!.status, 'Succeeded');
    assert.equal((await h.as(owner).campaign.get_campaign(poor))!.status, 'Failed');
    assert.deepEqual(await h.as(owner).campaign.contribute(rich, { Dom: E8S }), { Err: { CampaignClosed: null } });
    assert.deepEqual(
      (await h.as(owner).campaign.list_campaigns(undefined, undefined)).map((c) => c.id),
      ['2', '1'],
    );
  });

  it('who may create, contribute and cancel; bad input changes nothing', async () => {
    const h = await harness();
    const owner = await h.register('owner');
    const other = await h.register('other');
    const stranger = principalFromSeed('stranger');
    const args = { title: 'T', description: '', goal: { DomTokens: E8S }, deadline: h.now() + DAY };
    assert.deepEqual(await h.as(stranger).campaign.create_campaign(args), { Err: { NotAMember: null } });
    const bad = [
      { ...args, title: '' },
      { ...args, goal: { DomTokens: 0n } },
      { ...args, goal: { UsdValue: Number.NaN } },
      { ...args, goal: { UsdValue: -5 } },
      { ...args, deadline: h.now() },
      { ...args, deadline: h.now() + 400n * DAY },
    ];
    for (const a of bad)
      assert.ok('InvalidArgument' in ((await h.as(owner).campaign.create_campaign(a)) as { Err: object }).Err);
    assert.deepEqual(await h.as(owner).campaign.list_campaigns(undefined, undefined), []);
    const id = h.ok(await h.as(owner).campaign.create_campaign(args));
    await h.fund(other, 10n * E8S);
    assert.deepEqual(await h.as(stranger).campaign.contribute(id, { Dom: E8S }), { Err: { NotAMember: null } });
    assert.deepEqual(await h.as(other).campaign.contribute(id, { Dom: 10_000n }), {
      Err: { InvalidArgument: 'amount must be above the ledger fee of 10000 e8s' },
    });
    assert.deepEqual(await h.as(other).campaign.contribute(id, { Dom: E8S }, 'bad op id!'), {
      Err: { InvalidArgument: 'op_id must be 1 to 128 of A-Z a-z 0-9 : . _ -' },
    });
    for (const amount of [{ Dom: 0n }, { Usd: 0 }, { Usd: Number.POSITIVE_INFINITY }, { Dom: 10n ** 18n }]) {
      assert.ok('InvalidArgument' in ((await h.as(other).campaign.contribute(id, amount)) as { Err: object }).Err);
    }
    for (const missing of ['99', 'abc', '', '01', "1' OR '1'='1"]) {
      assert.deepEqual(await h.as(other).campaign.contribute(missing, { Dom: 1n }), {
        Err: { CampaignNotFound: null },
      });
      assert.equal(await h.as(other).campaign.get_campaign(missing), undefined);
    }
    assert.equal((await h.as(owner).campaign.get_campaign(id))!.contributions, 0n);
    assert.deepEqual(await h.as(other).campaign.cancel_campaign(id), { Err: { NotAuthorized: null } });
    h.ok(await h.as(owner).campaign.cancel_campaign(id));
    assert.equal((await h.as(owner).campaign.get_campaign(id))!.status, 'Cancelled');
    assert.deepEqual(await h.as(owner).campaign.contribute(id, { Dom: E8S }), { Err: { CampaignClosed: null } });
    h.ok(await h.admin.membership.revoke_membership(other));
    assert.deepEqual(
      await h.as(other).campaign.create_campaign(args),
      { Err: { NotAMember: null } },
      'revoked members lose access',
    );
  });
});

describe('treasury pays from its ledger account (spec 1 Errors rule 1, decisions G16, L11–L14)', () => {
  const FEE = 10_000n;
  it("execute_payout is callable by governance only; the treasury's balance is its ledger account", async () => {
    const h = await harness();
    const member = await h.activate('m');
    const payout = { recipient: member, amount: { DomE8s: 1n } };
    for (const who of [ADMIN, BRIDGE, member]) {
      assert.deepEqual(await h.as(who).treasury.execute_payout(1n, payout), { Err: { NotAuthorized: null } });
    }
    assert.deepEqual(await h.admin.treasury.get_account(), { owner: h.platform.ids.treasury });
    assert.equal(await h.admin.treasury.get_balance(), 0n);
    await h.mint(member, 5n * E8S);
    // A deposit is an ordinary ICRC-1 transfer to the treasury's account.
    h.ok(await h.as(member).ledger.icrc1_transfer({ to: { owner: h.platform.ids.treasury }, amount: 2n * E8S }));
    assert.equal(await h.admin.treasury.get_balance(), 2n * E8S);
  });

  it('pays once per proposal even when execution is retried; USD amounts convert at a fresh price; InsufficientFunds is the real balance', async () => {
    const h = await harness();
    const voter = await h.activate('voter');
    const gov = h.as(h.platform.ids.governance).treasury;
    await h.mint(h.platform.ids.treasury, 1000n * E8S);
    const first = h.ok(
      await gov.execute_payout(7n, { recipient: voter, amount: { DomE8s: 10n * E8S }, memo: 'thanks' }),
    );
    assert.deepEqual(
      h.ok(await gov.execute_payout(7n, { recipient: voter, amount: { DomE8s: 10n * E8S } })),
      first,
      'idempotent by proposal',
    );
    assert.equal(await h.admin.treasury.get_balance(), 990n * E8S - FEE);
    assert.equal(await h.balance(voter), 10n * E8S, 'the recipient holds the DOM');
    assert.deepEqual(
      await gov.execute_payout(8n, { recipient: voter, amount: { Usd: 10 } }),
      { Err: { PriceStale: null } },
      'no price at all',
    );
    const tick = await ratifyPrice(h, voter, 0.25);
    const usd = h.ok(await gov.execute_payout(8n, { recipient: voter, amount: { Usd: 10 } }));
    assert.deepEqual([usd.amount_e8s, usd.usd_value, usd.price_tick_id], [40n * E8S, 10, tick]);
    h.advance(10n * DAY + 1n);
    assert.deepEqual(
      await gov.execute_payout(9n, { recipient: voter, amount: { Usd: 10 } }),
      { Err: { PriceStale: null } },
      'outdated tick refused',
    );
    const balance = 950n * E8S - 2n * FEE;
    assert.deepEqual(await gov.execute_payout(10n, { recipient: voter, amount: { DomE8s: 10_000n * E8S } }), {
      Err: { InsufficientFunds: { balance, required: 10_000n * E8S + FEE } },
    });
    assert.deepEqual(
      (await h.admin.treasury.list_payouts(undefined, undefined)).map((p) => p.proposal_id),
      [8n, 7n],
    );
    assert.equal((await h.admin.treasury.get_payout(7n))!.memo, 'thanks');
    // The payout's ledger block carries the proposal in its memo.
    const { blocks } = await h.admin.ledger.icrc3_get_blocks([{ start: first.block_index, length: 1n }]);
    const tx = (blocks[0]!.block as { Map: Array<[string, { Map?: Array<[string, unknown]> }]> }).Map.find(
      ([k]) => k === 'tx',
    )![1].Map!;
    assert.deepEqual(tx.find(([k]) => k === 'memo')![1], { Blob: new TextEncoder().encode('dom-payout:7') });
  });

  it('a reply lost after the ledger transfer, then the retry: paid once (decisions L10, L12)', async () => {
    let lose = true;
    const h = await harness({
      interceptReply: (from, to, method) => {
        if (lose && from === 'treasury' && method === 'icrc1_transfer')
          throw new Error('treasury trapped after the transfer');
      },
    });
    const voter = await h.activate('voter');
    const gov = h.as(h.platform.ids.governance).treasury;
    await h.mint(h.platform.ids.treasury, 100n * E8S);
    await assert.rejects(
      gov.execute_payout(3n, { recipient: voter, amount: { DomE8s: 10n * E8S } }),
      /trapped after the transfer/,
    );
    assert.equal(await h.balance(voter), 10n * E8S, 'the ledger moved the DOM');
    assert.equal(await gov.get_payout(3n), undefined, 'the treasury has no record');
    assert.equal((await gov.list_pending_payouts()).length, 1, 'but it kept its intent');
    lose = false;
    h.advance(5n * 60n * 1_000_000_000n);
    const r = h.ok(await gov.execute_payout(3n, { recipient: voter, amount: { DomE8s: 10n * E8S } }));
    assert.equal(r.amount_e8s, 10n * E8S);
    assert.equal(await h.balance(voter), 10n * E8S, 'not paid twice');
    assert.equal(await h.admin.treasury.get_balance(), 90n * E8S - FEE);
    assert.deepEqual(await gov.list_pending_payouts(), []);
  });

  it('a TreasuryPayout proposal in USD with a stale price fails execution with PriceStale, observably', async () => {
    const h = await harness();
    const voter = await h.activate('voter');
    await h.mint(h.platform.ids.treasury, 100n * E8S);
    const id = h.ok(
      await h.as(voter).governance.create_proposal({
        title: 'Pay',
        body: 'b',
        category: 'TreasuryPayout',
        payload: { TreasuryPayout: { recipient: voter, amount: { Usd: 1 } } },
      }),
    );
    h.advance(HOUR);
    h.ok(await h.as(voter).governance.cast_vote(id, 'Yes'));
    h.advance(5n * DAY);
    await h.tick();
    const failed = (await h.admin.governance.list_admin_events(undefined, 100)).find(
      (e) => 'ExecutionFailed' in e.kind,
    )!;
    assert.deepEqual(failed.kind, {
      ExecutionFailed: { proposal_id: id, attempt: 1, message: 'treasury refused the payout: PriceStale' },
    });
    assert.equal(await h.admin.treasury.get_balance(), 100n * E8S);
  });
});
