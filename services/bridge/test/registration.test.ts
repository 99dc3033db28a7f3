// Spec 2 registration through HTTP: encrypted fields (HPKE), the rules in order (COPPA_BLOCK,
// EMAIL_EXISTS, password strength), what is stored and what never is, the verification email and link.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import argon2 from 'argon2';
import { ADMIN_EMAIL, bridge, type Bridge } from './harness.ts';
import { generateRegistrationKey } from '../src/core/identity/sealed-fields.ts';
import { encryptRegistration } from '@domdao/registration/seal';

const PASSWORD = 'correct horse battery staple';

async function dump(h: Bridge): Promise<string> {
  const users = await h.opened.db.selectFrom('users').selectAll().execute();
  return JSON.stringify(users, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v));
}

describe('registration rules (spec 2 Registration rules, decisions B4, B5)', () => {
  let h: Bridge;
  before(async () => {
    // Decision B5's cost, as a bridge opened from configuration hashes (the harness's own is R23's).
    h = await bridge(undefined, {}, { productionPasswords: true });
  });
  after(() => h.close());

  it('the registration key is published with its suite', async () => {
    const k = (await h.request({ method: 'GET', url: '/api/auth/registration-key' })).json();
    assert.match(k.public_key, /^[A-Za-z0-9_-]{87}$/);
    assert.deepEqual([k.kem, k.kdf, k.aead], ['DHKEM(P-256, HKDF-SHA256)', 'HKDF-SHA256', 'AES-256-GCM']);
  });

  it('under 13: COPPA_BLOCK, no account, nothing personal stored or logged, no email', async () => {
    const before = h.emails().length;
    const today = new Date(h.now());
    const twelve = `${today.getUTCFullYear() - 13}-${String(today.getUTCMonth() + 1).padStart(2, '0')}-${String(today.getUTCDate() + 1).padStart(2, '0')}`;
    const r = await h.register('kid@example.org', { dob: twelve, name: 'Little Kid' });
    assert.equal(r.statusCode, 403);
    assert.equal(r.json().error, 'COPPA_BLOCK');
    assert.equal((await h.opened.db.selectFrom('users').select('id').execute()).length, 0);
    assert.equal(h.emails().length, before);
    const logs = h.logs
      .lines()
      .map((l) => JSON.stringify(l))
      .join('\n');
    for (const secret of ['kid@example.org', 'Little Kid', twelve])
      assert.ok(!logs.includes(secret), `${secret} appears in the logs`);
  });

  it('exactly 13 today may register (the birthday counts)', async () => {
    const t = new Date(h.now());
    const thirteen = `${t.getUTCFullYear() - 13}-${String(t.getUTCMonth() + 1).padStart(2, '0')}-${String(t.getUTCDate()).padStart(2, '0')}`;
    const r = await h.register('teen@example.org', { dob: thirteen });
    assert.equal(r.statusCode, 201, r.body);
    const row = await h.opened.db
      .selectFrom('users')
      .select('is_minor')
      .where('id', '=', r.json().user_id)
      .executeTakeFirstOrThrow();
    assert.equal(row.is_minor, true);
  });

  it('spec 2: registering on the 18th birthday is not a minor and is 18+ (the birthday counts); the day before, a minor and not 18+', async () => {
    // The harness's clock is fixed: 2026-03-10 12:00 UTC.
    assert.equal(new Date(h.now()).toISOString(), '2026-03-10T12:00:00.000Z');
    const check = async (email: string, dob: string, minor: boolean) => {
      const r = await h.register(email, { dob });
      assert.equal(r.statusCode, 201, r.body);
      const row = await h.opened.db
        .selectFrom('users')
        .select(['is_minor', 'principal'])
        .where('id', '=', r.json().user_id)
        .executeTakeFirstOrThrow();
      assert.equal(row.is_minor, minor, `${dob}: is_minor`);
      const account = await h.opened.canisters.clients.user.get_account(row.principal);
      assert.equal(account?.is_age_verified_18_plus, !minor, `${dob}: is_age_verified_18_plus on the user canister`);
    };
    await check('eighteen-today@example.org', '2008-03-10', false);
    await check('eighteen-tomorrow@example.org', '2008-03-11', true);
  });

  it('spec 2 rule 1: the 13th birthday registers, the day before it is COPPA_BLOCK (the dates written out, the clock fixed)', async () => {
    assert.equal((await h.register('thirteen-today@example.org', { dob: '2013-03-10' })).statusCode, 201);
    const r = await h.register('thirteen-tomorrow@example.org', { dob: '2013-03-11' });
    assert.equal(r.statusCode, 403);
    assert.equal(r.json().error, 'COPPA_BLOCK');
  });

  it('stores only ciphertext, the blind index and an argon2id hash at OWASP minimum or above (decision B5: what openBridge hashes with by default)', async () => {
    const r = await h.register('store@example.org', { name: 'Grace Hopper' });
    assert.equal(r.statusCode, 201);
    const all = await dump(h);
    for (const plain of ['store@example.org', 'Grace Hopper', '1990-05-01', PASSWORD])
      assert.ok(!all.includes(plain), `${plain} stored in clear`);
    const row = await h.opened.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', r.json().user_id)
      .executeTakeFirstOrThrow();
    assert.match(row.password_hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.ok(await argon2.verify(row.password_hash, PASSWORD));
    assert.equal(row.email_index.length, 32, 'full-length HMAC-SHA-256');
    assert.match(row.email_encrypted, /^hpke1\./);
  });

  it('EMAIL_EXISTS through the blind index, whatever the case, spacing or trailing dot, once the address is verified (decisions B51, B82)', async () => {
    assert.equal((await h.register('Dup@Example.org')).statusCode, 201);
    // Decision B82: mailed at its canonical form; a fullwidth look-alike is refused (address-forms.test.ts).
    assert.equal((await h.verify('dup@example.org')).statusCode, 200);
    for (const variant of ['dup@example.org', '  DUP@EXAMPLE.ORG ', 'dup@example.org.']) {
      const r = await h.register(variant);
      assert.equal(r.statusCode, 409, variant);
      assert.equal(r.json().error, 'EMAIL_EXISTS');
    }
  });

  it('weak passwords are refused with the reason (WEAK_PASSWORD); nothing is stored', async () => {
    const count = (await h.opened.db.selectFrom('users').select('id').execute()).length;
    for (const [password, reason] of [
      ['short', /at least 12/],
      ['password1234', /too common/],
      ['aaaaaaaaaaaaaaaa', /too common or repetitive/],
      ['weakling-weakling@example.org', /email/],
      ['x'.repeat(129), /at most 128/],
    ] as const) {
      const r = await h.register('weakling@example.org', { password });
      assert.equal(r.statusCode, 400, password);
      assert.equal(r.json().error, 'WEAK_PASSWORD');
      assert.match(r.json().message, reason);
    }
    assert.equal((await h.opened.db.selectFrom('users').select('id').execute()).length, count);
  });

  it('tampered, swapped, foreign-key and malformed ciphertexts: 400 and nothing stored', async () => {
    const count = (await h.opened.db.selectFrom('users').select('id').execute()).length;
    const good = await h.encrypt({ email: 'tamper@example.org', name: 'T', dob: '1990-01-01' });
    const flip = (s: string) => s.slice(0, -2) + (s.at(-2) === 'A' ? 'B' : 'A') + s.at(-1);
    const other = await generateRegistrationKey();
    const foreign = await encryptRegistration(Buffer.from(other.publicKey).toString('base64url'), {
      email: 'tamper@example.org',
      name: 'T',
      dob: '1990-01-01',
    });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...good, email_encrypted: flip(good.email_encrypted) }, 'UNDECRYPTABLE'],
      [{ ...good, dob_encrypted: flip(good.dob_encrypted) }, 'UNDECRYPTABLE'],
      [{ ...good, name_encrypted: good.email_encrypted }, 'UNDECRYPTABLE'],
      [{ ...good, email_encrypted: foreign.email_encrypted }, 'UNDECRYPTABLE'],
      [{ ...good, email_encrypted: 'tamper@example.org' }, 'UNDECRYPTABLE'],
      [{ ...good, email_encrypted: "hpke1.'; DROP TABLE users; --.x" }, 'UNDECRYPTABLE'],
      [{ name_encrypted: good.name_encrypted, dob_encrypted: good.dob_encrypted }, 'VALIDATION_ERROR'],
      [{ ...good, password: { pw: 'x' } }, 'VALIDATION_ERROR'],
    ];
    for (const [fields, code] of cases) {
      const r = await h.request({
        method: 'POST',
        url: '/api/auth/register',
        payload: { ...fields, ...(!('password' in fields) && { password: PASSWORD }), tos_accepted: true },
      });
      assert.equal(r.statusCode, 400, JSON.stringify(fields).slice(0, 80));
      assert.equal(r.json().error, code);
    }
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: '/api/auth/register',
          payload: { ...good, password: PASSWORD, tos_accepted: false },
        })
      ).json().error,
      'VALIDATION_ERROR',
      'terms must be accepted',
    );
    assert.equal((await h.opened.db.selectFrom('users').select('id').execute()).length, count);
  });

  it('bad plaintext inside valid ciphertext: impossible dates and addresses are refused', async () => {
    for (const [fields, message] of [
      [{ email: 'ok@example.org', name: 'N', dob: '1990-02-30' }, /dob/],
      [{ email: 'ok@example.org', name: 'N', dob: '2999-01-01' }, /dob/],
      [{ email: 'not an address', name: 'N', dob: '1990-01-01' }, /email/],
      [{ email: 'ok@example.org', name: '   ', dob: '1990-01-01' }, /name/],
    ] as const) {
      const enc = await h.encrypt(fields);
      const r = await h.request({
        method: 'POST',
        url: '/api/auth/register',
        payload: { ...enc, password: PASSWORD, tos_accepted: true },
      });
      assert.equal(r.statusCode, 400);
      assert.match(r.json().message, message);
    }
  });

  it('SQL-looking names and addresses are just data', async () => {
    const email = "o'brien+x@example.org";
    const r = await h.register(email, { name: "Robert'); DROP TABLE users;--" });
    assert.equal(r.statusCode, 201, r.body);
    assert.equal((await h.verify(email)).statusCode, 200);
    assert.equal((await h.login(email)).res.statusCode, 200);
  });
});

