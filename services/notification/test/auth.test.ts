// Spec 3 "Authentication" rules 1-5 and the auth.unauthorized log event.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from '@domdao/config';
import { makeService, TEST_TOKEN, validBody } from './harness.ts';

const FOREIGN = 'bridge-admin-token-abcdefghijklmnop';

describe('fail-closed without SERVICE_TOKEN (rule 2)', () => {
  let svc: Awaited<ReturnType<typeof makeService>>;
  before(async () => (svc = await makeService({ SERVICE_TOKEN: undefined })));
  after(() => svc.close());

  for (const [method, url] of [
    ['GET', '/api/v1/health'],
    ['POST', '/api/v1/send'],
    ['GET', '/api/v1/openapi.json'],
    ['GET', '/elsewhere'],
  ] as const) {
    it(`${method} ${url} answers 503 service_unavailable`, async () => {
      const res = await svc.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${TEST_TOKEN}` },
        ...(method === 'POST' && { payload: validBody('welcome') }),
      });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().error, 'service_unavailable');
      assert.ok(res.json().request_id);
    });
  }

  it('an empty SERVICE_TOKEN counts as unset', async (t) => {
    const empty = await makeService({ SERVICE_TOKEN: '' });
    t.after(() => empty.close());
    const res = await empty.send(validBody('welcome'), { authorization: 'Bearer ' });
    assert.equal(res.statusCode, 503);
  });
});

describe('bearer token (rules 1, 3, 5)', () => {
  let svc: Awaited<ReturnType<typeof makeService>>;
  before(async () => (svc = await makeService({ FOREIGN_SERVICE_TOKENS: `bridge-admin=${FOREIGN}` })));
  after(() => svc.close());

  it('the right token is accepted', async () => {
    assert.equal((await svc.send(validBody('welcome'))).statusCode, 200);
  });

  it('the scheme is case-insensitive (RFC 9110 §11.1)', async () => {
    assert.equal((await svc.send(validBody('welcome'), { authorization: `bearer ${TEST_TOKEN}` })).statusCode, 200);
  });

  for (const [why, header] of [
    ['absent', undefined],
    ['Basic scheme', `Basic ${Buffer.from(`x:${TEST_TOKEN}`).toString('base64')}`],
    ['scheme only', 'Bearer'],
    ['two tokens', `Bearer ${TEST_TOKEN} ${TEST_TOKEN}`],
    ['wrong token', 'Bearer not-the-token-at-all-000000'],
    ['a prefix of the token', `Bearer ${TEST_TOKEN.slice(0, -1)}`],
    ['the token plus one character', `Bearer ${TEST_TOKEN}x`],
    ['the token followed by a percent-encoded NUL (refused by the token pattern)', `Bearer ${TEST_TOKEN}%00`],
    ['a token longer than the comparison width', `Bearer ${'a'.repeat(600)}`],
  ] as const) {
    it(`401 unauthorized: ${why}`, async () => {
      const res = await svc.app.inject({
        method: 'POST',
        url: '/api/v1/send',
        headers: { 'content-type': 'application/json', ...(header !== undefined && { authorization: header }) },
        payload: validBody('welcome'),
      });
      assert.equal(res.statusCode, 401);
      assert.deepEqual(Object.keys(res.json()).sort(), ['error', 'request_id']);
      assert.equal(res.json().error, 'unauthorized');
    });
  }

  it('403 forbidden: a valid token scoped for a different service (rule 5)', async () => {
    const res = await svc.send(validBody('welcome'), { authorization: `Bearer ${FOREIGN}` });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error, 'forbidden');
  });

  it('auth runs before validation: an unauthenticated bad body is 401, not 400 (send flow step 2 before 3)', async () => {
    const res = await svc.send({ type: 'nope' }, { authorization: 'Bearer wrong-token-000000000000' });
    assert.equal(res.statusCode, 401);
  });

  it('auth runs before the body is read: an unauthenticated oversize body is 401, not 413', async () => {
    const res = await svc.send('x'.repeat(50 * 1024 * 1024), { authorization: 'Bearer wrong-token-000000000000' });
    assert.equal(res.statusCode, 401);
  });
});

describe('auth.unauthorized log event (rule 4, Events)', () => {
  let svc: Awaited<ReturnType<typeof makeService>>;
  before(async () => (svc = await makeService({ FOREIGN_SERVICE_TOKENS: `bridge-admin=${FOREIGN}` })));
  after(() => svc.close());

  const reject = (authorization: string | undefined, remoteAddress = '127.0.0.1', url = '/api/v1/send?secret=1') =>
    svc.app.inject({
      method: 'POST',
      url,
      remoteAddress,
      headers: { ...(authorization !== undefined && { authorization }) },
      payload: {},
    });

  it('is WARN with request_id, path, source_ip_class and token_prefix', async () => {
    const res = await reject('Bearer wrong-token-value-1234567');
    const event = svc.logs.events('auth.unauthorized').find((e) => e.request_id === res.json().request_id)!;
    assert.ok(event, 'event logged');
    assert.equal(event.level, 'warn');
    assert.equal(event.path, '/api/v1/send', 'path without the query string');
    assert.equal(event.source_ip_class, 'loopback');
    assert.equal(
      event.token_prefix,
      createHash('sha256').update('wrong-token-value-1234567').digest('hex').slice(0, 8),
    );
  });

  it('token_prefix is null when there is no Authorization header', async () => {
    const res = await reject(undefined);
    const event = svc.logs.events('auth.unauthorized').find((e) => e.request_id === res.json().request_id)!;
    assert.equal(event.token_prefix, null);
  });

  it('is written for 403 too, and the raw tokens never appear in any log line', async () => {
    const res = await svc.send(validBody('welcome'), { authorization: `Bearer ${FOREIGN}` });
    assert.ok(svc.logs.events('auth.unauthorized').some((e) => e.request_id === res.json().request_id));
    await svc.send(validBody('welcome'));
    await reject('Bearer super-secret-wrong-token-999');
    assert.ok(!svc.logs.raw.includes(FOREIGN));
    assert.ok(!svc.logs.raw.includes(TEST_TOKEN));
    assert.ok(!svc.logs.raw.includes('super-secret-wrong-token-999'));
  });

  for (const [ip, cls] of [
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.9', 'private'],
    ['192.168.1.20', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.10.10', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fe80::1', 'private'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['2606:4700:4700::1111', 'public'],
  ]) {
    it(`source_ip_class of ${ip} is ${cls}`, async () => {
      const res = await reject(undefined, ip);
      const event = svc.logs.events('auth.unauthorized').find((e) => e.request_id === res.json().request_id)!;
      assert.equal(event.source_ip_class, cls);
    });
  }
});

describe('token configuration', () => {
  it('rejects a SERVICE_TOKEN shorter than 16 characters at start-up', async () => {
    await assert.rejects(
      makeService({ SERVICE_TOKEN: 'short' }),
      (e: unknown) => e instanceof ConfigError && /SERVICE_TOKEN/.test(e.message),
    );
  });
  it('rejects malformed FOREIGN_SERVICE_TOKENS and one that reuses SERVICE_TOKEN', async () => {
    await assert.rejects(makeService({ FOREIGN_SERVICE_TOKENS: 'no-equals-sign' }), ConfigError);
    await assert.rejects(makeService({ FOREIGN_SERVICE_TOKENS: `other=${TEST_TOKEN}` }), /equals SERVICE_TOKEN/);
    await assert.rejects(makeService({ FOREIGN_SERVICE_TOKENS: `notification=${FOREIGN}` }), /own/);
  });
});

describe('behind the gateway (TRUST_PROXY)', () => {
  const reject = async (env: Record<string, string>) => {
    const svc = await makeService(env);
    try {
      const res = await svc.app.inject({
        method: 'POST',
        url: '/api/v1/send',
        remoteAddress: '10.0.0.7',
        headers: { 'x-forwarded-for': '8.8.8.8' },
        payload: {},
      });
      const event = svc.logs.events('auth.unauthorized').find((e) => e.request_id === res.json().request_id)!;
      return event.source_ip_class;
    } finally {
      await svc.close();
    }
  };
  it('by default the peer address is classified, and X-Forwarded-For is ignored', async () => {
    assert.equal(await reject({}), 'private');
  });
  it('with TRUST_PROXY the client address from X-Forwarded-For is classified', async () => {
    assert.equal(await reject({ TRUST_PROXY: 'true' }), 'public');
    assert.equal(await reject({ TRUST_PROXY: '10.0.0.0/8' }), 'public');
    assert.equal(await reject({ TRUST_PROXY: '1' }), 'public');
    assert.equal(await reject({ TRUST_PROXY: '192.168.0.0/16' }), 'private', 'an untrusted peer’s header is ignored');
  });
});

describe('HEAD /api/v1/health', () => {
  it('needs no token either', async (t) => {
    const svc = await makeService();
    t.after(() => svc.close());
    const res = await svc.app.inject({ method: 'HEAD', url: '/api/v1/health' });
    assert.equal(res.statusCode, 200);
    assert.ok(res.headers['x-request-id']);
  });
});

describe('decision D34: only health is outside the authenticated scope', () => {
  let svc: Awaited<ReturnType<typeof makeService>>;
  const routes: Array<{ method: string; url: string }> = [];
  before(async () => {
    svc = await makeService();
    // Every registered route, read from Fastify's own table, so a route added later is covered too.
    for (const line of svc.app.printRoutes({ commonPrefix: false, includeMeta: false }).split('\n')) {
      const m = /([^\s─│└├]+) \(([A-Z, ]+)\)/.exec(line);
      if (m) for (const method of m[2]!.split(', ')) routes.push({ method, url: m[1]! });
    }
  });
  after(() => svc.close());

  it('every route but GET/HEAD health and readiness (decision B72) answers 401 without a token', async () => {
    assert.ok(
      routes.some((r) => r.url === '/api/v1/send') && routes.some((r) => r.url === '/api/v1/openapi.json'),
      JSON.stringify(routes),
    );
    for (const { method, url } of routes) {
      const res = await svc.app.inject({ method: method as 'GET', url });
      const expected = url === '/api/v1/health' || url === '/health/ready' ? 200 : 401;
      assert.equal(res.statusCode, expected, `${method} ${url}`);
      assert.ok(res.headers['x-request-id'], `${method} ${url}`);
    }
  });

  for (const [method, url] of [
    ['GET', '/elsewhere'],
    ['POST', '/api/v1/health'],
    ['DELETE', '/api/v1/health'],
    ['GET', '/api/v1/health/x'],
    ['GET', '/api/v1/healthz'],
  ] as const) {
    it(`unknown ${method} ${url}: 401 without a token, 404 not_found with one (D3)`, async () => {
      const anonymous = await svc.app.inject({ method, url });
      assert.equal(anonymous.statusCode, 401);
      assert.equal(anonymous.json().error, 'unauthorized');
      const known = await svc.app.inject({ method, url, headers: { authorization: `Bearer ${TEST_TOKEN}` } });
      assert.equal(known.statusCode, 404);
      assert.equal(known.json().error, 'not_found');
      assert.equal(known.json().request_id, known.headers['x-request-id']);
    });
  }

  it('an unauthenticated oversize body to an unknown path is 401, not 413', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/nowhere',
      headers: { 'content-type': 'application/json', 'content-length': String(1024 ** 3) },
      payload: '{}',
    });
    assert.equal(res.statusCode, 401);
  });
});
