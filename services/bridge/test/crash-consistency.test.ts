// Decisions B20–B28 and U5: a crash at every step boundary of registration, email
// verification, KYC and the payment webhook, then a restart on the same data. Each case checks that
// the database and the user canister agree and that the user can go on: the account exists in both
// and its link works; a verified user can sign in; a KYC decision is in both; a payment is credited
// exactly once. Crashes are injected through the outbox's test-only fault hook (decision B23): a throw
// there leaves the rows exactly as a killed process would. Also: a lost reply at registration (the
// client told "nothing was stored", the orphan account removed), expiry (B26) and a password reset
// reaching the canister (B28).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { FaultPoint } from '../src/core/outbox/types.ts';
import { OUTBOX_LEASE_MS } from '../src/core/outbox/queue.ts';
import { ADMIN_EMAIL, bridge, paymentEvent, type Bridge } from './harness.ts';

const POINTS: FaultPoint[] = ['before-call', 'after-call', 'after-apply'];
const PASSWORD = 'correct horse battery staple';

/** Crashes once, at `point` of the first run of `operation`. */
function crashAt(point: FaultPoint, operation: string) {
  let armed = true;
  return {
    outboxFaults: (p: FaultPoint, op: { operation: string }) => {
      if (armed && p === point && op.operation === operation) {
        armed = false;
        throw new Error(`injected crash at ${point} of ${operation}`);
      }
    },
  };
}

/** After a restart: the dead process's lease runs out, then the reconciler runs (as its timer would). */
async function reconcileAfterLease(h: Bridge) {
  h.advance(OUTBOX_LEASE_MS + 1);
  await h.app.outbox.reconcile();
}

const userByEmailOrder = (h: Bridge) => h.opened.db.selectFrom('users').selectAll().orderBy('created_at').execute();
const account = (h: Bridge, principal: string) => h.opened.canisters.clients.user.get_account(principal);

