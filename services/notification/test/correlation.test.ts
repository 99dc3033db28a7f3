// Spec 3 "Request correlation" and GET /api/v1/health.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeService, TEST_TOKEN, validBody } from './harness.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('GET /api/v1/health', () => {
  let svc: Awaited<ReturnType<typeof makeService>>;
  before(async () => (svc = await makeService()));
  after(() => svc.close());

  it('answers 200 {status: ok} without a token (spec 3 Endpoints; Authentication rule 1 exempts health)', async () => {
    const res = await svc.app.inject({ method: 'GET', url: '/api/v1/health' });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.status, 'ok');
    assert.match(body.request_id, UUID);
    assert.equal(res.headers['x-request-id'], body.request_id);
  });

  it('answers unknown paths with 404 not_found after auth, with request_id', async () => {
    const res = await svc.app.inject({
      method: 'GET',
      url: '/api/v1/nope',
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(Object.keys(res.json()).sort(), ['error', 'request_id']);
    assert.equal(res.json().error, 'not_found');
  });
});

describe('X-Request-Id (spec 3 Request correlation)', () => {
  let svc: Awaited<ReturnType<typeof makeService>>;
  before(async () => (svc = await makeService()));
  after(() => svc.close());

  const health = (id?: string) =>
    svc.app.inject({ method: 'GET', url: '/api/v1/health', headers: id === undefined ? {} : { 'x-request-id': id } });

  for (const [version, id] of [
    ['v1', 'c232ab00-9414-11ec-b3c8-9e6bdeced846'],
    ['v2', '000003e8-9414-21ec-8d00-325096b39f47'],
    ['v3', '5df41881-3aed-3515-88a7-2f4a814cf09e'],
    ['v4', '7d9f1a52-3c4b-4e8d-9a1f-2b3c4d5e6f70'],
    ['v5', '2ed6657d-e927-568b-95e1-2665a8aea6a2'],
  ]) {
    it(`rule 2: keeps a caller's well-formed RFC 4122 ${version} UUID`, async () => {
      const res = await health(id);
      assert.equal(res.json().request_id, id);
      assert.equal(res.headers['x-request-id'], id);
    });
  }

  it('rule 2: UUIDs are matched case-insensitively and echoed as sent', async () => {
    const id = '7D9F1A52-3C4B-4E8D-9A1F-2B3C4D5E6F70';
    const res = await health(id);
    assert.equal(res.json().request_id, id);
  });

  for (const [why, id] of [
    ['nil UUID', '00000000-0000-0000-0000-000000000000'],
    ['version 7', '01890a5d-ac96-774b-bcce-b302099a8057'],
    ['version 0', '7d9f1a52-3c4b-0e8d-9a1f-2b3c4d5e6f70'],
    ['wrong variant', '7d9f1a52-3c4b-4e8d-ca1f-2b3c4d5e6f70'],
    ['no dashes', '7d9f1a523c4b4e8d9a1f2b3c4d5e6f70'],
    ['braces', '{7d9f1a52-3c4b-4e8d-9a1f-2b3c4d5e6f70}'],
    ['trailing text', '7d9f1a52-3c4b-4e8d-9a1f-2b3c4d5e6f70 x'],
    ['log injection', 'abc","level":"fatal'],
    ['empty', ''],
  ]) {
    it(`rule 2: discards a ${why} and generates a new UUID`, async () => {
      const res = await health(id);
      const got = res.json().request_id as string;
      assert.match(got, UUID);
      assert.notEqual(got, id);
      assert.equal(res.headers['x-request-id'], got);
    });
  }

  it('rule 1: request_id is in error bodies and the header too (401, 400)', async () => {
    const id = '7d9f1a52-3c4b-4e8d-9a1f-2b3c4d5e6f71';
    const unauth = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/send',
      headers: { 'x-request-id': id },
      payload: {},
    });
    assert.equal(unauth.statusCode, 401);
    assert.equal(unauth.json().request_id, id);
    assert.equal(unauth.headers['x-request-id'], id);
    const bad = await svc.send({ type: 'nope' }, { 'x-request-id': id });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().request_id, id);
  });

  it('rule 1: every log line of a request carries its request_id', async () => {
    const id = '7d9f1a52-3c4b-4e8d-9a1f-2b3c4d5e6f72';
    const res = await svc.send(validBody('welcome'), { 'x-request-id': id });
    assert.equal(res.statusCode, 200);
    const mine = svc.logs
      .lines()
      .filter((l) => l.request_id === id)
      .map((l) => l.event);
    assert.ok(mine.includes('email.stub_send'));
    const failed = await svc.send({ type: 'nope' }, { 'x-request-id': '7d9f1a52-3c4b-4e8d-9a1f-2b3c4d5e6f73' });
    assert.equal(failed.statusCode, 400);
    assert.ok(
      svc.logs
        .lines()
        .some(
          (l) =>
            l.request_id === '7d9f1a52-3c4b-4e8d-9a1f-2b3c4d5e6f73' &&
            l.event === 'request.completed' &&
            l.status === 400,
        ),
    );
    // Nothing logged during the request lacks the id.
    const during = svc.logs.lines().filter((l) => ['email.stub_send', 'request.completed'].includes(String(l.event)));
    assert.ok(during.every((l) => typeof l.request_id === 'string'));
  });
});

describe('request.completed with LOG_REQUESTS=false (decisions D24, D50): the access line of a successful request is DEBUG, of a failed one INFO', () => {
  for (const [level, expected] of [
    ['debug', true],
    ['info', false],
  ] as const) {
    it(`LOG_LEVEL=${level}: request.completed for a 200 is ${expected ? '' : 'not '}written; a 400 always is`, async (t) => {
      const svc = await makeService({ LOG_LEVEL: level, LOG_REQUESTS: 'false' });
      t.after(() => svc.close());
      const ok = await svc.send(validBody('welcome'), { 'x-request-id': '7d9f1a52-3c4b-4e8d-9a1f-2b3c4d5e6f81' });
      assert.equal(ok.statusCode, 200);
      const bad = await svc.send({ type: 'nope' }, { 'x-request-id': '7d9f1a52-3c4b-4e8d-9a1f-2b3c4d5e6f82' });
      assert.equal(bad.statusCode, 400);
      const completed = (id: string) =>
        svc.logs.lines().filter((l) => l.event === 'request.completed' && l.request_id === id);
      assert.equal(completed('7d9f1a52-3c4b-4e8d-9a1f-2b3c4d5e6f81').length, expected ? 1 : 0);
      if (expected) assert.equal(completed('7d9f1a52-3c4b-4e8d-9a1f-2b3c4d5e6f81')[0]!.status, 200);
      assert.equal(completed('7d9f1a52-3c4b-4e8d-9a1f-2b3c4d5e6f82').length, 1);
    });
  }
});
