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

      const kyc = await h.request({
        method: 'POST',
        url: `/api/admin/users/${session.user_id}/kyc`,
        payload: { approved: true },
        jar: admin.jar,
      });
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
      assert.deepEqual((await h.request({ method: 'GET', url: '/auth/session', jar: other })).json(), {
        authenticated: false,
      });
    });
  });
}

// Liquid democracy end to end (decisions G28–G31, V26–V29): two members made Active the real way (KYC
// by the admin, a signed payment), one delegates to the other, the delegate votes, the member sees
// "voted by delegate" and overrides it, and the tally counts each once, direct and delegated apart.
describe('journey: delegate, vote by the delegate, override, tally', () => {
  it('a delegation carries a vote until the member votes themselves; at close each member counts once', async () => {
    const h = await bridge();
    after(() => h.close());
    const admin = await h.member(ADMIN_EMAIL);
    const people: Record<string, { jar: { cookie?: string }; principal: string }> = {};
    for (const name of ['dee', 'eve', 'fay']) {
      const m = await h.member(`${name}@example.org`);
      assert.equal(
        (
          await h.request({
            method: 'POST',
            url: `/api/admin/users/${m.user_id}/kyc`,
            payload: { approved: true },
            jar: admin.jar,
          })
        ).statusCode,
        200,
      );
      assert.equal((await h.signedWebhook(paymentEvent(m.user_id, `evt_${name}`))).statusCode, 200);
      const { principal } = await h.opened.db
        .selectFrom('users')
        .select('principal')
        .where('id', '=', m.user_id)
        .executeTakeFirstOrThrow();
      people[name] = { jar: m.jar, principal };
    }
    const as = (name: string, method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) =>
      h.request({ method, url, jar: people[name]!.jar, ...(payload && { payload }) });
    // dee and fay delegate to eve (for all categories).
    for (const name of ['dee', 'fay'])
      assert.equal(
        (await as(name, 'PUT', '/api/governance/delegation', { delegate: people.eve!.principal })).statusCode,
        200,
      );
    const created = await h.opened.canisters.clients.governance.create_proposal({
      title: 'Plant trees',
      body: 'b',
      category: 'General',
    });
    assert.ok('Ok' in created);
    const id = String(created.Ok);
    h.advance(3_600_000);
    await h.opened.canisters.platform!.tick();
    for (const name of Object.keys(people)) people[name]!.jar = (await h.login(`${name}@example.org`)).jar;
    assert.equal((await as('eve', 'POST', '/api/governance/vote', { proposal_id: id, vote: 'Yes' })).statusCode, 200);
    assert.equal((await as('dee', 'GET', `/api/governance/proposals/${id}/my-vote`)).json().cast, 'delegate');
    assert.equal(
      (await as('dee', 'POST', '/api/governance/vote', { proposal_id: id, vote: 'No', reason: 'not this year' }))
        .statusCode,
      200,
    );
    assert.equal((await as('dee', 'GET', `/api/governance/proposals/${id}/my-vote`)).json().cast, 'direct');
    h.advance(7 * 24 * 3_600_000);
    for (let i = 0; i < 3; i++) await h.opened.canisters.platform!.tick();
    const p = (await h.request({ method: 'GET', url: `/api/governance/proposals/${id}` })).json() as {
      tally: Record<string, string>;
      turnout: Record<string, unknown>;
    };
    // eve Yes, fay Yes through eve, dee No herself: 3 ballots of the 3 Active members.
    assert.deepEqual([p.tally.yes_votes, p.tally.no_votes, p.tally.total_eligible], ['2', '1', '3']);
    assert.deepEqual(p.turnout, { direct: '2', delegated: '1', delegated_counted: true });
    assert.deepEqual(
      (await h.request({ method: 'GET', url: `/api/governance/proposals/${id}/reasons` })).json().items,
      [{ seq: '1', vote: 'No', reason: 'not this year' }],
    );
  });
});
