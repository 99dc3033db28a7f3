// Spec 2 upgrade to Active through HTTP: KYC approval (admin), the signed card-processor webhook
// (decision B11: signature over the raw body, timestamp tolerance, idempotent by event id), escrow,
// and POST /test-email (decision B13).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ACCESS_TOKEN, ADMIN_EMAIL, bridge, paymentEvent, WEBHOOK_SECRET, type Bridge, type Jar } from './harness.ts';
import { signPayload } from '../src/features/payments/signature.ts';

describe('payment webhook (decision B11)', () => {
  let h: Bridge;
  let admin: { jar: Jar; user_id: string };
  let member: { jar: Jar; user_id: string };
  before(async () => {
    h = await bridge();
    admin = await h.member(ADMIN_EMAIL);
    member = await h.member('payer@example.org');
  });
  after(() => h.close());

  const raw = (body: unknown, headers: Record<string, string>) =>
    h.request({
      method: 'POST',
      url: '/api/webhooks/payments',
      payload: JSON.stringify(body),
      origin: null,
      headers: { 'content-type': 'application/json', ...headers },
    });

  it('refuses unsigned, wrongly signed, stale and tampered deliveries; nothing is recorded', async () => {
    const ev = paymentEvent(member.user_id, 'evt_forged');
    const body = JSON.stringify(ev);
    const t = Math.floor(h.now() / 1000);
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{}, /missing/],
      [{ 'payment-signature': 'garbage' }, /malformed/],
      [{ 'payment-signature': signPayload('whsec_wrong_secret', t, body) }, /mismatch/],
      [{ 'payment-signature': signPayload(WEBHOOK_SECRET, t - 301, body) }, /stale/],
      [{ 'payment-signature': signPayload(WEBHOOK_SECRET, t + 301, body) }, /stale/],
      [{ 'payment-signature': signPayload(WEBHOOK_SECRET, t, body.replace('2500', '1')) }, /mismatch/],
    ];
    for (const [headers, reason] of cases) {
      const r = await raw(ev, headers);
      assert.equal(r.statusCode, 400, JSON.stringify(headers));
      assert.equal(r.json().error, 'SIGNATURE_INVALID');
      assert.match(r.json().message, reason);
    }
    assert.equal((await h.opened.db.selectFrom('webhook_events').select('event_id').execute()).length, 0);
  });

  it('without approved KYC the payment is held in escrow, visible to admins only, never retried', async () => {
    const r = await h.signedWebhook(paymentEvent(member.user_id, 'evt_nokyc'));
    assert.deepEqual(r.json(), { received: true, status: 'escrow', reason: 'KYC not approved' });
    const list = await h.request({ method: 'GET', url: '/api/admin/payments?status=escrow', jar: admin.jar });
    assert.equal(list.statusCode, 200);
    const [p] = list.json().payments;
    assert.deepEqual(
      [p.event_id, p.user_id, p.status, p.reason, p.amount_minor, p.currency],
      ['evt_nokyc', member.user_id, 'escrow', 'KYC not approved', '2500', 'USD'],
    );
    assert.equal((await h.request({ method: 'GET', url: '/api/admin/payments', jar: member.jar })).statusCode, 403);
    assert.equal(
      (await h.request({ method: 'GET', url: '/api/auth/session', jar: member.jar })).json().membership_status,
      'Registered',
    );
  });

  it('with KYC approved the upgrade applies once: replays and concurrent duplicates are acknowledged and ignored', async () => {
    const kyc = await h.request({
      method: 'POST',
      url: `/api/admin/users/${member.user_id}/kyc`,
      payload: { approved: true, reference: 'kyc-provider-case-81' },
      jar: admin.jar,
    });
    assert.deepEqual(kyc.json(), { user_id: member.user_id, kyc_status: 'approved' });
    const ev = paymentEvent(member.user_id, 'evt_paid');
    const [a, b] = await Promise.all([h.signedWebhook(ev), h.signedWebhook(ev)]);
    const bodies = [a.json(), b.json()].map((x) => JSON.stringify(x)).sort();
    assert.deepEqual(
      bodies,
      [
        JSON.stringify({ received: true, duplicate: true }),
        JSON.stringify({ received: true, status: 'applied' }),
      ].sort(),
    );
    assert.deepEqual((await h.signedWebhook(ev)).json(), { received: true, duplicate: true }, 'a later replay');
    const payments = await h.opened.db.selectFrom('payments').selectAll().where('event_id', '=', 'evt_paid').execute();
    assert.equal(payments.length, 1);
    assert.equal(
      (await h.request({ method: 'GET', url: '/api/auth/session', jar: member.jar })).json().membership_status,
      'Active',
    );
    const receipts = h.emails().filter((m) => m.to.includes('payer@example.org') && /Payment received/.test(m.subject));
    assert.equal(receipts.length, 1, 'one receipt, not one per delivery');
  });

  it('unknown users and minors are escrowed; other event types are acknowledged; bad JSON is refused', async () => {
    const ghost = await h.signedWebhook(paymentEvent('00000000-0000-4000-8000-000000000000', 'evt_ghost'));
    assert.deepEqual(ghost.json(), { received: true, status: 'escrow', reason: 'unknown user' });
    const t = new Date(h.now());
    const teen = await h.member('teen@example.org', { dob: `${t.getUTCFullYear() - 15}-01-01` });
    await h.request({
      method: 'POST',
      url: `/api/admin/users/${teen.user_id}/kyc`,
      payload: { approved: true },
      jar: admin.jar,
    });
    assert.deepEqual((await h.signedWebhook(paymentEvent(teen.user_id, 'evt_teen'))).json(), {
      received: true,
      status: 'escrow',
      reason: 'under 18',
    });
    assert.deepEqual((await h.signedWebhook({ id: 'evt_refund', type: 'charge.refunded', data: {} })).json(), {
      received: true,
      handled: false,
    });
    const junk = '{"id": "evt_x", ';
    const bad = await h.request({
      method: 'POST',
      url: '/api/webhooks/payments',
      payload: junk,
      origin: null,
      headers: {
        'content-type': 'application/json',
        'payment-signature': signPayload(WEBHOOK_SECRET, Math.floor(h.now() / 1000), junk),
      },
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error, 'VALIDATION_ERROR');
    const negative = paymentEvent(member.user_id, 'evt_neg', -5);
    assert.equal((await h.signedWebhook(negative)).statusCode, 400);
  });

  it('KYC is recorded by admins only', async () => {
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: `/api/admin/users/${member.user_id}/kyc`,
          payload: { approved: true },
          jar: member.jar,
        })
      ).statusCode,
      403,
    );
    assert.equal(
      (await h.request({ method: 'POST', url: `/api/admin/users/${member.user_id}/kyc`, payload: { approved: true } }))
        .statusCode,
      401,
    );
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: `/api/admin/users/${member.user_id}/kyc`,
          payload: { approved: 'yes please' },
          jar: admin.jar,
        })
      ).statusCode,
      400,
    );
  });
});

