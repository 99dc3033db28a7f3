// Decisions B82, B83 and B85 through HTTP (issue 45 item 1): an address is stored, compared and mailed
// in one canonical form. A look-alike of another address (NFKC: `ᵃdmin@`, fullwidth letters) is refused
// with 400 VALIDATION_ERROR, a log line and an audit row; the same mailbox written another way (case, a
// trailing dot, quotes around a plain local part) is one account, mailed at its canonical form; a
// bootstrap admin is the exact configured address. Every canonical address passes the notification
// service's own `to` rule (decision D12).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ConfigError } from '@domdao/config';
import { addressProblem } from '@domdao/notification-service/email-address';
import { loadBridgeConfig } from '../src/config.ts';
import { canonicalEmail, normaliseEmail } from '../src/core/identity/email.ts';
import { createOpener } from '../src/core/identity/sealed-fields.ts';
import { loadKeys } from '../src/core/keys.ts';
import { bridge, eventually, type Bridge } from './harness.ts';

const PASSWORD = 'correct horse battery staple';
const BOOTSTRAP = 'admin@domdao.localhost';

const verificationMails = (h: Bridge, to: string) =>
  h.emails().filter((m) => m.to.includes(to) && /confirm your email/i.test(m.text));
const users = async (h: Bridge) =>
  (await h.opened.db.selectFrom('users').select(['id', 'email_encrypted']).execute()).length;

async function rolesOf(h: Bridge, email: string): Promise<string[]> {
  const { res, jar } = await h.login(email);
  assert.equal(res.statusCode, 200, res.body);
  return (await h.request({ method: 'GET', url: '/auth/session', jar })).json().roles as string[];
}

async function refusals(h: Bridge): Promise<Array<Record<string, unknown>>> {
  const rows = await h.opened.db
    .selectFrom('audit_log')
    .select(['detail', 'outcome'])
    .where('event', '=', 'registration.refused')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    outcome: r.outcome,
    ...(typeof r.detail === 'string' ? (JSON.parse(r.detail) as object) : r.detail),
  }));
}

/** What the account's sealed address opens to: the form the bridge stores. */
async function storedAddress(h: Bridge, userId: string): Promise<string> {
  const opener = await createOpener((await loadKeys(h.config)).hpkePrivateKey);
  const row = await h.opened.db
    .selectFrom('users')
    .select('email_encrypted')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return opener.open('email', row.email_encrypted);
}

