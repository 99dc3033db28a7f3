// Spec 1 "USD goal calculation" and CampaignProgress.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { campaignProgress, usdToDomE8s } from '../core/progress.ts';

const price = { price_usd: 0.5, proposal_id: 12n };
const DOM = 100_000_000n;

describe('CampaignProgress', () => {
  it('USD goal at the current price: goal_dom = usd / price, both views present, price_tick_id set', () => {
    const p = campaignProgress({ UsdValue: 1000 }, 500n * DOM, price);
    assert.deepEqual(p, {
      goal_dom: 2000n * DOM,
      raised_dom: 500n * DOM,
      raised_usd: 250,
      goal_usd: 1000,
      pct_complete: 25,
      price_tick_id: 12n,
    });
  });
  it('DomTokens goal: goal_usd absent, raised_usd present when a price exists', () => {
    const p = campaignProgress({ DomTokens: 100n * DOM }, 50n * DOM, price);
    assert.equal(p.goal_usd, undefined);
    assert.equal(p.raised_usd, 25);
    assert.equal(p.pct_complete, 50);
  });
  it('rule 3: without a usable price the campaign is tracked in DOM only: raised_usd and price_tick_id absent', () => {
    const p = campaignProgress({ DomTokens: 100n * DOM }, 50n * DOM, undefined);
    assert.equal('raised_usd' in p, false);
    assert.equal('price_tick_id' in p, false);
    assert.equal(p.pct_complete, 50);
  });
  it('decision G4: a USD goal without a price has goal_dom 0 and 0 %, goal_usd still shown', () => {
    assert.deepEqual(campaignProgress({ UsdValue: 1000 }, 7n * DOM, undefined), {
      goal_dom: 0n,
      raised_dom: 7n * DOM,
      goal_usd: 1000,
      pct_complete: 0,
    });
  });
  it('pct_complete is clamped to 100 when over-funded', () => {
    assert.equal(campaignProgress({ DomTokens: 10n * DOM }, 25n * DOM, undefined).pct_complete, 100);
  });
  it('rule 2: dom_amount = usd_amount / price_usd, to the nearest e8s', () => {
    assert.equal(usdToDomE8s(10, price), 20n * DOM);
    assert.equal(usdToDomE8s(0.3, { price_usd: 0.1, proposal_id: 1n }), 3n * DOM, 'no float truncation to 2.99999999');
    assert.equal(usdToDomE8s(1, { price_usd: 3, proposal_id: 1n }), 33_333_333n);
  });
});
