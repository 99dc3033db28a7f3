// The payment webhook's timestamp tolerance (decision B11,
// PAYMENT_WEBHOOK_TOLERANCE_SECONDS = 300) at its exact boundary, in both directions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bridge, paymentEvent, WEBHOOK_SECRET, type Bridge } from './harness.ts';

describe('payment webhook timestamp tolerance (decision B11)', () => {
  let h: Bridge;
  let userId: string;
  before(async () => {
    h = await bridge();
    userId = (await h.member('boundary@example.org')).user_id;
  });
  after(() => h.close());

  it('decision B11: a signature exactly 300 s old (or ahead) is accepted; 301 s is refused as stale', async () => {
    const t = Math.floor(h.now() / 1000);
    for (const skew of [-300, 300]) {
      const r = await h.signedWebhook(
        paymentEvent(userId, `evt_edge_${skew < 0 ? 'old' : 'new'}`),
        t + skew,
        WEBHOOK_SECRET,
      );
      assert.equal(r.statusCode, 200, `${skew} s: ${r.body}`);
      assert.equal(r.json().received, true);
    }
    for (const skew of [-301, 301]) {
      const id = `evt_stale_${skew < 0 ? 'old' : 'new'}`;
      const r = await h.signedWebhook(paymentEvent(userId, id), t + skew, WEBHOOK_SECRET);
      assert.equal(r.statusCode, 400, `${skew} s`);
      assert.equal(r.json().error, 'SIGNATURE_INVALID');
      assert.match(r.json().message, /stale/);
      const stored = await h.opened.db
        .selectFrom('webhook_events')
        .select('event_id')
        .where('event_id', '=', id)
        .execute();
      assert.equal(stored.length, 0, 'a refused delivery records nothing');
    }
  });
});
