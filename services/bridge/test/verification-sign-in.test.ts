// Decision B105 (issue 48 item 3): a verification link confirmed with the account's password, or by
// choosing a new one (which starts the account afresh, decision B86), signs the confirmer in: the
// `session` cookie as spec 2 sets it, a live session of the verified account, the browser's earlier
// session ended. A confirmation another site posts (or one with no origin) verifies but signs no one
// in (login CSRF, decision B8), and says so in the log and the audit row.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { APP, bridge, OWNER_DOB, OWNER_NAME, type Bridge, type Jar } from './harness.ts';

const PASSWORD = 'correct horse battery staple';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
let h: Bridge;

before(async () => {
  h = await bridge();
});
after(() => h.close());

const tokenOf = (email: string) => new URL(h.verificationPath(email), 'https://x.example').searchParams.get('token')!;
const confirmForm = (fields: Record<string, string>, origin: string | null, jar?: Jar) =>
  h.request({
    method: 'POST',
    url: '/verify-email',
    payload: new URLSearchParams(fields).toString(),
    headers: FORM,
    origin,
    ...(jar && { jar }),
  });
const sessionOf = (jar: Jar) => h.request({ method: 'GET', url: '/api/auth/session', jar });
const sessionCookie = (r: { headers: Record<string, unknown> }) => {
  const set = r.headers['set-cookie'];
  return (Array.isArray(set) ? set : set ? [set] : []).map(String).find((c) => c.startsWith('session='));
};
async function registered(email: string) {
  const r = await h.register(email);
  assert.equal(r.statusCode, 201, r.body);
  return r.json().user_id as string;
}
const completedFor = async (userId: string) =>
  (
    await h.opened.db
      .selectFrom('audit_log')
      .select(['detail'])
      .where('event', '=', 'verification.completed')
      .where('actor', '=', userId)
      .executeTakeFirstOrThrow()
  ).detail as Record<string, unknown>;

describe('signed in after verifying (decision B105)', () => {
  it("decision B105: the link page's form with the registration's password sets spec 2's session cookie; the member is signed in, Continue goes on to the app", async () => {
    const id = await registered('ada@example.org');
    const jar: Jar = {};
    const r = await confirmForm({ token: tokenOf('ada@example.org'), password: PASSWORD }, APP, jar);
    assert.equal(r.statusCode, 200, r.body);
    assert.match(r.body, /You are signed in\./);
    assert.match(r.body, new RegExp(`<a class="button" href="${APP}">Continue</a>`));
    const cookie = sessionCookie(r)!;
    assert.ok(cookie, 'a session cookie');
    for (const attr of ['Domain=.domdao.example', 'Path=/', 'HttpOnly', 'Secure', 'SameSite=Lax'])
      assert.ok(cookie.includes(attr), `${attr} in ${cookie}`);
    const s = (await sessionOf(jar)).json() as Record<string, unknown>;
    assert.deepEqual(s, {
      authenticated: true,
      user_id: id,
      email: 'ada@example.org',
      roles: ['member'],
      membership_status: 'Registered',
    });
    // The page asks for the origin only as its Referer, so the form's POST carries its Origin.
    assert.equal(r.headers['referrer-policy'], 'strict-origin');
    assert.deepEqual(await completedFor(id), { proof: 'registered_password', sessions_ended: 0, signed_in: true });
  });

  it('decision B105: the JSON route with new_password (the account started afresh, B86) signs in to the new account, and ends the session the browser held', async () => {
    const old = await registered('olive@example.org');
    // The browser is signed in to someone else's account.
    const other = await h.member('someone@example.org');
    const jar: Jar = { ...other.jar };
    const sealed = await h.encrypt({ email: 'olive@example.org', name: OWNER_NAME, dob: OWNER_DOB });
    const r = await h.request({
      method: 'POST',
      url: '/api/auth/verify-email',
      jar,
      payload: {
        token: tokenOf('olive@example.org'),
        new_password: 'the owner chose this one',
        name_encrypted: sealed.name_encrypted,
        dob_encrypted: sealed.dob_encrypted,
        tos_accepted: true,
      },
    });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), {
      status: 'verified',
      membership_token_pending: false,
      password: 'chosen',
      signed_in: true,
    });
    const s = (await sessionOf(jar)).json() as { authenticated: boolean; user_id: string; email: string };
    assert.equal(s.authenticated, true);
    assert.notEqual(s.user_id, old, 'the account made of the owner’s answers');
    assert.equal(s.email, 'olive@example.org');
    assert.deepEqual(
      (await sessionOf(other.jar)).json(),
      { authenticated: false },
      'the session this browser held before ended',
    );
  });

  it('decision B105: a confirmation posted by another site, with an opaque origin or with none, verifies the address but signs no one in (logged and audited)', async () => {
    for (const [email, origin] of [
      ['mallory@example.org', 'https://evil.example'],
      ['opaque@example.org', 'null'],
      ['script@example.org', null],
    ] as const) {
      const id = await registered(email);
      const jar: Jar = {};
      const r = await confirmForm({ token: tokenOf(email), password: PASSWORD }, origin, jar);
      assert.equal(r.statusCode, 200, r.body);
      assert.match(r.body, /Your email address is verified/);
      assert.match(r.body, /Sign in to continue/);
      assert.doesNotMatch(r.body, /You are signed in/);
      assert.equal(sessionCookie(r), undefined, `${origin}: no session cookie`);
      assert.equal(jar.cookie, undefined);
      assert.deepEqual(await completedFor(id), {
        proof: 'registered_password',
        sessions_ended: 0,
        signed_in: false,
        no_session: 'origin',
      });
      const login = await h.login(email);
      assert.equal(login.res.statusCode, 200, 'the member signs in as usual');
    }
    // The last three (the harness's own confirmations carry no origin either).
    assert.deepEqual(
      h.logs
        .events('verification.no_session')
        .slice(-3)
        .map((l) => (l as { origin: unknown }).origin),
      ['https://evil.example', 'null', null],
    );
  });

  it('decision B105: a refused confirmation (a wrong password, a used link) sets no cookie', async () => {
    const id = await registered('grace@example.org');
    const token = tokenOf('grace@example.org');
    const wrong = await confirmForm({ token, password: 'not the one chosen at registration' }, APP, {});
    assert.equal(wrong.statusCode, 401);
    assert.equal(sessionCookie(wrong), undefined);
    const first: Jar = {};
    assert.equal((await confirmForm({ token, password: PASSWORD }, APP, first)).statusCode, 200);
    assert.equal(((await sessionOf(first)).json() as { user_id: string }).user_id, id);
    const again = await confirmForm({ token, password: PASSWORD }, APP, {});
    assert.equal(again.statusCode, 400, 'a used link');
    assert.equal(sessionCookie(again), undefined);
  });
});