async function waitFor<T>(f: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Registered, verified, signed in: the user can go on. */
async function verifyAndLogin(h: Bridge, email: string) {
  const v = await h.verify(email);
  assert.equal(v.statusCode, 200, v.body);
  const { res } = await h.login(email);
  assert.equal(res.statusCode, 200, res.body);
}

describe('registration: a crash at every step boundary (B24)', () => {
  for (const point of POINTS) {
    it(`crash at ${point}: after a restart the account is in the database and the canister, its link works and login follows`, async () => {
      const h = await bridge(undefined, {}, crashAt(point, 'user.create_account'));
      after(() => h.close());
      const email = `crash-${point}@example.org`;
      assert.equal((await h.register(email)).statusCode, 500);
      await h.restart();
      await reconcileAfterLease(h);
      const [u, ...more] = await userByEmailOrder(h);
      assert.equal(more.length, 0);
      const acct = await account(h, u!.principal);
      assert.ok(acct, 'the canister has the account the database has');
      assert.equal(acct.email_verified, false);
      assert.ok(u!.verification_token_hash, 'the link finds its user');
      const { res } = await h.login(email);
      assert.equal(res.json().error, 'EMAIL_NOT_VERIFIED');
      if (point === 'after-apply') {
        // The crash took the email with it (follow-ups are at most once): the user asks for a new link.
        assert.throws(() => h.verificationPath(email));
        assert.equal(
          (await h.request({ method: 'POST', url: '/api/auth/resend-verification', payload: { email } })).statusCode,
          202,
        );
        await waitFor(() => h.emails().find((m) => m.to.includes(email)), 'the new verification email');
      }
      await verifyAndLogin(h, email);
      assert.equal((await account(h, u!.principal))!.email_verified, true);
      assert.deepEqual((await h.app.outbox.list({ state: 'pending' })).length, 0);
    });
  }

  it('a lost reply: the client hears "nothing was stored", and the account the canister created anyway is removed (no orphan with a password hash)', async () => {
    let lose = true;
    const h = await bridge(
      undefined,
      {},
      {
        outboxFaults: (p, op) => {
          if (lose && p === 'lost-reply' && op.operation === 'user.create_account') {
            lose = false;
            throw new Error('the reply was lost');
          }
        },
      },
    );
    after(() => h.close());
    const r = await h.register('lost@example.org');
    assert.equal(r.statusCode, 503);
    assert.equal(r.json().error, 'REGISTRATION_UNAVAILABLE');
    assert.deepEqual(await userByEmailOrder(h), [], 'nothing in the database');
    const [create, remove] = await h.app.outbox.list();
    assert.equal(create!.state, 'compensated');
    assert.equal(remove!.operation, 'user.remove_unverified_account');
    const principal = (
      await h.opened.db
        .selectFrom('bridge_outbox')
        .select('payload')
        .where('op_id', '=', remove!.op_id)
        .executeTakeFirstOrThrow()
    ).payload as { principal: string };
    await h.app.outbox.reconcile();
    assert.equal(await account(h, principal.principal), undefined, 'nothing in the canister');
    assert.equal((await h.register('lost@example.org')).statusCode, 201, 'the address is free');

    // Decision B29: admins see what was compensated and why, never the payload.
    const admin = await h.member(ADMIN_EMAIL);
    const view = await h.request({ method: 'GET', url: '/api/admin/outbox?state=compensated', jar: admin.jar });
    assert.equal(view.statusCode, 200);
    const ops = view.json().operations as Array<Record<string, unknown>>;
    assert.deepEqual(
      ops.map((o) => [o.operation, o.state]),
      [['user.create_account', 'compensated']],
    );
    assert.match(String(ops[0]!.last_error), /^registration answered 503: the reply was lost/);
    assert.equal('payload' in ops[0]!, false);
    const all = (await h.request({ method: 'GET', url: '/api/admin/outbox?limit=2', jar: admin.jar })).json()
      .operations as Array<{ id: string }>;
    assert.equal(all.length, 2);
    assert.ok(BigInt(all[0]!.id) > BigInt(all[1]!.id), 'newest first');
    assert.equal((await h.request({ method: 'GET', url: '/api/admin/outbox' })).statusCode, 401);
    assert.equal(
      (await h.request({ method: 'GET', url: '/api/admin/outbox?state=bogus', jar: admin.jar })).statusCode,
      400,
    );
  });
});

describe('email verification: a crash at every step boundary (B25)', () => {
  for (const point of POINTS) {
    it(`crash at ${point}: the user ends verified in both stores and can sign in`, async () => {
      const h = await bridge(undefined, {}, crashAt(point, 'user.verify_email'));
      after(() => h.close());
      const email = `verify-${point}@example.org`;
      assert.equal((await h.register(email)).statusCode, 201);
      assert.equal((await h.verify(email)).statusCode, 500);
      await h.restart();
      const [u] = await userByEmailOrder(h);
      if (point === 'after-apply') {
        assert.equal((await h.verify(email)).statusCode, 400, 'the link was used');
      } else {
        // Opened again while the dead process's lease holds: try again shortly; after it, verified.
        assert.equal((await h.verify(email)).statusCode, 503);
        h.advance(OUTBOX_LEASE_MS + 1);
        const again = await h.verify(email);
        assert.equal(again.statusCode, 200, again.body);
        assert.match(again.body, /verified/);
      }
      const { res, jar } = await h.login(email);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual((await h.request({ method: 'GET', url: '/auth/session', jar })).json().roles, ['member']);
      assert.equal((await account(h, u!.principal))!.email_verified, true);
    });
  }

  it('crash after the canister answered and nobody opens the link again: the reconciler verifies the user', async () => {
    const h = await bridge(undefined, {}, crashAt('after-call', 'user.verify_email'));
    after(() => h.close());
    await h.register('quiet@example.org');
    await h.verify('quiet@example.org');
    await h.restart();
    assert.equal(
      (await h.login('quiet@example.org')).res.json().error,
      'EMAIL_NOT_VERIFIED',
      'the database had not heard yet',
    );
    await reconcileAfterLease(h);
    assert.equal((await h.login('quiet@example.org')).res.statusCode, 200);
  });
});

/** A member with an admin beside them; `faults` apply from the start. */
async function memberAndAdmin(faults: ReturnType<typeof crashAt>) {
  const h = await bridge(undefined, {}, faults);
  const admin = await h.member(ADMIN_EMAIL);
  const m = await h.member('payer@example.org');
  const principal = (
    await h.opened.db.selectFrom('users').select('principal').where('id', '=', m.user_id).executeTakeFirstOrThrow()
  ).principal;
  return { h, admin, m, principal };
}

describe('KYC: a crash at every step boundary (B27)', () => {
  for (const point of POINTS) {
    it(`crash at ${point}: after a restart the decision is in the database and the canister`, async () => {
      const { h, admin, m, principal } = await memberAndAdmin(crashAt(point, 'user.record_kyc'));
      after(() => h.close());
      const r = await h.request({
        method: 'POST',
        url: `/api/admin/users/${m.user_id}/kyc`,
        jar: admin.jar,
        payload: { approved: true, reference: 'kyc-ref-1' },
      });
      assert.equal(r.statusCode, 500);
      await h.restart();
      await reconcileAfterLease(h);
      const u = await h.opened.db
        .selectFrom('users')
        .select(['kyc_status', 'kyc_reference'])
        .where('id', '=', m.user_id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(u, { kyc_status: 'approved', kyc_reference: 'kyc-ref-1' });
      assert.equal((await account(h, principal))!.kyc_verified, true);
    });
  }
});

describe('payment webhook: a crash at every step boundary credits the payment exactly once (B27)', () => {
  for (const point of POINTS) {
    it(`crash at ${point}: the processor's retry is a duplicate, the reconciler applies the upgrade once`, async () => {
      const { h, admin, m, principal } = await memberAndAdmin(crashAt(point, 'user.upgrade_membership_to_active'));
      after(() => h.close());
      assert.equal(
        (
          await h.request({
            method: 'POST',
            url: `/api/admin/users/${m.user_id}/kyc`,
            jar: admin.jar,
            payload: { approved: true },
          })
        ).statusCode,
        200,
      );
      const ev = paymentEvent(m.user_id);
      assert.equal((await h.signedWebhook(ev)).statusCode, 500);
      await h.restart();
      // The processor retries what got a 500, more than once.
      for (let i = 0; i < 2; i++)
        assert.deepEqual((await h.signedWebhook(ev)).json(), { received: true, duplicate: true });
      await reconcileAfterLease(h);
      await h.app.outbox.reconcile();
      const payments = await h.opened.db.selectFrom('payments').select(['status', 'payment_id']).execute();
      assert.deepEqual(payments, [{ status: 'applied', payment_id: ev.data.object.id }]);
      const status = await h.opened.canisters.clients.membership.get_membership_status(principal);
      assert.equal(status!.status, 'Active');
      // One year credited: the end of this year. Applied twice it would be the end of next year.
      assert.equal(new Date(Number(status!.expiration_date / 1_000_000n)).toISOString(), '2026-12-31T23:59:59.000Z');
      // A second intent for the same member is a renewal an admin reviews (B19), never an automatic extension.
      const second = await h.signedWebhook(paymentEvent(m.user_id));
      assert.equal(second.json().status, 'escrow');
      assert.equal(
        (await h.opened.canisters.clients.membership.get_membership_status(principal))!.expiration_date,
        status!.expiration_date,
      );
    });
  }

  it('the canister does not answer: the webhook says pending, the reconciler applies it when the canister is back', async () => {
    let down = false;
    const { h, admin, m } = await memberAndAdmin({
      outboxFaults: (p, op) => {
        // A reply that never arrives (the call itself did its work, or not: the op id makes it safe).
        if (down && p === 'lost-reply' && op.operation === 'user.upgrade_membership_to_active')
          throw new Error('the user canister did not answer');
      },
    });
    after(() => h.close());
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: `/api/admin/users/${m.user_id}/kyc`,
          jar: admin.jar,
          payload: { approved: true },
        })
      ).statusCode,
      200,
    );
    down = true;
    const r = await h.signedWebhook(paymentEvent(m.user_id));
    assert.deepEqual(r.json(), { received: true, status: 'pending' });
    down = false;
    h.advance(5_000);
    await h.app.outbox.reconcile();
    assert.deepEqual(
      (await h.opened.db.selectFrom('payments').select('status').execute()).map((p) => p.status),
      ['applied'],
    );
    await waitFor(() => h.emails().find((e) => /Payment received/.test(e.subject)), 'the payment receipt');
    assert.equal(
      (await h.opened.canisters.clients.membership.get_membership_status(
        (
          await h.opened.db
            .selectFrom('users')
            .select('principal')
            .where('id', '=', m.user_id)
            .executeTakeFirstOrThrow()
        ).principal,
      ))!.status,
      'Active',
    );
  });
});

