// Decisions G50 and G51 (issue 48 item 4): when a SetDomPrice executes, the governance canister asks
// the campaign canister to read the price in the same step, so a USD campaign's progress follows at
// once instead of at the campaign's next 10-minute refresh. A failed call never stops the execution
// (the timer catches up), and only governance, the campaign canister itself and its admins may ask.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { principalFromSeed } from '../src/principals.ts';
import { ADMIN, DAY, HOUR, harness, NS_PER_SECOND, type Harness } from './harness.ts';

const E8S = 100_000_000n;
const REFRESH = 600n * NS_PER_SECOND;

/** A campaign with a USD goal made before any price was ratified: its progress is in DOM only. */
async function usdCampaign(h: Harness) {
  const owner = await h.register('owner');
  const id = h.ok(
    await h.as(owner).campaign.create_campaign({
      title: 'Garden',
      description: '',
      goal: { UsdValue: 1000 },
      deadline: h.now() + 30n * DAY,
    }),
  );
  await h.fund(owner, 11n * E8S);
  h.ok(await h.as(owner).campaign.contribute(id, { Dom: 10n * E8S }));
  const progress = async () => (await h.as(owner).campaign.get_campaign(id))!.progress;
  assert.equal((await progress()).raised_usd, undefined, 'no price yet');
  return { id, progress };
}

/** A SetDomPrice proposal voted Yes, its window closed `pastClose` ago; the campaign's timer ran just before the window closed. */
async function approvedPrice(h: Harness, voter: string, price: number, pastClose: bigint) {
  const id = h.ok(
    await h.bridge.governance.create_proposal({
      title: 'price',
      body: 'b',
      category: 'SetDomPrice',
      payload: { SetDomPrice: { price_usd: price } },
    }),
  );
  h.advance(HOUR);
  await h.tick();
  h.ok(await h.as(voter).governance.cast_vote(id, 'Yes'));
  const closes = (await h.bridge.governance.get_proposal(id))!.voting_closes;
  h.setNow(closes - NS_PER_SECOND);
  // Every timer runs here, the campaign's price refresh included (its 10 minutes have passed).
  await h.tick();
  h.advance(NS_PER_SECOND + pastClose);
  return id;
}

describe('the campaign follows a ratified price at once (decisions G50, G51)', () => {
  it('decision G50: the scheduler step that executes a SetDomPrice leaves the new price in get_campaign, seconds after the campaign timer last ran', async () => {
    const h = await harness();
    const voter = await h.activate('voter');
    const { progress } = await usdCampaign(h);
    const proposal = await approvedPrice(h, voter, 0.5, NS_PER_SECOND);
    await h.tick();
    assert.equal((await h.bridge.governance.get_proposal(proposal))!.status, 'Executed');
    assert.deepEqual(await progress(), {
      goal_dom: 2000n * E8S,
      raised_dom: 10n * E8S,
      raised_usd: 5,
      goal_usd: 1000,
      pct_complete: 0.5,
      price_tick_id: proposal,
    });
  });

  it("decision G50: a member's execute_proposal (no scheduler step at all) leaves the new price in get_campaign when it answers", async () => {
    const h = await harness();
    const voter = await h.activate('voter');
    const { progress } = await usdCampaign(h);
    const first = await approvedPrice(h, voter, 0.5, NS_PER_SECOND);
    h.ok(await h.as(voter).governance.execute_proposal(first));
    assert.equal((await progress()).price_tick_id, first);
    // A second price replaces the first as soon as it executes.
    const second = await approvedPrice(h, voter, 2, NS_PER_SECOND);
    h.ok(await h.as(voter).governance.execute_proposal(second));
    const p = await progress();
    assert.deepEqual([p.price_tick_id, p.raised_usd, p.goal_dom], [second, 20, 500n * E8S]);
  });

  it('decision G50: a refused call to the campaign canister does not stop the execution; the campaign timer (10 minutes, decision G18) catches up', async () => {
    let refuse = true;
    const h = await harness({
      interceptCall: (from, to, method) => {
        if (refuse && from === 'governance' && to === 'campaign' && method === 'refresh_price')
          throw new Error('campaign canister stopped');
      },
    });
    const voter = await h.activate('voter');
    const { progress } = await usdCampaign(h);
    const proposal = await approvedPrice(h, voter, 0.5, NS_PER_SECOND);
    h.ok(await h.as(voter).governance.execute_proposal(proposal));
    assert.equal((await h.bridge.governance.get_proposal(proposal))!.status, 'Executed');
    assert.deepEqual((await h.bridge.governance.get_dom_price())?.proposal_id, proposal, 'the price is ratified');
    assert.equal((await progress()).price_tick_id, undefined, 'the campaign did not hear of it');
    refuse = false;
    // The campaign timer last ran 2 s ago (a second before the window closed).
    h.advance(REFRESH - 3n * NS_PER_SECOND);
    await h.tick();
    assert.equal((await progress()).price_tick_id, undefined, 'one second short of the timer');
    h.advance(NS_PER_SECOND);
    await h.tick();
    assert.equal((await progress()).price_tick_id, proposal, 'the timer read it');
    // The campaign canister answers again: the next price reaches it in the step that executes it.
    const next = await approvedPrice(h, voter, 2, NS_PER_SECOND);
    h.ok(await h.as(voter).governance.execute_proposal(next));
    assert.equal((await progress()).price_tick_id, next);
  });

  it('decision G51: refresh_price answers the governance canister, the campaign canister itself and its admins; anyone else is NotAuthorized', async () => {
    const h = await harness();
    const member = await h.activate('member');
    for (const caller of [member, principalFromSeed('stranger')])
      assert.deepEqual(await h.as(caller).campaign.refresh_price(), { Err: { NotAuthorized: null } });
    for (const caller of [h.platform.ids.governance, h.platform.ids.campaign, ADMIN])
      assert.deepEqual(await h.as(caller).campaign.refresh_price(), { Ok: null });
  });
});
