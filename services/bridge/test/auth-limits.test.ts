// Decisions B30, B32, B34, B33 and B4 (password length) through HTTP: attempts reserved
// atomically before the password check (decision B30) on every store, the owner not locked out by
// a stranger who knows the address, no session before verification (B32), revocation ending sessions
// and the admin's session endpoints (B34, B35), registration limits (B33).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startPrivateRedis } from '@domdao/test-helpers';
import { ADMIN_EMAIL, BACKENDS, GOV, bridge } from './harness.ts';

const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the right password';

for (const backend of BACKENDS) {
  const where = `${backend.db}, sessions in ${backend.sessions}`;

  describe(`login attempts on ${where}`, () => {
    it('decision B30: 30 parallel guesses (limit 5) check exactly 5 passwords; the right one after them is refused', async (t) => {
      const h = await bridge(backend);
      t.after(() => h.close());
      await h.member('ada@example.org');
      // All wrong: which 5 of 30 parallel requests reach the counter first depends on the database's
      // connection scheduling, so a right password inside the burst could be one of the 5 checked.
      const guesses = Array.from({ length: 30 }, (_, i) => `${WRONG} ${i}`);
      const res = await Promise.all(
        guesses.map((p) =>
          h.request({
            method: 'POST',
            url: '/auth/login',
            payload: { email: 'ada@example.org', password: p },
            remoteAddress: '203.0.113.9',
          }),
        ),
      );
      const codes = res.map((r) => r.statusCode);
      assert.equal(codes.filter((c) => c !== 429).length, 5, `exactly 5 passwords checked: ${codes.join(',')}`);
      assert.ok(
        codes.every((c) => c === 401 || c === 429),
        codes.join(','),
      );
      const right = await h.request({
        method: 'POST',
        url: '/auth/login',
        payload: { email: 'ada@example.org', password: PASSWORD },
        remoteAddress: '203.0.113.9',
      });
      assert.equal(right.statusCode, 429, 'the right password after the limit is refused, not checked');
      assert.ok(
        [...res, right].every((r) => r.headers['set-cookie'] === undefined),
        'no session handed out',
      );
      const blocked = res.find((r) => r.statusCode === 429)!;
      assert.equal(blocked.json().error, 'TOO_MANY_ATTEMPTS');
      assert.ok(Number(blocked.headers['retry-after']) > 0 && Number(blocked.headers['retry-after']) <= 15 * 60);
    });
  });

  describe(`revocation and the admin's session endpoints on ${where}`, () => {
    it("decision B34: revoking admin ends the revoked admin's sessions at once: they cannot create admins any more", async (t) => {
      const h = await bridge(backend);
      t.after(() => h.close());
      const root = await h.member(ADMIN_EMAIL);
      const carol = await h.member('carol@example.org');
      const dave = await h.member('dave@example.org');
      assert.equal(
        (
          await h.request({
            method: 'POST',
            url: `/api/admin/users/${carol.user_id}/roles`,
            payload: { role: 'admin' },
            jar: root.jar,
          })
        ).statusCode,
        200,
      );
      const carolAdmin = (await h.login('carol@example.org')).jar;
      const other = (await h.login('carol@example.org', PASSWORD, {})).jar;
      assert.deepEqual((await h.request({ method: 'GET', url: '/auth/session', jar: carolAdmin })).json().roles, [
        'member',
        'admin',
      ]);
      const revoke = await h.request({
        method: 'DELETE',
        url: `/api/admin/users/${carol.user_id}/roles/admin`,
        jar: root.jar,
      });
      assert.equal(revoke.statusCode, 200, revoke.body);
      assert.equal(revoke.json().sessions_ended, 3, 'the first login, the admin one and the second browser');
      for (const jar of [carolAdmin, other, carol.jar])
        assert.deepEqual((await h.request({ method: 'GET', url: '/auth/session', jar })).json(), {
          authenticated: false,
        });
      const grant = await h.request({
        method: 'POST',
        url: `/api/admin/users/${dave.user_id}/roles`,
        payload: { role: 'admin' },
        jar: carolAdmin,
      });
      assert.equal(grant.statusCode, 401, 'the revoked admin is signed out');
      const back = await h.login('carol@example.org');
      assert.deepEqual(back.res.json().roles, ['member'], 'the next login reads the new roles');
      assert.equal(
        (
          await h.request({
            method: 'POST',
            url: `/api/admin/users/${dave.user_id}/roles`,
            payload: { role: 'admin' },
            jar: back.jar,
          })
        ).statusCode,
        403,
      );
      assert.deepEqual(
        (await h.request({ method: 'GET', url: '/auth/session', jar: root.jar })).json().roles,
        ['member', 'admin'],
        'other users keep their sessions',
      );
    });

    it("decision B35: an admin lists a user's live sessions and ends them all", async (t) => {
      const h = await bridge(backend);
      t.after(() => h.close());
      const root = await h.member(ADMIN_EMAIL);
      const erin = await h.member('erin@example.org');
      h.advance(60_000);
      const second = (await h.login('erin@example.org')).jar;
      const url = `/api/admin/users/${erin.user_id}/sessions`;
      const listed = await h.request({ method: 'GET', url, jar: root.jar });
      assert.equal(listed.statusCode, 200, listed.body);
      const { sessions } = listed.json() as { sessions: Array<Record<string, unknown>> };
      assert.equal(sessions.length, 2);
      assert.deepEqual(
        Object.keys(sessions[0]!).sort(),
        ['created_at', 'expires_at', 'last_seen_at', 'roles'],
        'no ids, no sealed data',
      );
      assert.equal(sessions[0]!.created_at, new Date(h.now() - 60_000).toISOString(), 'oldest first');
      assert.equal(sessions[1]!.expires_at, new Date(h.now() + 24 * 3_600_000).toISOString());
      assert.equal((await h.request({ method: 'GET', url, jar: erin.jar })).statusCode, 403, 'admins only');
      assert.equal((await h.request({ method: 'GET', url })).statusCode, 401);
      assert.equal(
        (await h.request({ method: 'DELETE', url, jar: root.jar, origin: 'https://evil.domdao.example' })).statusCode,
        403,
        'cross-site rule (decision B8)',
      );
      assert.equal(
        (
          await h.request({
            method: 'GET',
            url: '/api/admin/users/00000000-0000-4000-8000-000000000000/sessions',
            jar: root.jar,
          })
        ).statusCode,
        404,
      );
      assert.equal(
        (
          await h.request({
            method: 'DELETE',
            url: "/api/admin/users/1'%20OR%201=1/sessions",
            jar: root.jar,
            origin: GOV,
          })
        ).statusCode,
        400,
      );
      const ended = await h.request({ method: 'DELETE', url, jar: root.jar, origin: GOV });
      assert.equal(ended.statusCode, 200, ended.body);
      assert.deepEqual(ended.json(), { user_id: erin.user_id, sessions_ended: 2 });
      for (const jar of [erin.jar, second])
        assert.deepEqual((await h.request({ method: 'GET', url: '/auth/session', jar })).json(), {
          authenticated: false,
        });
      assert.deepEqual((await h.request({ method: 'GET', url, jar: root.jar })).json().sessions, []);
      assert.equal(
        (await h.request({ method: 'GET', url: '/auth/session', jar: root.jar })).json().authenticated,
        true,
      );
    });
  });

  describe(`registration limits on ${where}`, () => {
    it('decision B33: registrations per client address per hour, then 429 with Retry-After; other clients go on', async (t) => {
      const h = await bridge(backend, { REGISTRATION_LIMIT_PER_CLIENT: '3' });
      t.after(() => h.close());
      const from = async (email: string, remoteAddress: string) => {
        const fields = await h.encrypt({ email, name: 'Ada Lovelace', dob: '1990-05-01' });
        return h.request({
          method: 'POST',
          url: '/api/auth/register',
          payload: { ...fields, password: PASSWORD, tos_accepted: true },
          remoteAddress,
        });
      };
      const burst = await Promise.all(
        Array.from({ length: 8 }, (_, i) => from(`victim${i}@example.org`, '203.0.113.5')),
      );
      assert.deepEqual(burst.map((r) => r.statusCode).sort(), [201, 201, 201, 429, 429, 429, 429, 429]);
      const refused = burst.find((r) => r.statusCode === 429)!;
      assert.equal(refused.json().error, 'TOO_MANY_ATTEMPTS');
      assert.ok(Number(refused.headers['retry-after']) > 0 && Number(refused.headers['retry-after']) <= 3600);
      assert.equal(h.emails().length, 3, 'no email for a refused registration');
      assert.equal((await h.opened.db.selectFrom('users').select('id').execute()).length, 3);
      assert.equal((await from('other@example.org', '198.51.100.7')).statusCode, 201, 'another client');
      h.advance(3_600_000);
      assert.equal((await from('later@example.org', '203.0.113.5')).statusCode, 201, 'the next hour');
    });
  });
}

