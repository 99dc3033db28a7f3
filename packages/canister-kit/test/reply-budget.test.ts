// Decision W6: list answers stop before their free text passes the reply budget.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { REPLY_TEXT_BUDGET, utf8Length, withinReplyBudget } from '../src/reply-budget.ts';

describe('reply budget (decision W6)', () => {
  it('utf8Length is the UTF-8 length of any string of Unicode scalar values', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => utf8Length(s) === Buffer.byteLength(s, 'utf8')),
      { numRuns: 500 },
    );
  });

  it('takes items while their text fits, at most the limit, and always at least one', () => {
    const texts = ['a'.repeat(600), 'é'.repeat(300), '€'.repeat(200), '😀'.repeat(150)];
    // 600 + 600 + 600 + 600 bytes: a budget of 1,500 holds two.
    assert.deepEqual(
      withinReplyBudget(texts, 10, (t) => t, { budget: 1_500 }),
      texts.slice(0, 2),
    );
    assert.deepEqual(
      withinReplyBudget(texts, 1, (t) => t, { budget: 1_500 }),
      texts.slice(0, 1),
    );
    assert.deepEqual(
      withinReplyBudget(['x'.repeat(5_000)], 10, (t) => t, { budget: 1_500 }).length,
      1,
      'one item even above the budget',
    );
    assert.equal(REPLY_TEXT_BUDGET, 1_572_864);
  });

  it('on a metered host, a page stops at the estimated instruction cost of its answer', () => {
    const small = Array.from({ length: 100 }, () => 'x'.repeat(1_000));
    // 35 M + 80 k × 1,000 = 115 M each: 26 fit in 3 billion.
    assert.equal(withinReplyBudget(small, 100, (t) => t, { metered: true }).length, 26);
    assert.equal(withinReplyBudget(small, 100, (t) => t).length, 100, 'unmetered: the limit alone');
    assert.equal(withinReplyBudget(['x'.repeat(50_000), 'y'], 100, (t) => t, { metered: true }).length, 1);
  });
});