describe('expiry and password reset reach the canister (B26, B28)', () => {
  it('an unverified registration expires with its link: the address registers again, the old account leaves both stores', async () => {
    const h = await bridge();
    after(() => h.close());
    assert.equal((await h.register('squat@example.org')).statusCode, 201);
    const [old] = await userByEmailOrder(h);
    h.advance(24 * 3_600_000);
    assert.equal((await h.register('squat@example.org')).statusCode, 201, 'free once the link expired');
    const users = await userByEmailOrder(h);
    assert.equal(users.length, 1);
    assert.notEqual(users[0]!.id, old!.id);
    await h.app.outbox.reconcile();
    assert.equal(await account(h, old!.principal), undefined, 'the old account left the canister');
    assert.ok(await account(h, users[0]!.principal));
    await verifyAndLogin(h, 'squat@example.org');

    // The hourly job removes the ones nobody registers again.
    assert.equal((await h.register('forgotten@example.org')).statusCode, 201);
    const forgotten = (await userByEmailOrder(h)).find((u) => u.email_verified_at === null)!;
    h.advance(24 * 3_600_000);
    const run = await h.app.jobs.runNow('accounts:expire-unverified');
    assert.deepEqual(run.detail, { removed: 1 });
    await h.app.outbox.reconcile();
    assert.equal(
      (await userByEmailOrder(h)).some((u) => u.id === forgotten.id),
      false,
    );
    assert.equal(await account(h, forgotten.principal), undefined);
  });

  it("a password reset sets the canister account's hash too, through the outbox", async () => {
    const h = await bridge();
    after(() => h.close());
    const m = await h.member('forgetful@example.org');
    const before = await h.opened.db
      .selectFrom('users')
      .select(['principal', 'password_hash'])
      .where('id', '=', m.user_id)
      .executeTakeFirstOrThrow();
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: '/api/auth/password-reset/request',
          payload: { email: 'forgetful@example.org' },
        })
      ).statusCode,
      202,
    );
    const mail = await waitFor(() => h.emails().find((e) => /reset-password\?token=/.test(e.text)), 'the reset email');
    const token = /reset-password\?token=([A-Za-z0-9_-]{43})/.exec(mail.text)![1]!;
    const r = await h.request({
      method: 'POST',
      url: '/api/auth/password-reset/confirm',
      payload: { token, password: `${PASSWORD} again` },
    });
    assert.equal(r.statusCode, 200, r.body);
    const afterReset = await h.opened.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', m.user_id)
      .executeTakeFirstOrThrow();
    assert.notEqual(afterReset.password_hash, before.password_hash);
    const [op] = await h.app.outbox
      .list({ aggregate: `user:${m.user_id}` })
      .then((l) => l.filter((o) => o.operation === 'user.set_password_hash'));
    assert.equal(op!.state, 'done');
    // The canister never returns the hash (U1): read its state on the embedded host.
    const stored = h.opened.canisters
      .platform!.host.store<string, { password_hash: string }>('user', 'accounts')
      .get(before.principal);
    assert.equal(stored!.password_hash, afterReset.password_hash);
    assert.equal((await h.login('forgetful@example.org', `${PASSWORD} again`)).res.statusCode, 200);
  });

  for (const point of POINTS) {
    it(`password reset, crash at ${point}: after a restart the canister has the new hash and the new password signs in`, async () => {
      const h = await bridge(undefined, {}, crashAt(point, 'user.set_password_hash'));
      after(() => h.close());
      const m = await h.member('crashreset@example.org');
      const principal = (
        await h.opened.db.selectFrom('users').select('principal').where('id', '=', m.user_id).executeTakeFirstOrThrow()
      ).principal;
      await h.request({
        method: 'POST',
        url: '/api/auth/password-reset/request',
        payload: { email: 'crashreset@example.org' },
      });
      const mail = await waitFor(
        () => h.emails().find((e) => /reset-password\?token=/.test(e.text)),
        'the reset email',
      );
      const token = /reset-password\?token=([A-Za-z0-9_-]{43})/.exec(mail.text)![1]!;
      assert.equal(
        (
          await h.request({
            method: 'POST',
            url: '/api/auth/password-reset/confirm',
            payload: { token, password: `${PASSWORD} anew` },
          })
        ).statusCode,
        500,
      );
      await h.restart();
      await reconcileAfterLease(h);
      const hash = (
        await h.opened.db
          .selectFrom('users')
          .select('password_hash')
          .where('id', '=', m.user_id)
          .executeTakeFirstOrThrow()
      ).password_hash;
      assert.equal(
        h.opened.canisters.platform!.host.store<string, { password_hash: string }>('user', 'accounts').get(principal)!
          .password_hash,
        hash,
        'the stores agree',
      );
      assert.equal((await h.login('crashreset@example.org', `${PASSWORD} anew`)).res.statusCode, 200);
    });
  }
});