describe('webhook and test email without their secrets', () => {
  it('answer 503 instead of accepting anything', async () => {
    const h = await bridge(undefined, { PAYMENT_WEBHOOK_SECRET: '', ACCESS_TOKEN: '' });
    after(() => h.close());
    assert.equal((await h.signedWebhook(paymentEvent('00000000-0000-4000-8000-000000000000'))).statusCode, 503);
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: '/test-email',
          payload: { email: 'a@example.org' },
          origin: null,
          headers: { authorization: 'Bearer anything-at-all-here' },
        })
      ).statusCode,
      503,
    );
  });
});

describe('POST /test-email (spec 2, decision B13)', () => {
  it('needs the ACCESS_TOKEN bearer token and sends through the notification service', async () => {
    const h = await bridge();
    after(() => h.close());
    const send = (headers: Record<string, string>, email = 'ops@example.org') =>
      h.request({ method: 'POST', url: '/test-email', payload: { email }, origin: null, headers });
    assert.equal((await send({})).statusCode, 401);
    assert.equal((await send({ authorization: `Bearer ${ACCESS_TOKEN}x` })).statusCode, 401);
    assert.equal((await send({ authorization: ACCESS_TOKEN })).statusCode, 401);
    assert.equal((await send({ authorization: `Bearer ${ACCESS_TOKEN}` }, 'not-an-email')).statusCode, 400);
    const ok = await send({ authorization: `Bearer ${ACCESS_TOKEN}` });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().sent, true);
    assert.deepEqual(h.emails().at(-1)!.to, ['ops@example.org']);
    h.provider.respond(() => ({ status: 500 }));
    assert.equal((await send({ authorization: `Bearer ${ACCESS_TOKEN}` })).statusCode, 502);
  });
});
