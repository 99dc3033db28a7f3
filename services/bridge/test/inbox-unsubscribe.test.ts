// Spec 3 "Unsubscribe token" and "User digest preference" (decisions N1–N6): the token's
// format, constant-time check, expiry and rotation; GET/PUT of the preference with the session and
// the cross-site rule; GET /unsubscribe and RFC 8058 one-click POST /unsubscribe, both idempotent,
// and every refused token changing nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signUnsubscribeToken, verifyUnsubscribeToken } from '../src/features/inbox/unsubscribe-token.ts';
import { bridge, type Bridge, type Jar } from './harness.ts';

const DAY = 86_400_000;
const OLD = 'old-signing-secret-0123456789abcdef-old';
const NEW = 'new-signing-secret-0123456789abcdef-new';
const key = (s: string) => new TextEncoder().encode(s);
const A = '2b7f3c9e-1d4a-4f6b-9c8e-0a1b2c3d4e5f';
const B = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

describe('unsubscribe token (spec 3, decision N2)', () => {
  const now = Date.parse('2026-03-10T12:00:00Z');
  const token = signUnsubscribeToken(key(NEW), A, now + 30 * DAY);

  it('format v1.<user_id>.<expires_at seconds>.<base64url HMAC-SHA256>; verifies until expires_at, exactly then expired', () => {
    assert.match(token, /^v1\.2b7f3c9e-1d4a-4f6b-9c8e-0a1b2c3d4e5f\.\d{10}\.[A-Za-z0-9_-]{43}$/);
    assert.equal(token.split('.')[2], String((now + 30 * DAY) / 1000));
    assert.deepEqual(verifyUnsubscribeToken([key(NEW)], token, now), {
      ok: true,
      userId: A,
      expiresAt: now + 30 * DAY,
    });
    assert.deepEqual(verifyUnsubscribeToken([key(NEW)], token, now + 30 * DAY - 1000).ok, true);
    assert.deepEqual(verifyUnsubscribeToken([key(NEW)], token, now + 30 * DAY), { ok: false, reason: 'expired' });
  });

  it('tampered: another user id, a later expiry, a changed MAC, wrong secret → signature; junk → malformed', () => {
    const [v, , exp, mac] = token.split('.');
    assert.deepEqual(
      verifyUnsubscribeToken([key(NEW)], `${v}.${B}.${exp}.${mac}`, now),
      { ok: false, reason: 'signature' },
      "another user's id under A's MAC",
    );
    assert.deepEqual(
      verifyUnsubscribeToken([key(NEW)], `${v}.${A}.${Number(exp) + 86_400}.${mac}`, now),
      { ok: false, reason: 'signature' },
      'extended expiry',
    );
    const flipped = `${mac!.slice(0, 10)}${mac![10] === 'A' ? 'B' : 'A'}${mac!.slice(11)}`;
    assert.deepEqual(verifyUnsubscribeToken([key(NEW)], `${v}.${A}.${exp}.${flipped}`, now), {
      ok: false,
      reason: 'signature',
    });
    assert.deepEqual(verifyUnsubscribeToken([key(OLD)], token, now), { ok: false, reason: 'signature' });
    for (const junk of [
      undefined,
      '',
      'v2' + token.slice(2),
      token + '=',
      token.replace(/\./g, ':'),
      `${v}.${A}.${exp}.${mac}x`,
      'x'.repeat(500),
    ]) {
      assert.deepEqual(verifyUnsubscribeToken([key(NEW)], junk, now), { ok: false, reason: 'malformed' }, String(junk));
    }
  });

  it('rotation: a token signed with the previous secret verifies while SIGNING_SECRET_PREVIOUS is configured, not after', () => {
    const old = signUnsubscribeToken(key(OLD), A, now + 30 * DAY);
    assert.equal(verifyUnsubscribeToken([key(NEW), key(OLD)], old, now).ok, true);
    assert.equal(verifyUnsubscribeToken([key(NEW), key(OLD)], token, now).ok, true);
    assert.deepEqual(verifyUnsubscribeToken([key(NEW)], old, now), { ok: false, reason: 'signature' });
  });
});

