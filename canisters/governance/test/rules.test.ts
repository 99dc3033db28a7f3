// Spec 1 "Categories", quorum rule 1, SetDomPrice execution rule 5 and payload validation.
import { MAX_SOURCE_URL_CHARS, SOURCE_URL_RULE } from '@domdao/canister-kit/rules';
import { coreWithProposal } from './core.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  categoryRulesProblem,
  DEFAULT_CATEGORY_RULES,
  NS_PER_DAY,
  NS_PER_HOUR,
  type ProposalCategory,
} from '../core/rules/categories.ts';
import { passes, quorumMet, tally, thresholdMet } from '../core/rules/counting.ts';
import { isStale, priceInForce, setDomPriceProblem, toTick, type PriceEntry } from '../core/rules/price.ts';

describe('category rules (spec 1 Categories table)', () => {
  const expected: Record<ProposalCategory, [number, number, bigint]> = {
    General: [10, 51, 7n * NS_PER_DAY],
    TreasuryPayout: [20, 60, 5n * NS_PER_DAY],
    SetDomPrice: [15, 55, 3n * NS_PER_DAY],
    MembershipPolicy: [25, 66, 7n * NS_PER_DAY],
    ConstitutionalAmendment: [40, 75, 14n * NS_PER_DAY],
    EmergencyAction: [5, 80, 24n * NS_PER_HOUR],
  };
  for (const [category, [quorum, threshold, window]] of Object.entries(expected)) {
    it(`${category}: quorum ${quorum} %, threshold ${threshold} %, window ${window / NS_PER_HOUR} h`, () => {
      const r = DEFAULT_CATEGORY_RULES[category as ProposalCategory];
      assert.equal(r.quorumBps, quorum * 100);
      assert.equal(r.thresholdBps, threshold * 100);
      assert.equal(r.votingWindowNs, window);
    });
  }
  it('the defaults cannot be mutated', () => {
    assert.throws(() => {
      (DEFAULT_CATEGORY_RULES as Record<string, unknown>).General = {};
    }, TypeError);
  });
  it('amended rules must stay sensible', () => {
    assert.equal(categoryRulesProblem({ quorumBps: 1000, thresholdBps: 5100, votingWindowNs: NS_PER_DAY }), undefined);
    assert.match(categoryRulesProblem({ quorumBps: 0, thresholdBps: 5100, votingWindowNs: NS_PER_DAY })!, /quorum/);
    assert.match(
      categoryRulesProblem({ quorumBps: 1000, thresholdBps: 5000, votingWindowNs: NS_PER_DAY })!,
      /above 50/,
    );
    assert.match(categoryRulesProblem({ quorumBps: 1000, thresholdBps: 5100, votingWindowNs: 60n })!, /window/);
  });
});

describe('counting (decision G1: "at least")', () => {
  const general = DEFAULT_CATEGORY_RULES.General;
  const c = (yes: number, no: number, abstain: number, eligible: number) => ({
    yes_votes: BigInt(yes),
    no_votes: BigInt(no),
    abstentions: BigInt(abstain),
    total_eligible: BigInt(eligible),
  });

  it('quorum exactly at 10 % of 1000 members is met; one vote short is not', () => {
    assert.equal(quorumMet(c(100, 0, 0, 1000), general), true);
    assert.equal(quorumMet(c(99, 0, 0, 1000), general), false);
  });
  it('abstentions count toward quorum but not toward the threshold', () => {
    assert.equal(quorumMet(c(1, 0, 99, 1000), general), true);
    assert.equal(thresholdMet(c(1, 0, 99, 1000), general), true, '1 yes of 1 decided is 100 %');
    assert.equal(thresholdMet(c(0, 1, 99, 1000), general), false);
  });
  it('threshold exactly at 51 % yes is met; just under is not', () => {
    assert.equal(thresholdMet(c(51, 49, 0, 1000), general), true);
    assert.equal(thresholdMet(c(50, 49, 0, 1000), general), false, '50 / 99 = 50.5 %');
    assert.equal(thresholdMet(c(5099, 4901, 0, 100_000), general), false, '50.99 %');
    assert.equal(thresholdMet(c(5100, 4900, 0, 100_000), general), true);
  });
  it('every category edge: exactly at the percentage passes, one vote short fails', () => {
    for (const rules of Object.values(DEFAULT_CATEGORY_RULES)) {
      const eligible = 10_000;
      const atQuorum = rules.quorumBps; // bps of 10 000 members = votes
      assert.equal(quorumMet(c(atQuorum, 0, 0, eligible), rules), true);
      assert.equal(quorumMet(c(atQuorum - 1, 0, 0, eligible), rules), false);
      const yes = rules.thresholdBps;
      assert.equal(thresholdMet(c(yes, 10_000 - yes, 0, eligible), rules), true);
      assert.equal(thresholdMet(c(yes - 1, 10_000 - yes + 1, 0, eligible), rules), false);
    }
  });
  it('no eligible members or no decided votes never pass', () => {
    assert.equal(quorumMet(c(0, 0, 0, 0), general), false);
    assert.equal(thresholdMet(c(0, 0, 10, 10), general), false);
  });
  it('passes needs both, and the tally carries the counts with both flags', () => {
    const t = tally(c(60, 40, 0, 1000), general);
    assert.deepEqual(t, {
      yes_votes: 60n,
      no_votes: 40n,
      abstentions: 0n,
      total_eligible: 1000n,
      quorum_met: true,
      threshold_met: true,
    });
    assert.equal(passes(t), true);
    assert.equal(passes(tally(c(6, 4, 0, 1000), general)), false, 'threshold met, quorum not');
  });
  it('counts beyond 2^53 stay exact (bigint arithmetic)', () => {
    const big = 2n ** 60n;
    assert.equal(
      thresholdMet({ yes_votes: big * 51n, no_votes: big * 49n, abstentions: 0n, total_eligible: big * 100n }, general),
      true,
    );
  });
});