describe('one canonical form per address (decision B82)', () => {
  it('decision B82: a look-alike of the bootstrap admin address (U+1D43 ᵃdmin@, fullwidth and other NFKC forms) is refused with 400 VALIDATION_ERROR, stores and mails nothing, and leaves a log line and an audit row; the real address then registers and is admin', async (t) => {
    const h = await bridge(undefined, { BOOTSTRAP_ADMIN_EMAILS: BOOTSTRAP });
    t.after(() => h.close());
    const lookalikes = [
      '\u1d43dmin@domdao.localhost', // ᵃ MODIFIER LETTER SMALL A, the issue's case
      '\uff41\uff44\uff4d\uff49\uff4e@domdao.localhost', // ａｄｍｉｎ fullwidth
      'admin\uff20domdao.localhost', // a fullwidth at sign
      'admin@\uff44\uff4f\uff4d\uff44\uff41\uff4f.localhost', // a fullwidth domain
      '\u1d2cdmin@domdao.localhost', // ᴬ modifier capital A
      '\u{1d41a}dmin@domdao.localhost', // 𝐚 mathematical bold
      '\u24d0dmin@domdao.localhost', // ⓐ circled
      'ad\u2098in@domdao.localhost', // ₘ subscript
    ];
    for (const email of lookalikes) {
      assert.equal(normaliseEmail(email), BOOTSTRAP, `${email} is a look-alike of the bootstrap address`);
      const r = await h.register(email);
      assert.equal(r.statusCode, 400, `${email}: ${r.body}`);
      assert.equal(r.json().error, 'VALIDATION_ERROR', "the spec's code for a bad field");
      assert.match(
        r.json().message,
        /^email contains characters that stand for other characters.*ordinary characters$/,
      );
    }
    assert.equal(await users(h), 0, 'nothing stored');
    assert.equal(h.emails().length, 0, 'nothing mailed');
    assert.deepEqual(
      await refusals(h),
      lookalikes.map(() => ({ outcome: 'failure', error: 'VALIDATION_ERROR', reason: 'compatibility_characters' })),
      'one audit row per refusal',
    );
    assert.equal(h.logs.events('registration.refused').length, lookalikes.length, 'one log line per refusal');
    const logs = JSON.stringify(h.logs.lines());
    for (const email of lookalikes) assert.ok(!logs.includes(email), 'the address is not logged');

    // The mailbox's owner is not kept out: the real address registers, and only it is admin.
    const real = await h.register(BOOTSTRAP);
    assert.equal(real.statusCode, 201, real.body);
    assert.equal((await h.verify(BOOTSTRAP)).statusCode, 200);
    assert.deepEqual(await rolesOf(h, BOOTSTRAP), ['member', 'admin']);
    // A look-alike of a held address is still a refused form, not EMAIL_EXISTS (the answer reveals nothing).
    assert.equal((await h.register('\u1d43dmin@domdao.localhost')).json().error, 'VALIDATION_ERROR');
  });

  it('decision B82: the same mailbox written with a trailing dot, quotes around the local part or capitals is one account: registered once, mailed at the canonical form, EMAIL_EXISTS in every other form once verified', async (t) => {
    const h = await bridge();
    t.after(() => h.close());
    const first = await h.register('x@example.com.');
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(
      first.json().verification_email_sent,
      true,
      'the notification service accepted what the bridge mailed (decision D12)',
    );
    assert.equal(verificationMails(h, 'x@example.com').length, 1, 'mailed to the canonical form');
    assert.equal(h.emails()[0]!.to.join(), 'x@example.com');
    assert.equal(await storedAddress(h, first.json().user_id), 'x@example.com', 'stored in the canonical form');
    assert.equal((await h.verify('x@example.com')).statusCode, 200);
    for (const variant of [
      'x@example.com',
      '"x"@example.com',
      'X@EXAMPLE.COM.',
      ' "X"@Example.Com ',
      '"\\x"@example.com',
    ]) {
      const r = await h.register(variant);
      assert.equal(r.statusCode, 409, `${variant}: ${r.body}`);
      assert.equal(r.json().error, 'EMAIL_EXISTS');
    }
    assert.equal(await users(h), 1, 'one account for the mailbox');
    for (const variant of ['"x"@example.com', 'x@example.com.'])
      assert.equal((await h.login(variant)).res.statusCode, 200, `signs in as ${variant}`);

    // A quoted local part registered first is mailed and stored unquoted.
    const quoted = await h.register('"Quinn.Q"@Example.org');
    assert.equal(quoted.statusCode, 201, quoted.body);
    assert.equal(quoted.json().verification_email_sent, true);
    assert.equal(await storedAddress(h, quoted.json().user_id), 'quinn.q@example.org');
    assert.equal(verificationMails(h, 'quinn.q@example.org').length, 1);
    assert.equal(
      h.emails().filter((m) => m.to.some((to) => to.includes('"'))).length,
      0,
      'no quoted address is mailed',
    );
  });

  it('decision B82: delivery goes to the stored canonical form: a mixed-case address is stored, mailed, resent and reset in lower case', async (t) => {
    const h = await bridge();
    t.after(() => h.close());
    const r = await h.register('  Mixed.Case@Example.ORG ');
    assert.equal(r.statusCode, 201, r.body);
    assert.equal(await storedAddress(h, r.json().user_id), 'mixed.case@example.org');
    const post = (url: string, email: string) => h.request({ method: 'POST', url, payload: { email } });
    assert.equal((await post('/api/auth/resend-verification', 'MIXED.CASE@example.org')).statusCode, 202);
    assert.equal((await post('/api/auth/password-reset/request', 'mixed.case@EXAMPLE.org')).statusCode, 202);
    await eventually('the resent link and the reset email', () => h.emails().length >= 3 || undefined);
    assert.deepEqual(
      h.emails().map((m) => m.to.join()),
      ['mixed.case@example.org', 'mixed.case@example.org', 'mixed.case@example.org'],
      'registration, resend and reset all mail the one stored form',
    );
    assert.equal((await h.verify('mixed.case@example.org')).statusCode, 200);
  });

  it('decision B82: forms the bridge cannot mail as typed are refused with their reason: spaces inside quotes, invisible characters, an encoded or mapped domain, a domain literal', async (t) => {
    const h = await bridge();
    t.after(() => h.close());
    const cases: Array<[string, string, RegExp]> = [
      ['"ada lovelace"@example.com', 'invisible_characters', /without spaces/],
      ['"ada..x"@example.com', 'quoted_local_part', /quoted/],
      ['ada\u200b@example.com', 'invisible_characters', /invisible/],
      ['ada@exam\u00adple.com', 'invisible_characters', /invisible/],
      ['ada@xn--bcher-kva.example', 'domain_form', /domain/],
      ['ada@example\u3002com', 'domain_form', /domain/],
      ['ada@[127.0.0.1]', 'not_an_address', /not a valid/],
      ['ada@example.com..', 'not_an_address', /not a valid/],
    ];
    for (const [email, , message] of cases) {
      const r = await h.register(email);
      assert.equal(r.statusCode, 400, `${email}: ${r.body}`);
      assert.equal(r.json().error, 'VALIDATION_ERROR');
      assert.match(r.json().message, message, email);
    }
    assert.deepEqual(
      (await refusals(h)).map((d) => d.reason),
      cases.map(([, reason]) => reason),
    );
    assert.equal(await users(h), 0);
    // The Unicode spelling of that domain is an ordinary address: accepted and mailed.
    const idn = await h.register('Jörg@Bücher.example');
    assert.equal(idn.statusCode, 201, idn.body);
    assert.equal(idn.json().verification_email_sent, true);
    assert.equal(await storedAddress(h, idn.json().user_id), 'jörg@bücher.example');
  });

  it("decisions B82 and D12: every address the bridge would store passes the notification service's `to` rule, and is its own canonical and lookup form", () => {
    // Mostly ordinary characters, with the ones every rule is about mixed in.
    const mix = (plain: string, odd: string[]) =>
      fc.oneof(
        { arbitrary: fc.constantFrom(...plain.split('')), weight: 6 },
        { arbitrary: fc.constantFrom(...odd), weight: 1 },
      );
    const odd = [...'.-_+!\'"\\ @()<>[],;üÜßé́ẞİKςΣᵃａ＠。­​'.split(''), 'xn--'];
    const local = fc.string({ unit: mix('abcXYZ09', odd), minLength: 1, maxLength: 16 });
    const label = fc.string({
      unit: mix('abcxyz09', ['-', 'ü', 'ß', 'é', 'xn--', '。', 'ａ', 'A']),
      minLength: 1,
      maxLength: 10,
    });
    const structured = fc
      .tuple(
        local,
        fc.boolean(),
        fc.array(label, { minLength: 1, maxLength: 3 }),
        fc.constantFrom('com', 'org', 'Example', 'de', '123', 'xn--p1ai'),
        fc.constantFrom('', '.', ' '),
      )
      .map(([l, quoted, labels, tld, end]) => `${quoted ? `"${l}"` : l}@${[...labels, tld].join('.')}${end}`);
    const noise = fc.string({ unit: mix('aZ0.@', odd), maxLength: 40 });
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof(structured, noise), (typed) => {
        const c = canonicalEmail(typed);
        if (!('address' in c)) return;
        accepted++;
        assert.equal(addressProblem(c.address), undefined, `${JSON.stringify(typed)} → ${c.address}`);
        assert.deepEqual(canonicalEmail(c.address), c, 'canonical forms are fixed points');
        assert.equal(normaliseEmail(c.address), c.address, 'the lookup form of a stored address is itself');
        assert.equal(normaliseEmail(typed), c.address, 'a typed form is looked up as its canonical form');
      }),
      { numRuns: 5000, seed: 45 },
    );
    assert.ok(accepted > 500, `the generator reached canonical addresses (${accepted})`);
  });
});

