// Spec 2 membership table: Registered → Active by upgrade_to_active "…; voting enabled; voter role added"
// (decision B53): a session carries `voter` while the membership is Active, from the next login or the
// next GET /api/auth/session, and loses it when the membership lapses; nobody can grant it by hand.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_EMAIL, bridge, type Bridge } from './harness.ts';

const roles = async (h: Bridge, url: '/auth/session' | '/api/auth/session', jar: { cookie?: string }) =>
  (await h.request({ method: 'GET', url, jar })).json() as { roles: string[]; membership_status?: string };

async function activate(h: Bridge, userId: string): Promise<void> {
  const { principal } = await h.opened.db
    .selectFrom('users')
    .select('principal')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  const c = h.opened.canisters.clients;
  assert.ok('Ok' in (await c.user.record_kyc(principal, true)));
  assert.ok(
    'Ok' in
      (await c.user.upgrade_membership_to_active({
        principal,
        kyc_proof: new Uint8Array([1]),
        payment_proof: new Uint8Array([2]),
      })),
  );
}

describe('the voter role (spec 2 membership table, decision B53)', () => {
  it('decision B53: Registered carries no voter; Active adds it to the live session at the next /api/auth/session (and /auth/session after it) and to every new login; the lapse on Dec 31 removes it', async (t) => {
    const h = await bridge();
    t.after(() => h.close());
    const m = await h.member('voter@example.org');
    assert.deepEqual((await roles(h, '/api/auth/session', m.jar)).roles, ['member']);
    await activate(h, m.user_id);
    // Rule 5 caches roles at login; the endpoint that asks the membership canister brings voter in at once.
    assert.deepEqual(
      await roles(h, '/auth/session', m.jar).then((r) => r.roles),
      ['member'],
      'the cached roles until the status is heard',
    );
    const heard = await roles(h, '/api/auth/session', m.jar);
    assert.equal(heard.membership_status, 'Active');
    assert.deepEqual(heard.roles, ['member', 'voter']);
    assert.deepEqual(
      (await roles(h, '/auth/session', m.jar)).roles,
      ['member', 'voter'],
      'the session itself now carries it',
    );
    const again = await h.login('voter@example.org');
    assert.deepEqual(again.res.json().roles, ['member', 'voter'], 'a new login carries it');
    // Active memberships end Dec 31 23:59:59 UTC: a session signed in just before keeps voter until the
    // status is heard again past it (the months skipped here outlive any session, so sign in again first).
    const year = new Date(h.now()).getUTCFullYear();
    h.advance(Date.UTC(year, 11, 31, 23, 59, 58) - h.now());
    const late = await h.login('voter@example.org');
    assert.deepEqual(late.res.json().roles, ['member', 'voter'], 'a second before the expiration: still Active');
    h.advance(2_000);
    const lapsed = await roles(h, '/api/auth/session', late.jar);
    assert.equal(lapsed.membership_status, 'Expired');
    assert.deepEqual(lapsed.roles, ['member']);
    assert.deepEqual(
      (await roles(h, '/auth/session', late.jar)).roles,
      ['member'],
      'and the session no longer carries it',
    );
  });

  it('decision B53: voter is derived, never granted: an admin cannot grant it, and it is never stored with the user', async (t) => {
    const h = await bridge();
    t.after(() => h.close());
    const admin = await h.member(ADMIN_EMAIL);
    const m = await h.member('granted@example.org');
    const r = await h.request({
      method: 'POST',
      url: `/api/admin/users/${m.user_id}/roles`,
      payload: { role: 'voter' },
      jar: admin.jar,
    });
    assert.equal(r.statusCode, 400);
    assert.equal(r.json().error, 'VALIDATION_ERROR');
    await activate(h, m.user_id);
    assert.deepEqual((await h.login('granted@example.org')).res.json().roles, ['member', 'voter']);
    const stored = await h.opened.db
      .selectFrom('users')
      .select('roles')
      .where('id', '=', m.user_id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored.roles, ['member']);
  });
});
