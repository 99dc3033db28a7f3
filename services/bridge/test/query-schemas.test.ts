// Decision S28 through HTTP: the routes whose handlers cast `req.query` now declare it in their
// schema, so a query the schema refuses gets the documented 400 (VALIDATION_ERROR for the JSON API;
// the page's own 400 for a page) instead of being ignored or read as something else. Limits at the
// limit and one past.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ADMIN_EMAIL, bridge, eventually, type Bridge, type Jar } from './harness.ts';

function assertValidation(r: LightMyRequestResponse, field: string) {
  assert.equal(r.statusCode, 400, r.body);
  assert.equal(r.json().error, 'VALIDATION_ERROR', r.body);
  assert.match(r.json().message, new RegExp(`querystring/${field}`), r.body);
}

function assertPage(r: LightMyRequestResponse, status: number) {
  assert.equal(r.statusCode, status, r.body.slice(0, 300));
  assert.match(String(r.headers['content-type']), /^text\/html/);
}

describe('queries typed by their route schemas (decision S28)', () => {
  let h: Bridge;
  let admin: Jar;
  before(async () => {
    h = await bridge();
    admin = (await h.member(ADMIN_EMAIL)).jar;
  });
  after(() => h.close());

  const get = (url: string, jar?: Jar) => h.request({ method: 'GET', url, ...(jar && { jar }) });

  it('decision S28: GET /api/admin/outbox: limit 500 answers, 501 and an unknown state are 400 VALIDATION_ERROR', async () => {
    assert.equal((await get('/api/admin/outbox?limit=500&state=pending', admin)).statusCode, 200);
    assertValidation(await get('/api/admin/outbox?limit=501', admin), 'limit');
    assertValidation(await get('/api/admin/outbox?state=lost', admin), 'state');
  });

  it('decision S28: GET /api/admin/payments: a status it does not know is 400 VALIDATION_ERROR (it was ignored: every payment)', async () => {
    for (const status of ['pending', 'escrow', 'applied'])
      assert.equal((await get(`/api/admin/payments?status=${status}`, admin)).statusCode, 200, status);
    assertValidation(await get('/api/admin/payments?status=refunded', admin), 'status');
  });

  it('decision S28: GET /api/admin/notifications: after_id of 19 digits answers; 20 digits or not a number is 400 VALIDATION_ERROR (it was ignored: from the start)', async () => {
    const page = await get('/api/admin/notifications?after_id=9999999999999999999', admin);
    assert.equal(page.statusCode, 200, page.body);
    assert.deepEqual(page.json(), { notifications: [] });
    assertValidation(await get('/api/admin/notifications?after_id=10000000000000000000', admin), 'after_id');
    assertValidation(await get('/api/admin/notifications?after_id=abc', admin), 'after_id');
  });

  it('decision S28: GET /login: a returnUrl of 2048 characters is the form; 2049, or two of them, is the page’s 400', async () => {
    const at = `https://app.domdao.example/${'a'.repeat(2048 - 'https://app.domdao.example/'.length)}`;
    const form = await get(`/login?returnUrl=${encodeURIComponent(at)}`);
    assertPage(form, 200);
    assert.match(form.body, /id="login"/);
    assert.ok(form.body.includes(at), 'the target is the returnUrl');
    const past = await get(`/login?returnUrl=${encodeURIComponent(`${at}b`)}`);
    assertPage(past, 400);
    assert.doesNotMatch(past.body, /id="login"/);
    assertPage(
      await get('/login?returnUrl=https%3A%2F%2Fapp.domdao.example%2F&returnUrl=https%3A%2F%2Fevil.example%2F'),
      400,
    );
    assertPage(await get('/login'), 200);
  });

  it('decision S28: GET /reset-password: the token the email carries is the form; one that cannot be a reset token is the page’s 400', async () => {
    await h.member('rita@example.org');
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: '/api/auth/password-reset/request',
          payload: { email: 'rita@example.org' },
        })
      ).statusCode,
      202,
    );
    const token = await eventually('the reset email', () =>
      h
        .emails()
        .map((m) => /\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(m.text)?.[1])
        .find((t) => t !== undefined),
    );
    assert.equal(token.length, 43);
    const form = await get(`/reset-password?token=${token}`);
    assertPage(form, 200);
    assert.match(form.body, new RegExp(`data-token="${token}"`));
    assertPage(await get('/reset-password'), 200);
    const short = await get(`/reset-password?token=${token.slice(1)}`);
    assertPage(short, 400);
    assert.doesNotMatch(short.body, /id="reset"/);
    assertPage(await get(`/reset-password?token=${token}x`), 400);
  });

  it('decision S28: GET /verify-email: the link and choose=1 are read; choose other than 1 is the invalid-link page (400), as are a token over 64 characters and none', async () => {
    assert.equal((await h.register('vera@example.org')).statusCode, 201);
    const path = h.verificationPath('vera@example.org');
    assertPage(await get(path), 200);
    assertPage(await get(`${path}&choose=1`), 200);
    const other = await get(`${path}&choose=2`);
    assertPage(other, 400);
    assert.match(other.body, /not valid/);
    assertPage(await get(`/verify-email?token=${'a'.repeat(65)}`), 400);
    assertPage(await get('/verify-email'), 400);
  });
});