describe('verification email and link (spec 2 rule 3–4, Email verification token)', () => {
  it('the link verifies once, within 24 hours, and gives `member`; bootstrap admins also get `admin`', async () => {
    const h = await bridge();
    after(() => h.close());
    assert.equal((await h.register('vera@example.org')).statusCode, 201);
    const mail = h.emails().at(-1)!;
    assert.match(mail.subject, /verify your email/i);
    assert.match(mail.text, /\bThis link expires in 1440 minutes\./);
    const ok = await h.verify('vera@example.org');
    assert.equal(ok.statusCode, 200);
    assert.match(ok.body, /verified/);
    const again = await h.verify('vera@example.org');
    assert.equal(again.statusCode, 400);
    assert.match(again.body, /already used/);
    assert.match(again.body, /Sign in/, 'a used link says what to do next');
    for (const bad of [
      '/verify-email',
      '/verify-email?token=abc',
      `/verify-email?token=${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`,
      "/verify-email?token=1'%20OR%20'1'='1",
    ]) {
      assert.equal((await h.request({ method: 'GET', url: bad })).statusCode, 400, bad);
    }
    // Spec 2: valid for 24 hours: at 24 h minus 1 ms it still works, at 24 h it has expired.
    assert.equal((await h.register('late@example.org')).statusCode, 201);
    assert.equal((await h.register('ontime@example.org')).statusCode, 201);
    h.advance(24 * 3_600_000 - 1);
    assert.equal((await h.verify('ontime@example.org')).statusCode, 200, 'one millisecond before the 24 hours end');
    h.advance(1);
    const late = await h.verify('late@example.org');
    assert.equal(late.statusCode, 400);
    assert.match(late.body, /expired/);
    const admin = await h.member(ADMIN_EMAIL);
    assert.deepEqual((await h.request({ method: 'GET', url: '/auth/session', jar: admin.jar })).json().roles, [
      'member',
      'admin',
    ]);
  });

  it('a failing notification service never fails registration', async () => {
    const h = await bridge();
    after(() => h.close());
    h.provider.respond(() => ({ status: 500, body: { message: 'provider down' } }));
    const r = await h.register('unlucky@example.org');
    assert.equal(r.statusCode, 201);
    assert.equal(r.json().verification_email_sent, false);
    const login = await h.login('unlucky@example.org');
    assert.equal(login.res.statusCode, 403, 'the account exists, not verified yet (decision B32)');
    assert.equal(login.res.json().error, 'EMAIL_NOT_VERIFIED');
  });
});
