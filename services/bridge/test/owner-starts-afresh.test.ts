// Decision B86 (issue 45 item 2): a registration confirmed by someone who did not choose its password
// starts afresh. The attacker registers the victim's address with their own name, date of birth and
// terms; the mailbox's owner confirms the link choosing a new password and gives their own answers; the
// account (the bridge's row, the user canister's account, what the member sees) holds only the owner's
// answers. Under 13 the owner is refused as spec 2 says (COPPA_BLOCK) and nothing is created or changed;
// bad input is a clear 400 that changes nothing. Decision B87: the link page asks the date of birth first.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loadKeys } from '../src/core/keys.ts';
import { createOpener } from '../src/core/identity/sealed-fields.ts';
import { bridge, eventually, type Bridge } from './harness.ts';

const ATTACKER = { name: 'Eve Attacker', password: 'attacker chose this one 42' };
const OWNER_PASSWORD = 'the mailbox owner picked this';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const DAY_MS = 86_400_000;
// The harness's clock: 2026-03-10T12:00:00Z.
const AGED = {
  adult: '1990-06-15',
  thirteenToday: '2013-03-10',
  thirteenTomorrow: '2013-03-11',
  eighteenToday: '2008-03-10',
  minor: '2011-01-20',
};

const tokenOf = (path: string) => new URL(path, 'https://x.example').searchParams.get('token')!;

async function opener(h: Bridge) {
  return createOpener((await loadKeys(h.config)).hpkePrivateKey);
}

/** The attacker registers first, with their own answers; the owner's mailbox gets the link. */
async function attackerRegisters(h: Bridge, email: string, dob: string) {
  const r = await h.register(email, { name: ATTACKER.name, dob, password: ATTACKER.password });
  assert.equal(r.statusCode, 201, r.body);
  const row = await h.opened.db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', r.json().user_id)
    .executeTakeFirstOrThrow();
  return { id: row.id, principal: row.principal, token: tokenOf(h.verificationPath(email)), at: h.now() };
}

/** Everything the confirmation could change: the rows, the outbox, the canister account, the sessions. */
async function state(h: Bridge, principal: string) {
  const db = h.opened.db;
  return {
    users: await db.selectFrom('users').selectAll().orderBy('id').execute(),
    outbox: (await h.app.outbox.list()).map((o) => [o.op_id, o.state]),
    canister: await h.opened.canisters.clients.user.get_account(principal),
    sessions: await db.selectFrom('sessions').select('user_id').execute(),
  };
}

async function answersFor(h: Bridge, email: string, name: string, dob: string) {
  const sealed = await h.encrypt({ email, name, dob });
  return { name_encrypted: sealed.name_encrypted, dob_encrypted: sealed.dob_encrypted, tos_accepted: true };
}

const confirmJson = (h: Bridge, body: Record<string, unknown>) =>
  h.request({ method: 'POST', url: '/api/auth/verify-email', payload: body });
const confirmForm = (h: Bridge, fields: Record<string, string>) =>
  h.request({ method: 'POST', url: '/verify-email', payload: new URLSearchParams(fields).toString(), headers: FORM });

/** What the member and the canister show of the account the owner signs in to. */
async function shownAccount(h: Bridge, email: string) {
  const { res, jar } = await h.login(email, OWNER_PASSWORD);
  assert.equal(res.statusCode, 200, res.body);
  const session = (await h.request({ method: 'GET', url: '/auth/session', jar })).json() as {
    user_id: string;
    roles: string[];
  };
  const upgrade = (await h.request({ method: 'GET', url: '/api/me/membership-upgrade', jar })).json() as {
    adult: boolean;
  };
  const row = await h.opened.db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', session.user_id)
    .executeTakeFirstOrThrow();
  const account = (await h.opened.canisters.clients.user.get_account(row.principal))!;
  const o = await opener(h);
  return {
    session,
    adult: upgrade.adult,
    row: {
      name: await o.open('name', row.name_encrypted),
      dob: await o.open('dob', row.dob_encrypted),
      is_minor: row.is_minor,
      principal: row.principal,
    },
    canister: {
      name: await o.open('name', account.name_encrypted),
      adult: account.is_age_verified_18_plus,
      verified: account.email_verified,
      tos_accepted_at: account.tos_accepted_at,
      membership: account.membership_token_id !== undefined,
    },
  };
}