describe('price in force (execution rule 5)', () => {
  const e = (id: bigint, price: number, effective: bigint, expires?: bigint): PriceEntry => ({
    price_usd: price,
    proposal_id: id,
    set_by: 'gov',
    effective_at: effective,
    ...(expires !== undefined && { expires_at: expires }),
  });

  it('no entries: no price', () => assert.equal(priceInForce([], 10n), undefined));
  it('the most recently effective entry applies', () => {
    assert.equal(priceInForce([e(1n, 1.0, 10n), e(2n, 2.0, 20n)], 25n)?.price_usd, 2.0);
  });
  it('an effective_at in the future takes effect then, not before', () => {
    const entries = [e(1n, 1.0, 10n), e(2n, 2.0, 100n)];
    assert.equal(priceInForce(entries, 99n)?.price_usd, 1.0);
    assert.equal(priceInForce(entries, 100n)?.price_usd, 2.0);
  });
  it('after expires_at the previous price applies again', () => {
    const entries = [e(1n, 1.0, 10n), e(2n, 2.0, 20n, 50n)];
    assert.equal(priceInForce(entries, 49n)?.price_usd, 2.0);
    assert.equal(priceInForce(entries, 50n)?.price_usd, 1.0);
  });
  it('an expired previous price does not come back: no price at all', () => {
    assert.equal(priceInForce([e(1n, 1.0, 10n, 30n), e(2n, 2.0, 20n, 40n)], 45n), undefined);
  });
  it('entries effective at the same instant: the later proposal wins', () => {
    assert.equal(priceInForce([e(7n, 7.0, 10n), e(3n, 3.0, 10n)], 10n)?.price_usd, 7.0);
  });
  it('the tick reports set_by, proposal_id and when the price took effect', () => {
    assert.deepEqual(toTick(e(4n, 1.25, 33n)), { price_usd: 1.25, set_by: 'gov', proposal_id: 4n, timestamp: 33n });
  });
  it('staleness: no tick, or one older than the window, is stale', () => {
    assert.equal(isStale(undefined, 100n, 10n), true);
    assert.equal(isStale(toTick(e(1n, 1, 90n)), 100n, 10n), false);
    assert.equal(isStale(toTick(e(1n, 1, 89n)), 100n, 10n), true);
  });
});

describe('SetDomPrice payload validation (InvalidPayload at creation)', () => {
  for (const [why, payload] of [
    ['zero price', { price_usd: 0 }],
    ['negative price', { price_usd: -1 }],
    ['NaN', { price_usd: Number.NaN }],
    ['Infinity', { price_usd: Number.POSITIVE_INFINITY }],
    ['expiry before effect', { price_usd: 1, effective_at: 100n, expires_at: 50n }],
    ['expiry equal to effect', { price_usd: 1, effective_at: 100n, expires_at: 100n }],
    ['expiry in the past without effective_at', { price_usd: 1, expires_at: 5n }],
    ['a non-https source', { price_usd: 1, source_url: 'http://prices.example/dom' }],
  ] as const) {
    it(`refuses ${why}`, () => assert.ok(setDomPriceProblem(payload, 10n)));
  }
  it('accepts a plain price, and one with effect, expiry and an https source', () => {
    assert.equal(setDomPriceProblem({ price_usd: 0.042 }, 10n), undefined);
    assert.equal(
      setDomPriceProblem(
        { price_usd: 1, effective_at: 20n, expires_at: 30n, source_url: 'https://prices.example/dom' },
        10n,
      ),
      undefined,
    );
  });
});

describe('decision G22: one source_url rule, and the refusal names the field', () => {
  const price = (source_url: string) => ({
    title: 'Price',
    body: 'b',
    category: 'SetDomPrice' as const,
    payload: { SetDomPrice: { price_usd: 1, source_url } },
  });
  it('create_proposal refuses an http:// (or too long) source_url with InvalidPayload naming source_url; https at 2048 characters is accepted, 2049 refused', async () => {
    const { core, ctx } = await coreWithProposal();
    const why = `source_url must be ${SOURCE_URL_RULE}`;
    assert.deepEqual(await core.create_proposal(ctx('admin'), price('http://prices.example/dom')), {
      Err: { InvalidPayload: why },
    });
    assert.deepEqual(await core.create_proposal(ctx('admin'), price('https://prices example/dom')), {
      Err: { InvalidPayload: why },
    });
    const at = (n: number) => 'https://p.example/' + 'x'.repeat(n - 'https://p.example/'.length);
    assert.equal(at(MAX_SOURCE_URL_CHARS).length, 2048);
    assert.deepEqual(await core.create_proposal(ctx('admin'), price(at(MAX_SOURCE_URL_CHARS + 1))), {
      Err: { InvalidPayload: why },
    });
    assert.ok('Ok' in (await core.create_proposal(ctx('admin'), price(at(MAX_SOURCE_URL_CHARS)))));
    assert.deepEqual(
      await core.create_proposal(ctx('admin'), {
        title: 'Price',
        body: 'b',
        category: 'SetDomPrice',
        payload: { SetDomPrice: { price_usd: 0 } },
      }),
      { Err: { InvalidPayload: 'price_usd must be a finite number above 0' } },
    );
  });
});
