// Decision B51: whoever controls the mailbox ends up in sole control of the account. A registration
// made in someone else's name (the attacker's password on the victim's address) never signs in to the
// account the mailbox's owner verifies, for a member and for a bootstrap admin address; the link
// proves the mailbox, the confirmation proves the password or sets a new one.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ADMIN_EMAIL, bridge, eventually, OWNER_DOB, OWNER_NAME, type Bridge } from './harness.ts';

const ATTACKER_PASSWORD = 'attacker chose this one 42';
const VICTIM_PASSWORD = 'the mailbox owner picked this';

const verificationMails = (h: Bridge, email: string) =>
  h.emails().filter((m) => m.to.includes(email) && /confirm your email/i.test(m.text));
const tokenOf = (path: string) => new URL(path, 'https://x.example').searchParams.get('token')!;

async function sessionRoles(h: Bridge, email: string, password: string) {
  const { res, jar } = await h.login(email, password);
  if (res.statusCode !== 200) return { status: res.statusCode, error: res.json().error as string };
  return {
    status: 200,
    roles: (await h.request({ method: 'GET', url: '/auth/session', jar })).json().roles as string[],
  };
}

/** The attack as reported: the attacker registers first; the owner asks for a new link and opens it. */
async function attackThenOwnerFollowsLink(h: Bridge, email: string) {
  assert.equal((await h.register(email, { password: ATTACKER_PASSWORD })).statusCode, 201);
  const before = verificationMails(h, email).length;
  assert.equal(
    (await h.request({ method: 'POST', url: '/api/auth/resend-verification', payload: { email } })).statusCode,
    202,
  );
  await eventually('the new verification email', () => verificationMails(h, email).length > before || undefined);
  const path = h.verificationPath(email);
  // Opening the link verifies nothing: the account stays unverified until the page's form is sent.
  const page = await h.request({ method: 'GET', url: path });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /enter the password you chose/i);
  assert.equal(
    (await h.login(email, ATTACKER_PASSWORD)).res.json().error,
    'EMAIL_NOT_VERIFIED',
    'opening the link verified nothing',
  );
  // The owner's own password is not the registration's: refused, and the page offers to choose one.
  const wrong = await h.verify(email, { password: VICTIM_PASSWORD });
  assert.equal(wrong.statusCode, 401);
  assert.match(wrong.body, /choose a new one/i);
  const chosen = await h.verify(email, { newPassword: VICTIM_PASSWORD });
  assert.equal(chosen.statusCode, 200, chosen.body);
  assert.match(chosen.body, /verified/);
}