describe('the owner of an attacked account (decision B30)', () => {
  it('a stranger guessing from one address is blocked; the owner from another address signs in', async (t) => {
    const h = await bridge();
    t.after(() => h.close());
    await h.member('bob@example.org');
    const from = (remoteAddress: string, password: string) =>
      h.request({ method: 'POST', url: '/auth/login', payload: { email: 'bob@example.org', password }, remoteAddress });
    for (let i = 0; i < 5; i++) assert.equal((await from('203.0.113.66', WRONG)).statusCode, 401);
    for (let i = 0; i < 20; i++) assert.equal((await from('203.0.113.66', WRONG)).statusCode, 429);
    assert.equal(
      (await from('203.0.113.66', PASSWORD)).statusCode,
      429,
      "the stranger's address stays blocked, even with the password",
    );
    const owner = await from('198.51.100.20', PASSWORD);
    assert.equal(owner.statusCode, 200, 'the owner is not locked out');
    assert.equal(owner.json().email, 'bob@example.org');
  });

  it('the account-wide ceiling (20 × LOGIN_MAX_FAILURES over all addresses) counts only checked guesses', async (t) => {
    const h = await bridge(undefined, { LOGIN_MAX_FAILURES: '2' });
    t.after(() => h.close());
    await h.member('cleo@example.org');
    const from = (remoteAddress: string, password = WRONG) =>
      h.request({
        method: 'POST',
        url: '/auth/login',
        payload: { email: 'cleo@example.org', password },
        remoteAddress,
      });
    for (let i = 0; i < 10; i++) await from('203.0.113.1');
    for (let a = 2; a <= 19; a++)
      for (let i = 0; i < 2; i++) assert.equal((await from(`203.0.113.${a}`)).statusCode, 401);
    // 2 + 36 = 38 checked guesses: the 8 refused at 203.0.113.1 did not count.
    assert.equal((await from('198.51.100.1', PASSWORD)).statusCode, 200, 'below the ceiling of 40');
    for (let i = 0; i < 2; i++) assert.equal((await from('203.0.113.20')).statusCode, 401);
    const ceiling = await from('198.51.100.1', PASSWORD);
    assert.equal(ceiling.statusCode, 429, '40 guesses from 20 addresses reach the ceiling');
    h.advance(15 * 60_000);
    assert.equal((await from('198.51.100.1', PASSWORD)).statusCode, 200, 'until the window ends');
  });
});

