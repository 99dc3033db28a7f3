// The pure price aggregate (decisions O1–O6): weighted median and its tie
// rule, invalid/too-old observations, outlier rejection, minimum sources, confidence thresholds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  aggregate,
  CONFIDENCE,
  FUTURE_SKEW_MS,
  weightedMedian,
  type Observation,
} from '../src/features/oracle/aggregate.ts';

const NOW = Date.parse('2026-03-10T12:00:00Z');
const obs = (name: string, price: unknown, weight = 1, extra: Partial<Observation> = {}): Observation => ({
  name,
  price,
  weight,
  observedAt: NOW,
  maxAgeMs: 60_000,
  ...extra,
});
const opts = { now: NOW, outlierPct: 20, minSources: 2 };

describe('weighted median (decision O2)', () => {
  it('odd count, equal weights: the middle price', () => {
    assert.equal(
      weightedMedian([
        { price: 3, weight: 1 },
        { price: 1, weight: 1 },
        { price: 2, weight: 1 },
      ]),
      2,
    );
  });
  it('even count, equal weights: exactly half the weight on each side gives the midpoint (tie rule)', () => {
    assert.equal(
      weightedMedian([
        { price: 1, weight: 1 },
        { price: 4, weight: 1 },
        { price: 2, weight: 1 },
        { price: 3, weight: 1 },
      ]),
      2.5,
    );
    assert.equal(
      weightedMedian([
        { price: 10, weight: 2 },
        { price: 20, weight: 2 },
      ]),
      15,
    );
  });
  it('a heavy source carries the median; uneven weights without an exact half pick one price', () => {
    assert.equal(
      weightedMedian([
        { price: 1, weight: 1 },
        { price: 2, weight: 1 },
        { price: 9, weight: 3 },
      ]),
      9,
    );
    assert.equal(
      weightedMedian([
        { price: 1, weight: 2 },
        { price: 2, weight: 1 },
        { price: 3, weight: 2 },
      ]),
      2,
    );
    assert.equal(
      weightedMedian([
        { price: 1, weight: 3 },
        { price: 2, weight: 1 },
        { price: 3, weight: 1 },
        { price: 4, weight: 1 },
      ]),
      1.5,
      'half the weight (3 of 6) at 1: midpoint of 1 and 2',
    );
  });
  it('fractional weights summing to an exact half still take the midpoint', () => {
    assert.equal(
      weightedMedian([
        { price: 1, weight: 0.1 },
        { price: 2, weight: 0.2 },
        { price: 3, weight: 0.3 },
      ]),
      2.5,
    );
  });

  const items = fc.uniqueArray(
    fc.record({
      name: fc.string({ minLength: 1, maxLength: 6 }),
      price: fc.double({ min: 1e-6, max: 1e9, noNaN: true }),
      weight: fc.double({ min: 0.01, max: 1000, noNaN: true }),
    }),
    { minLength: 1, maxLength: 12, selector: (x) => x.name },
  );
  it('property: lies within [min, max] of the prices and does not depend on source order', () => {
    fc.assert(
      fc.property(items, fc.infiniteStream(fc.nat()), (xs, rnd) => {
        const m = weightedMedian(xs);
        const prices = xs.map((x) => x.price);
        assert.ok(m >= Math.min(...prices) && m <= Math.max(...prices), `${m} outside the prices`);
        const shuffled = [...xs];
        const it = rnd[Symbol.iterator]();
        for (let i = shuffled.length - 1; i > 0; i--) {
          const j = it.next().value! % (i + 1);
          [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
        }
        assert.equal(weightedMedian(shuffled), m);
      }),
      { numRuns: 500 },
    );
  });
  it('property: the aggregate price lies within the kept prices and ignores source order', () => {
    fc.assert(
      fc.property(items, (xs) => {
        const input = xs.map((x) => obs(x.name, x.price, x.weight));
        const a = aggregate(input, { ...opts, minSources: 1 });
        const b = aggregate([...input].reverse(), { ...opts, minSources: 1 });
        // Sources that all reject each other (O4) give no aggregate, in any order.
        assert.equal(a.ok, b.ok);
        if (!a.ok || !b.ok) return;
        const kept = a.aggregate.sources.map((s) => s.price);
        assert.ok(a.aggregate.price_usd >= Math.min(...kept) && a.aggregate.price_usd <= Math.max(...kept));
        assert.equal(a.aggregate.price_usd, b.aggregate.price_usd);
        assert.deepEqual(a.aggregate.sources.map((s) => s.name).sort(), b.aggregate.sources.map((s) => s.name).sort());
      }),
      { numRuns: 300 },
    );
  });
});

describe('aggregate (decisions O1, O3, O4)', () => {
  it('decision O1: drops failed, non-finite, non-positive, non-numeric, future and too-old observations', () => {
    const r = aggregate(
      [
        obs('a', 1.0),
        obs('b', 1.02),
        obs('failed', undefined, 1, { error: 'timeout after 500 ms' }),
        obs('nan', Number.NaN),
        obs('inf', Number.POSITIVE_INFINITY),
        obs('zero', 0),
        obs('negative', -1),
        obs('text', 'abc'),
        obs('old', 1.01, 1, { observedAt: NOW - 61_000 }),
        obs('future', 1.01, 1, { observedAt: NOW + 120_000 }),
        obs('no-time', 1.01, 1, { observedAt: null }),
      ],
      opts,
    );
    assert.ok(r.ok);
    assert.deepEqual(
      r.aggregate.sources.map((s) => s.name),
      ['a', 'b'],
    );
    assert.equal(r.aggregate.price_usd, 1.01);
    assert.deepEqual(Object.fromEntries(r.observations.map((o) => [o.name, o.status])), {
      a: 'used',
      b: 'used',
      failed: 'failed',
      nan: 'invalid',
      inf: 'invalid',
      zero: 'invalid',
      negative: 'invalid',
      text: 'invalid',
      old: 'too_old',
      future: 'invalid',
      'no-time': 'invalid',
    });
  });

  it('decision O3: a lying source more than 20 % from the median is rejected and the median recomputed', () => {
    const r = aggregate([obs('a', 1.0), obs('b', 1.01), obs('c', 1.02), obs('liar', 5.0, 1)], opts);
    assert.ok(r.ok);
    assert.equal(r.observations.find((o) => o.name === 'liar')!.status, 'outlier');
    assert.equal(r.aggregate.price_usd, 1.01, 'recomputed over the three honest sources (the first pass gave 1.015)');
    // Exactly 20 % away is kept; just beyond is rejected.
    const edge = aggregate(
      [obs('a', 100), obs('b', 100), obs('c', 100), obs('edge', 120), obs('beyond', 120.01)],
      opts,
    );
    assert.ok(edge.ok);
    assert.deepEqual(
      edge.observations.filter((o) => o.status === 'outlier').map((o) => o.name),
      ['beyond'],
    );
  });

  it('decision O4: fewer agreeing fresh sources than PRICE_MIN_SOURCES gives no aggregate', () => {
    const one = aggregate([obs('a', 1.0), obs('b', 1.0, 1, { error: 'HTTP 500' })], opts);
    assert.deepEqual([one.ok, !one.ok && one.reason], [false, '1 agreeing fresh source(s), at least 2 required']);
    // Two sources disagreeing by more than 40 %: both are more than 20 % from their midpoint.
    const split = aggregate([obs('a', 1.0), obs('b', 2.0)], opts);
    assert.equal(split.ok, false);
    assert.deepEqual(
      split.observations.map((o) => o.status),
      ['outlier', 'outlier'],
    );
    const none = aggregate([obs('old', 1, 1, { observedAt: NOW - 3_600_000 })], opts);
    assert.deepEqual([none.ok, !none.ok && none.reason], [false, 'no fresh valid observation']);
  });

  it('the aggregate timestamp is the computation time in Unix seconds (decision O7)', () => {
    const r = aggregate([obs('a', 2), obs('b', 2)], { ...opts, now: NOW + 999 });
    assert.ok(r.ok);
    assert.equal(r.aggregate.timestamp, NOW / 1000);
  });
});

describe('aggregate limits at the limit and one unit past it (decisions O1, O4)', () => {
  it('decision O1: an observation exactly max_age old is used, one ms older is too_old; exactly the future skew ahead is used, one ms more is invalid', () => {
    const r = aggregate(
      [
        obs('a', 1),
        obs('at-age', 1, 1, { observedAt: NOW - 60_000 }),
        obs('past-age', 1, 1, { observedAt: NOW - 60_001 }),
        obs('at-skew', 1, 1, { observedAt: NOW + FUTURE_SKEW_MS }),
        obs('past-skew', 1, 1, { observedAt: NOW + FUTURE_SKEW_MS + 1 }),
      ],
      opts,
    );
    assert.deepEqual(Object.fromEntries(r.observations.map((o) => [o.name, o.status])), {
      a: 'used',
      'at-age': 'used',
      'past-age': 'too_old',
      'at-skew': 'used',
      'past-skew': 'invalid',
    });
  });
  it('decision O4: exactly PRICE_MIN_SOURCES agreeing sources give an aggregate, one fewer none', () => {
    assert.equal(aggregate([obs('a', 1), obs('b', 1), obs('c', 1)], { ...opts, minSources: 3 }).ok, true);
    const two = aggregate([obs('a', 1), obs('b', 1), obs('c', 1, 1, { observedAt: NOW - 60_001 })], {
      ...opts,
      minSources: 3,
    });
    assert.deepEqual([two.ok, !two.ok && two.reason], [false, '2 agreeing fresh source(s), at least 3 required']);
  });
});

describe('confidence (decision O5)', () => {
  const at = (prices: number[]) => {
    const r = aggregate(
      prices.map((p, i) => obs(`s${i}`, p)),
      opts,
    );
    assert.ok(r.ok);
    return r.aggregate;
  };
  it(`high: dispersion ≤ ${CONFIDENCE.highMaxDispersion * 100} % with at least ${CONFIDENCE.highMinSources} sources`, () => {
    assert.deepEqual([at([99.5, 100, 100.5]).confidence, at([99.5, 100, 100.5]).dispersion], ['high', 0.005]);
    assert.equal(at([99.49, 100, 100.51]).confidence, 'medium', 'just above the high threshold');
    assert.equal(at([100, 100]).confidence, 'medium', 'two sources never give high confidence');
  });
  it(`medium: dispersion ≤ ${CONFIDENCE.mediumMaxDispersion * 100} %; low above`, () => {
    assert.deepEqual([at([98, 100, 102]).confidence, at([98, 100, 102]).dispersion], ['medium', 0.02]);
    assert.equal(at([97.9, 100, 102.1]).confidence, 'low');
  });
});
