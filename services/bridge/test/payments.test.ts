// Decision B19: a payment is checked against the configured membership price, its
// intent id is the idempotency key, and an Active member's payment is not a silent extension.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_EMAIL, bridge, paymentEvent, type Bridge, type Jar } from './harness.ts';

describe('decision B19: payments are checked', () => {
  let h: Bridge;
  let admin: { jar: Jar; user_id: string };
  before(async () => {
    h = await bridge();
    admin = await h.member(ADMIN_EMAIL);
  });
  after(() => h.close());

  const ready = async (email: string) => {
    const m = await h.member(email);
    const kyc = await h.request({
      method: 'POST',
      url: `/api/admin/users/${m.user_id}/kyc`,
      payload: { approved: true },
      jar: admin.jar,
    });
    assert.equal(kyc.statusCode, 200);
    return m;
  };
  const escrow = async () =>
    (await h.request({ method: 'GET', url: '/api/admin/payments?status=escrow', jar: admin.jar })).json()
      .payments as Array<{
      event_id: string;
      reason: string;
      status: string;
      created_at: string;
    }>;
  const tier = async (userId: string) => {
    const row = await h.opened.db
      .selectFrom('users')
      .select('principal')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    return (await h.opened.canisters.clients.membership.get_membership_status(row.principal))?.status;
  };

  it('one minor unit of XXX, or the wrong amount, goes to escrow with its reason and upgrades nobody', async () => {
    const m = await ready('cheap@example.org');
    const xxx = paymentEvent(m.user_id, 'evt_xxx', 1);
    xxx.data.object.currency = 'XXX';
    assert.equal((await h.signedWebhook(xxx)).statusCode, 200);
    assert.equal((await h.signedWebhook(paymentEvent(m.user_id, 'evt_short', 2499))).statusCode, 200);
    const held = await escrow();
    assert.match(
      held.find((p) => p.event_id === 'evt_xxx')!.reason,
      /^price mismatch: paid 1 XXX, the membership costs 2500 USD$/,
    );
    assert.match(held.find((p) => p.event_id === 'evt_short')!.reason, /^price mismatch: paid 2499 USD/);
    // Recorded at the bridge's clock (decision B81), which the harness holds in March 2026.
    assert.equal(held.find((p) => p.event_id === 'evt_xxx')!.created_at, new Date(h.now()).toISOString());
    assert.notEqual(await tier(m.user_id), 'Active');
    // The right price then works.
    assert.equal((await h.signedWebhook(paymentEvent(m.user_id, 'evt_right', 2500))).statusCode, 200);
    assert.equal(await tier(m.user_id), 'Active');
  });

  it('five event ids for one payment intent are applied once', async () => {
    const m = await ready('five@example.org');
    const before = await h.opened.db
      .selectFrom('payments')
      .select('id')
      .where('payment_id', '=', 'pi_shared')
      .execute();
    assert.equal(before.length, 0);
    const answers = [];
    for (let i = 0; i < 5; i++) {
      const ev = paymentEvent(m.user_id, `evt_five_${i}`);
      ev.data.object.id = 'pi_shared';
      answers.push((await h.signedWebhook(ev)).json());
    }
    assert.deepEqual(answers.slice(1), Array(4).fill({ received: true, duplicate: true }));
    const rows = await h.opened.db.selectFrom('payments').selectAll().where('payment_id', '=', 'pi_shared').execute();
    assert.deepEqual(
      rows.map((r) => r.status),
      ['applied'],
    );
  });

  it('a payment for an Active member is held for review, not a silent extension', async () => {
    const m = await ready('renew@example.org');
    await h.signedWebhook(paymentEvent(m.user_id, 'evt_first'));
    const row = await h.opened.db
      .selectFrom('users')
      .select('principal')
      .where('id', '=', m.user_id)
      .executeTakeFirstOrThrow();
    const first = await h.opened.canisters.clients.membership.get_membership_status(row.principal);
    await h.signedWebhook(paymentEvent(m.user_id, 'evt_again'));
    const second = await h.opened.canisters.clients.membership.get_membership_status(row.principal);
    assert.equal(second?.expiration_date, first?.expiration_date);
    assert.equal(
      (await escrow()).find((p) => p.event_id === 'evt_again')!.reason,
      'already Active: a renewal is reviewed by an admin',
    );
  });
});
