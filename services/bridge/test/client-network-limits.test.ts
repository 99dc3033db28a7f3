// Decision B119 through HTTP: the per-address request limits of decisions B30 (login guesses) and B33
// (registrations, new links, resets per client) count an IPv6 client by its /64, which one host holds
// whole; an IPv4 address is itself, and one seen through an IPv6 socket (::ffff:a.b.c.d) is that IPv4
// address. Each limit is met from two addresses of one /64 at the limit and one past.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { bridge, type Bridge } from './harness.ts';

const PASSWORD = 'correct horse battery staple';
const WRONG = 'not the right password';
/** Two addresses of one /64, written differently, and an address of the next /64. */
const A = '2001:db8:1:2::a';
const B = '2001:0db8:0001:0002:ffff:ffff:ffff:ffff';
const NEXT = '2001:db8:1:3::a';

function assertTooMany(r: LightMyRequestResponse, what: string) {
  assert.equal(r.statusCode, 429, `${what}: ${r.body}`);
  assert.equal(r.json().error, 'TOO_MANY_ATTEMPTS');
  assert.ok(Number(r.headers['retry-after']) > 0, what);
}

const login = (h: Bridge, email: string, remoteAddress: string, password = WRONG) =>
  h.request({ method: 'POST', url: '/auth/login', payload: { email, password }, remoteAddress });

describe('per-address limits count an IPv6 client by its /64 (decision B119)', () => {
  it('decision B119 (B30): guesses at one account from two addresses of one /64 share LOGIN_MAX_FAILURES: the limit passes, one past is 429; the next /64 and the owner elsewhere go on', async (t) => {
    const h = await bridge();
    t.after(() => h.close());
    await h.member('bob@example.org');
    const max = h.config.LOGIN_MAX_FAILURES;
    for (let i = 1; i <= max; i++)
      assert.equal((await login(h, 'bob@example.org', i % 2 ? A : B)).statusCode, 401, `guess ${i} of ${max}`);
    assertTooMany(await login(h, 'bob@example.org', A), 'one past the limit from the first address');
    assertTooMany(
      await login(h, 'bob@example.org', B, PASSWORD),
      'the other address of the /64, even with the password',
    );
    assert.equal((await login(h, 'bob@example.org', NEXT)).statusCode, 401, 'the next /64 is another client');
    assert.equal((await login(h, 'bob@example.org', '198.51.100.20', PASSWORD)).statusCode, 200, 'the owner elsewhere');
  });

  it('decision B119 (B30): the per-address ceiling (10 × LOGIN_MAX_FAILURES over every account) is one count for the /64', async (t) => {
    const h = await bridge(undefined, { LOGIN_MAX_FAILURES: '1' });
    t.after(() => h.close());
    for (let i = 1; i <= 10; i++)
      assert.equal((await login(h, `nobody${i}@example.org`, i % 2 ? A : B)).statusCode, 401, `guess ${i} of 10`);
    assertTooMany(await login(h, 'nobody11@example.org', B), 'the 11th from the /64');
    assert.equal((await login(h, 'nobody11@example.org', NEXT)).statusCode, 401, 'the next /64');
  });

  it('decision B119 (B33): registrations per client: two addresses of one /64 share REGISTRATION_LIMIT_PER_CLIENT; IPv4 stays per address, and its IPv6-mapped form is the same client', async (t) => {
    const h = await bridge(undefined, { REGISTRATION_LIMIT_PER_CLIENT: '2' });
    t.after(() => h.close());
    const register = async (email: string, remoteAddress: string) => {
      const fields = await h.encrypt({ email, name: 'Ada Lovelace', dob: '1990-05-01' });
      return h.request({
        method: 'POST',
        url: '/api/auth/register',
        payload: { ...fields, password: PASSWORD, tos_accepted: true },
        remoteAddress,
      });
    };
    assert.equal((await register('r1@example.org', A)).statusCode, 201);
    assert.equal((await register('r2@example.org', B)).statusCode, 201, 'the limit, from the second address');
    assertTooMany(await register('r3@example.org', A), 'one past the limit');
    assert.equal((await register('r3@example.org', NEXT)).statusCode, 201, 'the next /64');
    for (const email of ['v1@example.org', 'v2@example.org'])
      assert.equal((await register(email, '203.0.113.9')).statusCode, 201);
    assertTooMany(
      await register('v3@example.org', '::ffff:203.0.113.9'),
      'the same IPv4 client through an IPv6 socket',
    );
    assert.equal((await register('v3@example.org', '203.0.113.10')).statusCode, 201, 'the next IPv4 address');
  });

  it('decision B119 (B33): new links and resets per client: two addresses of one /64 share each count, at the limit and one past', async (t) => {
    const h = await bridge(undefined, { REGISTRATION_LIMIT_PER_CLIENT: '2' });
    t.after(() => h.close());
    for (const url of ['/api/auth/resend-verification', '/api/auth/password-reset/request']) {
      const ask = (email: string, remoteAddress: string) =>
        h.request({ method: 'POST', url, payload: { email }, remoteAddress });
      assert.equal((await ask('one@example.org', A)).statusCode, 202, url);
      assert.equal((await ask('two@example.org', B)).statusCode, 202, `${url}: the limit, from the second address`);
      assertTooMany(await ask('three@example.org', B), `${url}: one past the limit`);
      assert.equal((await ask('three@example.org', NEXT)).statusCode, 202, `${url}: the next /64`);
    }
  });
});