describe('pre-account takeover (decision B51)', () => {
  it('decision B51: a member: the attacker who registered the address first never signs in once the mailbox owner verifies it', async () => {
    const h = await bridge();
    after(() => h.close());
    await attackThenOwnerFollowsLink(h, 'victim@example.org');
    assert.deepEqual(await sessionRoles(h, 'victim@example.org', ATTACKER_PASSWORD), {
      status: 401,
      error: 'INVALID_CREDENTIALS',
    });
    assert.deepEqual(await sessionRoles(h, 'victim@example.org', VICTIM_PASSWORD), { status: 200, roles: ['member'] });
    assert.ok(h.logs.events('verification.password_refused').length >= 1, 'the refused password is logged');
    const logs = JSON.stringify(h.logs.lines());
    for (const secret of ['victim@example.org', ATTACKER_PASSWORD, VICTIM_PASSWORD])
      assert.ok(!logs.includes(secret), `${secret} in the logs`);
    // Decision B86: the registration left the canister and the owner's account was created there, verified.
    const u = await h.opened.db.selectFrom('users').select(['principal']).executeTakeFirstOrThrow();
    const ops = await h.app.outbox.list();
    for (const operation of ['user.remove_unverified_account', 'user.create_confirmed_account'])
      assert.deepEqual(
        ops.filter((o) => o.operation === operation).map((o) => o.state),
        ['done'],
        operation,
      );
    assert.equal((await h.opened.canisters.clients.user.get_account(u.principal))?.email_verified, true);
  });

  it('decision B51: a bootstrap admin address: the attacker never gets admin; the mailbox owner does, with the password they chose', async () => {
    const h = await bridge();
    after(() => h.close());
    await attackThenOwnerFollowsLink(h, ADMIN_EMAIL);
    assert.deepEqual(await sessionRoles(h, ADMIN_EMAIL, ATTACKER_PASSWORD), {
      status: 401,
      error: 'INVALID_CREDENTIALS',
    });
    assert.deepEqual(await sessionRoles(h, ADMIN_EMAIL, VICTIM_PASSWORD), { status: 200, roles: ['member', 'admin'] });
  });

  it('decision B51: the attacker alone (no mailbox) gets nothing: no verification, no session, no admin', async () => {
    const h = await bridge();
    after(() => h.close());
    assert.equal((await h.register(ADMIN_EMAIL, { password: ATTACKER_PASSWORD })).statusCode, 201);
    for (const token of ['00000000-0000-4000-8000-000000000000', 'x'.repeat(64)]) {
      const form = new URLSearchParams({ token, password: ATTACKER_PASSWORD }).toString();
      const r = await h.request({
        method: 'POST',
        url: '/verify-email',
        payload: form,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(r.statusCode, 400);
      const api = await h.request({
        method: 'POST',
        url: '/api/auth/verify-email',
        payload: { token, new_password: VICTIM_PASSWORD },
      });
      assert.equal(api.statusCode, 400);
      assert.equal(api.json().error, 'VERIFICATION_LINK_INVALID');
    }
    assert.deepEqual(await sessionRoles(h, ADMIN_EMAIL, ATTACKER_PASSWORD), {
      status: 403,
      error: 'EMAIL_NOT_VERIFIED',
    });
  });

  it('decision B51: registering an unverified address again replaces the pending registration: its links die, the new password is the one that counts, the old canister account is removed', async () => {
    const h = await bridge();
    after(() => h.close());
    assert.equal((await h.register('taken@example.org', { password: ATTACKER_PASSWORD })).statusCode, 201);
    const attackerLink = h.verificationPath('taken@example.org');
    const [first] = await h.opened.db.selectFrom('users').select(['id', 'principal']).execute();
    const again = await h.register('taken@example.org', { password: VICTIM_PASSWORD });
    assert.equal(again.statusCode, 201, again.body);
    assert.notEqual(again.json().user_id, first!.id);
    assert.equal(
      (await h.request({ method: 'GET', url: attackerLink })).statusCode,
      400,
      "the replaced registration's link is dead",
    );
    const form = new URLSearchParams({
      token: tokenOf(attackerLink),
      new_password: 'a third password here',
    }).toString();
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: '/verify-email',
          payload: form,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
      ).statusCode,
      400,
      'and cannot set a password',
    );
    await eventually('the replaced account to leave the canister', async () =>
      (await h.opened.canisters.clients.user.get_account(first!.principal)) === undefined ? true : undefined,
    );
    assert.equal((await h.verify('taken@example.org', { password: VICTIM_PASSWORD })).statusCode, 200);
    assert.equal((await h.login('taken@example.org', ATTACKER_PASSWORD)).res.statusCode, 401);
    assert.equal((await h.login('taken@example.org', VICTIM_PASSWORD)).res.statusCode, 200);
    assert.ok(h.logs.events('registration.replaced').length === 1);
    // Once verified, the address is held: spec 2's EMAIL_EXISTS.
    const held = await h.register('taken@example.org', { password: ATTACKER_PASSWORD });
    assert.equal(held.statusCode, 409);
    assert.equal(held.json().error, 'EMAIL_EXISTS');
  });

  it('decision B51: wrong passwords on a link are limited (LOGIN_MAX_FAILURES per link, then 429), choosing a new one still works; a weak new password keeps the link usable', async () => {
    const h = await bridge();
    after(() => h.close());
    assert.equal((await h.register('typo@example.org')).statusCode, 201);
    const token = tokenOf(h.verificationPath('typo@example.org'));
    // Decision B86: a new password goes with the owner's own answers.
    const answers = await h.encrypt({ email: 'typo@example.org', name: OWNER_NAME, dob: OWNER_DOB });
    const mine = { name_encrypted: answers.name_encrypted, dob_encrypted: answers.dob_encrypted, tos_accepted: true };
    const confirm = (body: Record<string, unknown>) =>
      h.request({ method: 'POST', url: '/api/auth/verify-email', payload: { token, ...body } });
    for (let i = 1; i <= h.config.LOGIN_MAX_FAILURES; i++)
      assert.equal((await confirm({ password: `not it, try ${i}` })).statusCode, 401, `guess ${i}`);
    const over = await confirm({ password: 'correct horse battery staple' });
    assert.equal(over.statusCode, 429, 'one past the limit: even the right password waits');
    assert.equal(over.json().error, 'TOO_MANY_ATTEMPTS');
    const weak = await confirm({ new_password: 'short', ...mine });
    assert.equal(weak.statusCode, 400);
    assert.equal(weak.json().error, 'WEAK_PASSWORD');
    const both = await confirm({ password: 'correct horse battery staple', new_password: VICTIM_PASSWORD });
    assert.equal(both.json().error, 'VALIDATION_ERROR');
    assert.equal(
      (await h.request({ method: 'POST', url: '/api/auth/verify-email', payload: { token } })).json().error,
      'VALIDATION_ERROR',
    );
    const ok = await confirm({ new_password: VICTIM_PASSWORD, ...mine });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().status, 'verified');
    assert.equal(ok.json().password, 'chosen');
    assert.equal(
      (await confirm({ new_password: 'yet another long one', ...mine })).json().error,
      'VERIFICATION_LINK_USED',
    );
    assert.deepEqual(
      h.logs.events('verification.refused').map((l) => l.error),
      ['TOO_MANY_ATTEMPTS', 'WEAK_PASSWORD', 'VERIFICATION_LINK_USED'],
      'every refusal leaves a log line',
    );
    assert.equal((await h.login('typo@example.org', VICTIM_PASSWORD)).res.statusCode, 200);
  });

  it('decision B51: the link page carries no script and cannot be framed; decision B105: it sends its origin alone as referrer, never the link', async () => {
    const h = await bridge();
    after(() => h.close());
    assert.equal((await h.register('page@example.org')).statusCode, 201);
    const page = await h.request({ method: 'GET', url: h.verificationPath('page@example.org') });
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /<script/i);
    assert.doesNotMatch(String(page.headers['content-security-policy']), /script-src|unsafe-inline'; *script/);
    assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(page.headers['referrer-policy'], 'strict-origin');
    // Decision B87: choosing a password asks the date of birth first, then the rest; no script on either step.
    const choose = await h.request({ method: 'GET', url: `${h.verificationPath('page@example.org')}&choose=1` });
    assert.match(choose.body, /name="dob"/);
    assert.doesNotMatch(choose.body, /name="new_password"|<script/i);
    const token = tokenOf(h.verificationPath('page@example.org'));
    const rest = await h.request({
      method: 'POST',
      url: '/verify-email',
      payload: new URLSearchParams({ token, dob: OWNER_DOB }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(rest.statusCode, 200);
    assert.match(rest.body, /name="new_password"/);
    assert.doesNotMatch(rest.body, /<script/i);
    assert.equal(rest.headers['content-security-policy'], page.headers['content-security-policy']);
  });
});