describe("the mailbox owner's confirmation starts the account afresh (decision B86)", () => {
  it("decision B86: an adult attacker's name, date of birth and terms are gone; the minor owner's own answers (JSON route) are all the account shows", async () => {
    const h = await bridge();
    after(() => h.close());
    const attack = await attackerRegisters(h, 'victim@example.org', AGED.adult);
    h.advance(DAY_MS / 2);
    const mine = await answersFor(h, 'victim@example.org', 'Olive Owner', AGED.minor);
    const r = await confirmJson(h, { token: attack.token, new_password: OWNER_PASSWORD, ...mine });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), {
      status: 'verified',
      membership_token_pending: false,
      password: 'chosen',
      signed_in: true,
    });

    const shown = await shownAccount(h, 'victim@example.org');
    assert.notEqual(shown.session.user_id, attack.id, 'a new account, not the registration');
    assert.notEqual(shown.row.principal, attack.principal);
    assert.deepEqual(shown.session.roles, ['member']);
    assert.equal(shown.adult, false, "the owner is 15: the attacker's adult date of birth is gone");
    assert.deepEqual(shown.row, {
      name: 'Olive Owner',
      dob: AGED.minor,
      is_minor: true,
      principal: shown.row.principal,
    });
    assert.deepEqual(shown.canister, {
      name: 'Olive Owner',
      adult: false,
      verified: true,
      // The owner accepted the terms now, not the attacker half a day ago.
      tos_accepted_at: BigInt(h.now()) * 1_000_000n - 1n,
      membership: true,
    });
    // Nothing of the registration is left: its row, its canister account.
    assert.equal((await h.opened.db.selectFrom('users').select('id').execute()).length, 1);
    await eventually('the registration to leave the user canister', async () =>
      (await h.opened.canisters.clients.user.get_account(attack.principal)) === undefined ? true : undefined,
    );
    // The welcome email greets the owner; nothing sent after the confirmation names the attacker.
    await eventually('the welcome email', () =>
      h.emails().find((m) => /welcome/i.test(m.subject) && m.text.includes('Olive Owner')),
    );
    const afterwards = h.emails().filter((m) => !/confirm your email/i.test(m.text));
    assert.ok(afterwards.length > 0 && afterwards.every((m) => !m.text.includes(ATTACKER.name)));
    // Audited: who verified, which registration gave way.
    const completed = await h.opened.db
      .selectFrom('audit_log')
      .selectAll()
      .where('event', '=', 'verification.completed')
      .executeTakeFirstOrThrow();
    assert.equal(completed.actor, shown.session.user_id);
    assert.equal(completed.subject, attack.id);
    assert.equal((completed.detail as { started_afresh?: boolean }).started_afresh, true);
    assert.equal(h.logs.events('verification.started_afresh').length, 1);
    const logs = JSON.stringify(h.logs.lines());
    for (const secret of ['Olive Owner', AGED.minor, OWNER_PASSWORD, ATTACKER.name])
      assert.ok(!logs.includes(secret), `${secret} in the logs`);
  });

  it("decision B86 and B87: a minor attacker's answers are gone; the adult owner's answers through the link page's two steps are all the account shows", async () => {
    const h = await bridge();
    after(() => h.close());
    await attackerRegisters(h, 'adult@example.org', AGED.minor);
    // Exactly 18 today: an adult (spec 2 registration rule 1).
    const v = await h.verify('adult@example.org', {
      newPassword: OWNER_PASSWORD,
      name: 'Adam Owner',
      dob: AGED.eighteenToday,
    });
    assert.equal(v.statusCode, 200, v.body);
    assert.match(v.body, /Email verified/);
    const shown = await shownAccount(h, 'adult@example.org');
    assert.equal(shown.adult, true);
    assert.deepEqual([shown.row.name, shown.row.dob, shown.row.is_minor], ['Adam Owner', AGED.eighteenToday, false]);
    assert.deepEqual([shown.canister.name, shown.canister.adult], ['Adam Owner', true]);
    assert.equal((await h.login('adult@example.org', ATTACKER.password)).res.statusCode, 401);
  });

  it('decision B86: exactly 13 today is old enough (a minor); one day short is COPPA_BLOCK (403), and nothing is created or changed', async () => {
    const h = await bridge();
    after(() => h.close());
    const attack = await attackerRegisters(h, 'young@example.org', AGED.adult);
    const before = await state(h, attack.principal);
    const blocked = await confirmJson(h, {
      token: attack.token,
      new_password: OWNER_PASSWORD,
      ...(await answersFor(h, 'young@example.org', 'Young Owner', AGED.thirteenTomorrow)),
    });
    assert.equal(blocked.statusCode, 403);
    assert.equal(blocked.json().error, 'COPPA_BLOCK');
    assert.equal(blocked.json().message, 'registration requires an age of 13 or over');
    // The link page: the date alone, then the block screen (its script keeps the web app's block flag).
    const page = await confirmForm(h, { token: attack.token, dob: AGED.thirteenTomorrow });
    assert.equal(page.statusCode, 403);
    assert.match(page.body, /id="age-block"/);
    assert.match(page.body, /at least 13 years old/);
    assert.match(page.body, /<script src="\/pages\/page\.js"/);
    // A date changed in the second step's hidden field is checked again.
    const forged = await confirmForm(h, {
      token: attack.token,
      dob: AGED.thirteenTomorrow,
      name: 'Young Owner',
      new_password: OWNER_PASSWORD,
      tos_accepted: 'true',
    });
    assert.equal(forged.statusCode, 403);
    assert.match(forged.body, /id="age-block"/);
    assert.deepEqual(await state(h, attack.principal), before, 'nothing created, nothing changed');
    assert.deepEqual(
      h.logs.events('verification.refused').map((l) => l.error),
      ['COPPA_BLOCK', 'COPPA_BLOCK', 'COPPA_BLOCK'],
      'every refusal leaves a log line',
    );
    assert.equal(
      (await h.opened.db.selectFrom('audit_log').select('id').where('event', '=', 'verification.refused').execute())
        .length,
      3,
    );
    const logs = JSON.stringify(h.logs.lines());
    assert.ok(
      !logs.includes(AGED.thirteenTomorrow) && !logs.includes('Young Owner'),
      'neither the date nor the name is logged',
    );

    // At the limit: 13 today passes the first step (a minor) and creates the owner's account.
    const step = await confirmForm(h, { token: attack.token, dob: AGED.thirteenToday });
    assert.equal(step.statusCode, 200);
    assert.match(step.body, /You are under 18/);
    assert.match(step.body, /name="new_password"/);
    const ok = await confirmJson(h, {
      token: attack.token,
      new_password: OWNER_PASSWORD,
      ...(await answersFor(h, 'young@example.org', 'Young Owner', AGED.thirteenToday)),
    });
    assert.equal(ok.statusCode, 200, ok.body);
    const shown = await shownAccount(h, 'young@example.org');
    assert.deepEqual([shown.row.name, shown.row.is_minor, shown.adult], ['Young Owner', true, false]);
  });

  it('decision B86: bad answers are a clear 400 that changes nothing; the name at its limit (200 characters) is taken', async () => {
    const h = await bridge();
    after(() => h.close());
    const email = 'careful@example.org';
    const attack = await attackerRegisters(h, email, AGED.adult);
    const before = await state(h, attack.principal);
    const good = await answersFor(h, email, 'Carol Owner', AGED.adult);
    const sealed = async (name: string, dob: string) => answersFor(h, email, name, dob);
    const { tos_accepted: _t, ...noTerms } = good;
    const { dob_encrypted: _d, ...noDob } = good;
    const cases: Array<[string, Record<string, unknown>, number, string, RegExp]> = [
      [
        'a new password alone',
        { new_password: OWNER_PASSWORD },
        400,
        'VALIDATION_ERROR',
        /dob_encrypted, name_encrypted, tos_accepted/,
      ],
      ['no terms', { new_password: OWNER_PASSWORD, ...noTerms }, 400, 'VALIDATION_ERROR', /send your own tos_accepted/],
      [
        'terms refused',
        { new_password: OWNER_PASSWORD, ...good, tos_accepted: false },
        400,
        'VALIDATION_ERROR',
        /tos_accepted/,
      ],
      ['no date of birth', { new_password: OWNER_PASSWORD, ...noDob }, 400, 'VALIDATION_ERROR', /dob_encrypted/],
      [
        'an impossible date',
        { new_password: OWNER_PASSWORD, ...(await sealed('Carol Owner', '2001-02-30')) },
        400,
        'VALIDATION_ERROR',
        /real date of birth/,
      ],
      [
        'a date sealed as the name',
        { new_password: OWNER_PASSWORD, ...good, dob_encrypted: good.name_encrypted },
        400,
        'UNDECRYPTABLE',
        /could not be decrypted/,
      ],
      [
        'a blank name',
        { new_password: OWNER_PASSWORD, ...(await sealed('   ', AGED.adult)) },
        400,
        'VALIDATION_ERROR',
        /name must be 1 to 200/,
      ],
      [
        'a name of 201 characters',
        { new_password: OWNER_PASSWORD, ...(await sealed('n'.repeat(201), AGED.adult)) },
        400,
        'VALIDATION_ERROR',
        /name must be 1 to 200/,
      ],
      [
        'a name of two lines',
        { new_password: OWNER_PASSWORD, ...(await sealed('Carol\nOwner', AGED.adult)) },
        400,
        'VALIDATION_ERROR',
        /one line/,
      ],
      ['a weak new password', { new_password: 'short', ...good }, 400, 'WEAK_PASSWORD', /12 to 128/],
      [
        "answers with the registration's password",
        { password: ATTACKER.password, ...good },
        400,
        'VALIDATION_ERROR',
        /go with new_password only/,
      ],
    ];
    for (const [what, body, status, error, message] of cases) {
      const r = await confirmJson(h, { token: attack.token, ...body });
      assert.equal(r.statusCode, status, `${what}: ${r.body}`);
      assert.equal(r.json().error, error, what);
      assert.match(r.json().message, message, what);
    }
    // The link page says what is missing, keeping the step the person is on.
    const notADate = await confirmForm(h, { token: attack.token, dob: 'not a date' });
    assert.equal(notADate.statusCode, 400);
    assert.match(notADate.body, /Enter your date of birth\./);
    assert.match(notADate.body, /name="dob" type="date"/);
    const noTick = await confirmForm(h, {
      token: attack.token,
      dob: AGED.adult,
      name: 'Carol Owner',
      new_password: OWNER_PASSWORD,
    });
    assert.equal(noTick.statusCode, 400);
    assert.match(noTick.body, /Accept the terms of membership to continue\./);
    assert.match(noTick.body, /value="Carol Owner"/);
    assert.doesNotMatch(noTick.body, new RegExp(OWNER_PASSWORD), 'the password is never sent back');
    const weak = await confirmForm(h, {
      token: attack.token,
      dob: AGED.adult,
      name: 'Carol Owner',
      new_password: 'short',
      tos_accepted: 'true',
    });
    assert.equal(weak.statusCode, 400);
    assert.match(weak.body, /Password: the password must be/);
    const oldForm = await confirmForm(h, { token: attack.token, new_password: OWNER_PASSWORD });
    assert.equal(oldForm.statusCode, 400, 'the former one-field form no longer verifies');
    assert.match(oldForm.body, /Enter your date of birth\./);

    assert.deepEqual(await state(h, attack.principal), before, 'nothing changed');
    // The schema's own refusal (terms false) and the route's shape checks are not confirmations; the rest are audited
    // and logged.
    const audited = ['VALIDATION_ERROR', 'VALIDATION_ERROR', 'VALIDATION_ERROR', 'VALIDATION_ERROR', 'UNDECRYPTABLE'];
    const expected = [
      ...audited,
      'VALIDATION_ERROR',
      'VALIDATION_ERROR',
      'VALIDATION_ERROR',
      'WEAK_PASSWORD',
      'VALIDATION_ERROR',
      'VALIDATION_ERROR',
      'WEAK_PASSWORD',
      'VALIDATION_ERROR',
    ];
    assert.deepEqual(
      h.logs.events('verification.refused').map((l) => l.error),
      expected,
    );
    const rows = await h.opened.db
      .selectFrom('audit_log')
      .select(['detail'])
      .where('event', '=', 'verification.refused')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      rows.map((r) => (r.detail as { error: string }).error),
      expected,
    );

    // At the limit: a name of 200 characters is the owner's name.
    const longest = 'n'.repeat(200);
    const ok = await confirmJson(h, {
      token: attack.token,
      new_password: OWNER_PASSWORD,
      ...(await sealed(longest, AGED.adult)),
    });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal((await shownAccount(h, email)).row.name, longest);
  });

  it("decision B86: a confirmation with the registration's password still being finished is not raced: starting afresh waits (503) and changes nothing", async () => {
    const lost = true;
    const h = await bridge(
      undefined,
      {},
      {
        outboxFaults: (point, op) => {
          if (lost && point === 'lost-reply' && op.operation === 'user.verify_email')
            throw new Error('user canister unreachable');
        },
      },
    );
    after(() => h.close());
    const attack = await attackerRegisters(h, 'both@example.org', AGED.adult);
    const typed = await confirmJson(h, { token: attack.token, password: ATTACKER.password });
    assert.equal(typed.statusCode, 503, typed.body);
    const before = await state(h, attack.principal);
    const mine = await answersFor(h, 'both@example.org', 'Bo Owner', AGED.adult);
    const r = await confirmJson(h, { token: attack.token, new_password: OWNER_PASSWORD, ...mine });
    assert.equal(r.statusCode, 503, r.body);
    assert.equal(r.json().error, 'VERIFICATION_UNAVAILABLE');
    assert.match(r.json().message, /still being finished/);
    assert.deepEqual(await state(h, attack.principal), before, 'nothing changed');
    assert.deepEqual(
      h.logs.events('verification.refused').map((l) => l.error),
      ['VERIFICATION_UNAVAILABLE', 'VERIFICATION_UNAVAILABLE'],
    );
  });

  it("decision B86: while the user canister's answer is lost the answers are kept (503); the account is created and verified once it does, and the link then reads used", async () => {
    let down = false;
    const h = await bridge(
      undefined,
      {},
      {
        // The canister's reply is lost: the bridge cannot tell whether the account exists.
        outboxFaults: (point, op) => {
          if (down && point === 'lost-reply' && op.operation === 'user.create_confirmed_account')
            throw new Error('user canister unreachable');
        },
      },
    );
    after(() => h.close());
    const attack = await attackerRegisters(h, 'patient@example.org', AGED.adult);
    down = true;
    const mine = await answersFor(h, 'patient@example.org', 'Pat Owner', AGED.adult);
    const r = await confirmJson(h, { token: attack.token, new_password: OWNER_PASSWORD, ...mine });
    assert.equal(r.statusCode, 503, r.body);
    assert.equal(r.json().error, 'VERIFICATION_UNAVAILABLE');
    assert.match(r.json().message, /answers are saved/);
    // The link still opens; a second confirmation waits for the first instead of racing it.
    assert.equal((await h.request({ method: 'GET', url: `/verify-email?token=${attack.token}` })).statusCode, 200);
    const again = await confirmJson(h, { token: attack.token, new_password: 'another owner password', ...mine });
    assert.equal(again.json().error, 'VERIFICATION_UNAVAILABLE');
    const typed = await confirmJson(h, { token: attack.token, password: OWNER_PASSWORD });
    assert.equal(typed.json().error, 'VERIFICATION_UNAVAILABLE');
    assert.equal((await h.login('patient@example.org', OWNER_PASSWORD)).res.json().error, 'EMAIL_NOT_VERIFIED');
    down = false;
    h.advance(10 * 60_000);
    await h.app.outbox.reconcile();
    await h.app.outbox.reconcile();
    const shown = await shownAccount(h, 'patient@example.org');
    assert.deepEqual([shown.row.name, shown.canister.verified], ['Pat Owner', true]);
    const used = await confirmJson(h, { token: attack.token, new_password: OWNER_PASSWORD, ...mine });
    assert.equal(used.json().error, 'VERIFICATION_LINK_USED');
  });
});
