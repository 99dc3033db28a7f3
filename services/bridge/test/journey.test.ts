// The whole membership journey, on each backend: register → verify link → Registered → KYC + payment →
// Active → the session shows it; then logout across suites.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ADMIN_EMAIL, BACKENDS, GOV, bridge, paymentEvent } from './harness.ts';

for (const backend of BACKENDS) {
  describe(`journey on ${backend.db} with sessions in the ${backend.sessions}`, () => {
    it('register → verify → Registered → KYC + payment → Active, visible in the session; logout ends every suite', async () => {
      const h = await bridge(backend);
      after(() => h.close());
      const admin = await h.member(ADMIN_EMAIL);
      const reg = await h.register('ada@example.org');
      assert.equal(reg.statusCode, 201, reg.body);
      assert.equal(reg.json().verification_email_sent, true);
      const mail = h.emails().at(-1)!;
      assert.deepEqual(mail.to, ['ada@example.org']);
      const verified = await h.verify('ada@example.org');
      assert.equal(verified.statusCode, 200);
      const { res, jar } = await h.login('ada@example.org');
      assert.equal(res.statusCode, 200, res.body);
      const session = (await h.request({ method: 'GET', url: '/api/auth/session', jar })).json();
      assert.deepEqual(session, {
        authenticated: true,
        user_id: reg.json().user_id,
        email: 'ada@example.org',
        roles: ['member'],
        membership_status: 'Registered',
      });

      const kyc = await h.request({ method: 'POST', url: `/api/admin/users/${session.user_id}/kyc`, payload: { approved: true }, jar: admin.jar });
      assert.equal(kyc.statusCode, 200, kyc.body);
      const paid = await h.signedWebhook(paymentEvent(session.user_id, 'evt_journey'));
      assert.equal(paid.statusCode, 200, paid.body);
      assert.deepEqual(paid.json(), { received: true, status: 'applied' });
      const active = (await h.request({ method: 'GET', url: '/api/auth/session', jar })).json();
      assert.equal(active.membership_status, 'Active');
      const subjects = h
        .emails()
        .filter((m) => m.to.includes('ada@example.org'))
        .map((m) => m.subject);
      assert.ok(
        subjects.some((s) => /membership is active/.test(s)),
        subjects.join(' | '),
      );
      assert.ok(
        subjects.some((s) => /Payment received: 25\.00 USD/.test(s)),
        subjects.join(' | '),
      );

      // Logout on one suite: the other suite's requests (same cookie on the shared domain) are out too.
      const other = { cookie: jar.cookie };
      const out = await h.request({ method: 'POST', url: '/auth/logout', jar, origin: GOV });
      assert.equal(out.statusCode, 200);
      assert.match(
        jar.setCookie!,
        /^session=; Max-Age=0; Domain=\.domdao\.example; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax$/,
      );
      assert.deepEqual((await h.request({ method: 'GET', url: '/auth/session', jar: other })).json(), { authenticated: false });
    });
  });
}