describe('digest preference and unsubscribe over HTTP (spec 3; decisions N1–N6)', () => {
  let h: Bridge;
  let ada: { jar: Jar; user_id: string };
  let bob: { jar: Jar; user_id: string };
  before(async () => {
    h = await bridge(undefined, { SIGNING_SECRET: NEW, SIGNING_SECRET_PREVIOUS: OLD });
    ada = await h.member('ada@example.org');
    bob = await h.member('bob@example.org');
  });
  after(() => h.close());

  const prefs = (jar: Jar) => h.request({ method: 'GET', url: '/api/me/notification-preferences', jar });
  const put = (jar: Jar | undefined, payload: unknown, origin?: string | null) =>
    h.request({
      method: 'PUT',
      url: '/api/me/notification-preferences',
      payload: payload as object,
      ...(jar && { jar }),
      ...(origin !== undefined && { origin }),
    });
  const frequency = async (userId: string) =>
    (
      await h.opened.db
        .selectFrom('digest_preferences')
        .select('digest_frequency')
        .where('user_id', '=', userId)
        .executeTakeFirst()
    )?.digest_frequency ?? 'none';
  const tokenFor = (userId: string, secret = NEW, expires = h.now() + 30 * DAY) =>
    signUnsubscribeToken(key(secret), userId, expires);

  it('decision N4: a new member has none (opt-in); PUT with the session from a front end changes it; GET shows it', async () => {
    assert.deepEqual((await prefs(ada.jar)).json(), {
      digest_frequency: 'none',
      vote_reminders: false,
      last_digest_sent_at: null,
    });
    const r = await put(ada.jar, { digest_frequency: 'daily' });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { digest_frequency: 'daily', vote_reminders: false, last_digest_sent_at: null });
    assert.deepEqual(
      (await put(ada.jar, { vote_reminders: true })).json(),
      { digest_frequency: 'daily', vote_reminders: true, last_digest_sent_at: null },
      'a partial PUT keeps the other field',
    );
    assert.equal((await prefs(ada.jar)).json().digest_frequency, 'daily');
  });

  it('decision N6: PUT needs the session (401), a front-end Origin (403 CSRF_REJECTED) and a valid body (400); nothing changes', async () => {
    await put(bob.jar, { digest_frequency: 'weekly' });
    assert.equal((await put(undefined, { digest_frequency: 'daily' })).statusCode, 401);
    const cross = await put(bob.jar, { digest_frequency: 'none' }, 'https://evil.example');
    assert.equal(cross.statusCode, 403);
    assert.equal(cross.json().error, 'CSRF_REJECTED');
    assert.equal((await put(bob.jar, { digest_frequency: 'none' }, null)).statusCode, 403, 'no Origin at all');
    // Unknown fields are dropped, as everywhere in the bridge (decision V11); an empty change is refused.
    for (const bad of [
      {},
      { extra: 1 },
      { digest_frequency: 'hourly' },
      { vote_reminders: 'yes' },
      { digest_frequency: null },
    ]) {
      const r = await put(bob.jar, bad);
      assert.equal(r.statusCode, 400, JSON.stringify(bad));
      assert.equal(r.json().error, 'VALIDATION_ERROR');
    }
    assert.equal(await frequency(bob.user_id), 'weekly');
    assert.equal((await h.request({ method: 'GET', url: '/api/me/notification-preferences' })).statusCode, 401);
  });

  it('GET /unsubscribe with a valid token sets none (200, branded page), and again (idempotent)', async () => {
    await put(ada.jar, { digest_frequency: 'daily' });
    const url = `/unsubscribe?token=${tokenFor(ada.user_id)}`;
    for (let i = 0; i < 2; i++) {
      const r = await h.request({ method: 'GET', url });
      assert.equal(r.statusCode, 200);
      assert.match(String(r.headers['content-type']), /^text\/html/);
      assert.match(r.body, /You are unsubscribed/);
      assert.match(r.body, /DOM DAO/);
      assert.match(r.body, /href="https:\/\/bridge\.domdao\.example\/preferences"/);
      assert.equal(r.headers['referrer-policy'], 'no-referrer');
      assert.equal(await frequency(ada.user_id), 'none');
    }
    assert.equal((await prefs(ada.jar)).json().vote_reminders, true, 'only the digest is turned off');
    assert.equal(await frequency(bob.user_id), 'weekly', "another member's preference is untouched");
  });

  it("tampered, expired, other user's and unknown-secret tokens → 400 page linking to the preferences; nothing changes", async () => {
    await put(ada.jar, { digest_frequency: 'daily' });
    const good = tokenFor(ada.user_id);
    const [v, , exp, mac] = good.split('.');
    const cases: Array<[string, RegExp]> = [
      [`${v}.${bob.user_id}.${exp}.${mac}`, /not valid/],
      [tokenFor(ada.user_id, NEW, h.now()), /expired/],
      [tokenFor(ada.user_id, NEW, h.now() - 1000), /expired/],
      [tokenFor(ada.user_id, 'some-other-secret-0123456789abcdefgh'), /not valid/],
      ['garbage', /not valid/],
      ['', /not valid/],
    ];
    for (const [token, text] of cases) {
      const r = await h.request({ method: 'GET', url: `/unsubscribe?token=${encodeURIComponent(token)}` });
      assert.equal(r.statusCode, 400, token);
      assert.match(r.body, text);
      assert.match(r.body, /nothing was changed/);
      assert.match(r.body, /href="https:\/\/bridge\.domdao\.example\/preferences"/);
    }
    assert.equal((await h.request({ method: 'GET', url: '/unsubscribe' })).statusCode, 400, 'no token');
    assert.equal(await frequency(ada.user_id), 'daily');
    assert.equal(await frequency(bob.user_id), 'weekly');
  });

  it('rotation: a digest sent before SIGNING_SECRET changed still unsubscribes (SIGNING_SECRET_PREVIOUS)', async () => {
    await put(ada.jar, { digest_frequency: 'weekly' });
    const r = await h.request({ method: 'GET', url: `/unsubscribe?token=${tokenFor(ada.user_id, OLD)}` });
    assert.equal(r.statusCode, 200);
    assert.equal(await frequency(ada.user_id), 'none');
  });

  it('RFC 8058 one-click POST: no cookie, no Origin, form body List-Unsubscribe=One-Click → none; repeat → 200', async () => {
    await put(bob.jar, { digest_frequency: 'daily' });
    const url = `/unsubscribe?token=${tokenFor(bob.user_id)}`;
    const oneClick = () =>
      h.request({
        method: 'POST',
        url,
        origin: null,
        payload: 'List-Unsubscribe=One-Click',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    const r = await oneClick();
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(await frequency(bob.user_id), 'none');
    assert.equal((await oneClick()).statusCode, 200, 'idempotent');
    // multipart/form-data is the other body RFC 8058 allows.
    await put(bob.jar, { digest_frequency: 'daily' });
    const boundary = 'xYzZY';
    const multipart = `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`;
    const m = await h.request({
      method: 'POST',
      url,
      origin: null,
      payload: multipart,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    assert.equal(m.statusCode, 200, m.body);
    assert.equal(await frequency(bob.user_id), 'none');
  });

  it('POST: a cookie from another site does not block it (the token is the credential); a wrong body or token changes nothing', async () => {
    await put(bob.jar, { digest_frequency: 'daily' });
    const url = `/unsubscribe?token=${tokenFor(bob.user_id)}`;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    assert.equal(
      (await h.request({ method: 'POST', url, payload: 'List-Unsubscribe=Yes', origin: null, headers: form }))
        .statusCode,
      400,
    );
    assert.equal(
      (await h.request({ method: 'POST', url, payload: { 'List-Unsubscribe': 'One-Click' } })).statusCode,
      400,
      'JSON is not the RFC 8058 body',
    );
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: `/unsubscribe?token=${tokenFor(bob.user_id, NEW, h.now() - 1)}`,
          payload: 'List-Unsubscribe=One-Click',
          origin: null,
          headers: form,
        })
      ).statusCode,
      400,
    );
    assert.equal(await frequency(bob.user_id), 'daily');
    const r = await h.request({
      method: 'POST',
      url,
      jar: ada.jar,
      origin: 'https://mail.example',
      payload: 'List-Unsubscribe=One-Click',
      headers: form,
    });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(await frequency(bob.user_id), 'none');
  });

  it('GET /preferences: the signed-in page shows the choice; signed out, a sign-in link back to it', async () => {
    const out = await h.request({ method: 'GET', url: '/preferences' });
    assert.equal(out.statusCode, 200);
    assert.match(out.body, /Sign in/);
    assert.match(out.body, /returnUrl=https%3A%2F%2Fbridge\.domdao\.example%2Fpreferences/);
    await put(ada.jar, { digest_frequency: 'weekly' });
    const page = await h.request({ method: 'GET', url: '/preferences', jar: ada.jar });
    assert.match(page.body, /<option value="weekly" selected>/);
    assert.match(page.body, /ada@example\.org/);
  });
});
