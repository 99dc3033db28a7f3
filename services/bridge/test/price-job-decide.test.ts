// The price-proposal job's decision rules (decisions O16–O19): stale → skip; pending
// SetDomPrice → skip; change below the minimum → skip unless the ratified price is older than the
// heartbeat; the heartbeat must leave room for ratification (start-up check).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  changePct,
  decidePriceProposal,
  heartbeatProblem,
  type PriceJobInput,
} from '../src/features/price-job/decide.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const settings = { minChangePct: 1, heartbeatMs: 5 * DAY };
const now = Date.parse('2026-05-10T00:00:00Z');
const base: PriceJobInput = {
  aggregate: { price_usd: 1.005, stale: false },
  ratified: { price_usd: 1, effective_at_ms: now - DAY },
  pendingProposalId: undefined,
  now,
};

describe('price-proposal decision (O16–O18)', () => {
  it('skips a change below the minimum while the ratified price is younger than the heartbeat', () => {
    const d = decidePriceProposal(base, settings);
    assert.equal(d.action, 'skip');
    assert.equal(d.reason, 'below_min_change');
    assert.ok(Math.abs(d.change_pct! - 0.5) < 1e-9);
  });

  it('submits a change at or above the minimum (both directions)', () => {
    assert.deepEqual(
      decidePriceProposal({ ...base, aggregate: { price_usd: 1.01, stale: false } }, settings).reason,
      'change',
    );
    assert.deepEqual(
      decidePriceProposal({ ...base, aggregate: { price_usd: 0.98, stale: false } }, settings).reason,
      'change',
    );
  });

  it('a change of exactly the minimum is submitted, one just below is skipped (O17 rule 6)', () => {
    const at = (price_usd: number) =>
      decidePriceProposal(
        { ...base, aggregate: { price_usd, stale: false }, ratified: { price_usd: 100, effective_at_ms: now - DAY } },
        settings,
      );
    assert.deepEqual([at(101).action, at(101).reason, at(101).change_pct], ['submit', 'change', 1], 'exactly 1 % up');
    assert.deepEqual([at(99).action, at(99).change_pct], ['submit', 1], 'exactly 1 % down');
    assert.deepEqual([at(100.999).action, at(100.999).reason], ['skip', 'below_min_change']);
    assert.deepEqual([at(99.001).action, at(99.001).reason], ['skip', 'below_min_change']);
  });

  it('heartbeat: submits an unchanged price once the ratified one is as old as the heartbeat, not a millisecond before', () => {
    const at = (age: number) =>
      decidePriceProposal(
        { ...base, aggregate: { price_usd: 1, stale: false }, ratified: { price_usd: 1, effective_at_ms: now - age } },
        settings,
      );
    assert.deepEqual([at(5 * DAY - 1).action, at(5 * DAY).action, at(5 * DAY).reason], ['skip', 'submit', 'heartbeat']);
  });

  it('never submits a stale aggregate, even past the heartbeat or by an admin', () => {
    for (const manual of [false, true]) {
      const d = decidePriceProposal(
        {
          ...base,
          manual,
          aggregate: { price_usd: 2, stale: true },
          ratified: { price_usd: 1, effective_at_ms: now - 30 * DAY },
        },
        settings,
      );
      assert.deepEqual([d.action, d.reason], ['skip', 'stale']);
    }
    assert.deepEqual(decidePriceProposal({ ...base, aggregate: undefined }, settings).reason, 'no_aggregate');
  });

  it('skips while a SetDomPrice proposal is pending, naming it, whatever the change or the caller', () => {
    for (const manual of [false, true]) {
      const d = decidePriceProposal(
        { ...base, manual, aggregate: { price_usd: 3, stale: false }, pendingProposalId: '17' },
        settings,
      );
      assert.deepEqual(d, { action: 'skip', reason: 'pending_proposal', change_pct: 200, pending_proposal_id: '17' });
    }
  });

  it('submits when nothing was ratified yet; an admin run skips only the minimum-change rule (O18)', () => {
    assert.deepEqual(decidePriceProposal({ ...base, ratified: undefined }, settings), {
      action: 'submit',
      reason: 'no_ratified_price',
      change_pct: null,
    });
    assert.deepEqual(decidePriceProposal({ ...base, manual: true }, settings).reason, 'manual');
  });

  it('changePct is relative to the ratified price', () => {
    assert.equal(changePct(2, 3), 50);
    assert.equal(changePct(2, 1), 50);
  });
});

describe('heartbeat start-up check (O19)', () => {
  const ratificationMs = HOUR + 3 * DAY + DAY;
  it('accepts a heartbeat that leaves room for ratification before the price expires', () => {
    assert.equal(heartbeatProblem({ heartbeatMs: 5 * DAY, tickLifetimeMs: 10 * DAY, ratificationMs }), undefined);
    assert.equal(
      heartbeatProblem({ heartbeatMs: 10 * DAY - ratificationMs, tickLifetimeMs: 10 * DAY, ratificationMs }),
      undefined,
    );
  });
  it('refuses one that does not, saying the largest allowed', () => {
    assert.match(
      heartbeatProblem({ heartbeatMs: 10 * DAY - ratificationMs + 1, tickLifetimeMs: 10 * DAY, ratificationMs })!,
      /leaves no room for ratification.*i\.e\. 143 h/,
    );
    assert.match(heartbeatProblem({ heartbeatMs: 0, tickLifetimeMs: 10 * DAY, ratificationMs })!, /positive/);
  });
});