describe('no session before verification (decision B32)', () => {
  it('the right password of an unverified account answers 403 EMAIL_NOT_VERIFIED, a wrong one 401 as usual', async (t) => {
    const h = await bridge();
    t.after(() => h.close());
    assert.equal((await h.register('una@example.org')).statusCode, 201);
    const wrong = await h.login('una@example.org', WRONG);
    assert.equal(wrong.res.statusCode, 401);
    assert.equal(wrong.res.json().error, 'INVALID_CREDENTIALS', 'nothing revealed without the password');
    const right = await h.login('una@example.org');
    assert.equal(right.res.statusCode, 403);
    assert.equal(right.res.json().error, 'EMAIL_NOT_VERIFIED');
    assert.equal(right.res.headers['set-cookie'], undefined, 'no session');
    assert.equal((await h.opened.db.selectFrom('sessions').select('user_id').execute()).length, 0);
    assert.equal((await h.verify('una@example.org')).statusCode, 200);
    assert.equal((await h.login('una@example.org')).res.statusCode, 200, 'after verification');
  });
});

describe('password length (decision B4)', () => {
  it('decision B4: 11 characters are refused, 12 accepted', async (t) => {
    const h = await bridge();
    t.after(() => h.close());
    const eleven = await h.register('len@example.org', { password: 'Tr0ub4dor&3' });
    assert.equal(eleven.statusCode, 400);
    assert.equal(eleven.json().error, 'WEAK_PASSWORD');
    assert.match(eleven.json().message, /at least 12/);
    assert.equal((await h.register('len@example.org', { password: 'Tr0ub4dor&3x' })).statusCode, 201);
    assert.equal(
      (await h.register('len2@example.org', { password: 'ñandú-ñandú' + 'é' })).statusCode,
      201,
      'characters, not bytes: 12 of them',
    );
  });
});

describe('where the attempt counters live (decision B52)', () => {
  it('decision B52: with sessions in Redis, a lockout outlives a Redis restart (the counters are in the database); the sessions do not', async (t) => {
    let redis = await startPrivateRedis();
    t.after(() => redis.kill());
    const h = await bridge({ db: 'pglite', sessions: 'redis' }, { SESSION_REDIS_URL: redis.url });
    t.after(() => h.close());
    const { jar } = await h.member('locked@example.org');
    const attempt = (password: string) =>
      h.request({
        method: 'POST',
        url: '/auth/login',
        payload: { email: 'locked@example.org', password },
        remoteAddress: '203.0.113.7',
      });
    for (let i = 1; i <= h.config.LOGIN_MAX_FAILURES; i++)
      assert.equal((await attempt(`${WRONG} ${i}`)).statusCode, 401, `guess ${i} of the limit is checked`);
    assert.equal((await attempt(PASSWORD)).statusCode, 429, 'one past the limit is refused');
    redis = await redis.restart();
    // The bridge's client reconnects on its own; until then a session read answers 503.
    let session = 503;
    for (
      const until = Date.now() + 10_000;
      session === 503 && Date.now() < until;
      await new Promise((r) => setTimeout(r, 100))
    ) {
      session = (await h.request({ method: 'GET', url: '/api/me/sessions', jar })).statusCode;
    }
    assert.equal(session, 401, 'Redis came back empty: the session is gone');
    const after = await attempt(PASSWORD);
    assert.equal(after.statusCode, 429, 'still locked out after the restart');
    assert.equal(after.json().error, 'TOO_MANY_ATTEMPTS');
  });
});