describe('a bootstrap admin is the exact configured address (decision B83)', () => {
  it('decision B83: an account whose stored address is a look-alike of a bootstrap address (one registered before decision B82) gets member, not admin, when verified', async (t) => {
    const h = await bridge(undefined, { BOOTSTRAP_ADMIN_EMAILS: BOOTSTRAP });
    t.after(() => h.close());
    const r = await h.register('legacy@domdao.localhost');
    assert.equal(r.statusCode, 201, r.body);
    // What the old registration stored for `ᵃdmin@`: the client's ciphertext of the typed form.
    const sealed = await h.encrypt({ email: '\u1d43dmin@domdao.localhost', name: 'Mallory', dob: '1990-01-01' });
    await h.opened.db
      .updateTable('users')
      .set({ email_encrypted: sealed.email_encrypted })
      .where('id', '=', r.json().user_id)
      .execute();
    assert.equal((await h.verify('legacy@domdao.localhost')).statusCode, 200);
    assert.deepEqual(await rolesOf(h, 'legacy@domdao.localhost'), ['member'], 'no admin for a look-alike');
    const granted = await h.opened.db
      .selectFrom('audit_log')
      .select('id')
      .where('event', '=', 'roles.bootstrap_admin_granted')
      .execute();
    assert.equal(granted.length, 0);
  });

  it('decision B83: a BOOTSTRAP_ADMIN_EMAILS entry that is not an address registration accepts is refused at start; capitals in an entry are only case', async (t) => {
    assert.throws(
      () => loadBridgeConfig({ BOOTSTRAP_ADMIN_EMAILS: `${BOOTSTRAP}, \u1d43dmin@domdao.localhost,root@localhost` }),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.problems.filter((p) => p.startsWith('BOOTSTRAP_ADMIN_EMAILS:')).length === 2 &&
        e.problems.some((p) => p.includes('ordinary characters')),
    );
    const h = await bridge(undefined, { BOOTSTRAP_ADMIN_EMAILS: 'Admin@DomDAO.localhost' });
    t.after(() => h.close());
    assert.equal((await h.register(BOOTSTRAP, { password: PASSWORD })).statusCode, 201);
    assert.equal((await h.verify(BOOTSTRAP)).statusCode, 200);
    assert.deepEqual(await rolesOf(h, BOOTSTRAP), ['member', 'admin']);
  });
});
