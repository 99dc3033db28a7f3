// Cross-site rules through HTTP (decisions B8, B45): `Origin: null` is refused whatever the Referer says
// (decision B8), and CORS answers only the configured front ends, with credentials (decision B45).
// The same rules in a real browser across sibling subdomains: browser-cors.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { APP, GOV, bridge, type Bridge } from './harness.ts';
import { loadBridgeConfig } from '../src/config.ts';

const FOREIGN = 'https://evil.domdao.example';
const corsHeaders = (h: Record<string, unknown>) => Object.keys(h).filter((k) => k.startsWith('access-control-'));

describe('cross-site rules (decisions B8, B45)', () => {
  let h: Bridge;
  before(async () => {
    h = await bridge();
    await h.member('ada@example.org');
  });
  after(() => h.close());

  it('decision B8: `Origin: null` is refused even with a trusted Referer (login and a cookie-carrying logout)', async () => {
    const login = await h.request({
      method: 'POST',
      url: '/auth/login',
      origin: null,
      headers: { origin: 'null', referer: `${APP}/welcome` },
      payload: { email: 'ada@example.org', password: 'correct horse battery staple' },
    });
    assert.equal(login.statusCode, 403, login.body);
    assert.equal(login.json().error, 'CSRF_REJECTED');
    assert.match(login.json().message, /null/);
    assert.equal(login.headers['set-cookie'], undefined, 'no session');

    const { jar } = await h.login('ada@example.org');
    const out = await h.request({
      method: 'POST',
      url: '/auth/logout',
      jar,
      origin: null,
      headers: { origin: 'null', referer: `${GOV}/` },
    });
    assert.equal(out.statusCode, 403);
    assert.equal(out.json().error, 'CSRF_REJECTED');
    assert.equal(
      (await h.request({ method: 'GET', url: '/auth/session', jar })).json().authenticated,
      true,
      'the session is untouched',
    );
    // Without any Origin, the Referer of a front end is still accepted (browsers that omit Origin).
    const viaReferer = await h.request({
      method: 'POST',
      url: '/auth/logout',
      jar,
      origin: null,
      headers: { referer: `${GOV}/` },
    });
    assert.equal(viaReferer.statusCode, 200);
  });

  it('decision B8: what an HTML form can really send (urlencoded, multipart, text/plain; with a body or empty) with a session cookie changes nothing, from a foreign origin, with no Origin, with `Origin: null`, and from a front end', async () => {
    const { jar } = await h.login('ada@example.org');
    const forms: Array<[string, string]> = [
      ['application/x-www-form-urlencoded', 'a=b'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--\r\n'],
      ['text/plain', '{"a":"b"}'],
      ['application/x-www-form-urlencoded', ''],
      ['text/plain', ''],
    ];
    const seen: string[] = [];
    for (const [type, body] of forms) {
      for (const origin of [FOREIGN, null, 'null', APP]) {
        const r = await h.request({
          method: 'POST',
          url: '/auth/logout',
          jar,
          origin: origin === 'null' ? null : origin,
          headers: { 'content-type': type, ...(origin === 'null' && { origin: 'null' }) },
          payload: body,
        });
        seen.push(
          `${type.split(';')[0]} ${body ? 'body' : 'empty'} ${origin ?? 'none'}: ${r.statusCode} ${r.json().error ?? ''}`,
        );
      }
    }
    assert.deepEqual(seen, [
      `application/x-www-form-urlencoded body ${FOREIGN}: 415 UNSUPPORTED_MEDIA_TYPE`,
      'application/x-www-form-urlencoded body none: 415 UNSUPPORTED_MEDIA_TYPE',
      'application/x-www-form-urlencoded body null: 415 UNSUPPORTED_MEDIA_TYPE',
      `application/x-www-form-urlencoded body ${APP}: 415 UNSUPPORTED_MEDIA_TYPE`,
      `multipart/form-data body ${FOREIGN}: 415 UNSUPPORTED_MEDIA_TYPE`,
      'multipart/form-data body none: 415 UNSUPPORTED_MEDIA_TYPE',
      'multipart/form-data body null: 415 UNSUPPORTED_MEDIA_TYPE',
      `multipart/form-data body ${APP}: 415 UNSUPPORTED_MEDIA_TYPE`,
      `text/plain body ${FOREIGN}: 403 CSRF_REJECTED`,
      'text/plain body none: 403 CSRF_REJECTED',
      'text/plain body null: 403 CSRF_REJECTED',
      `text/plain body ${APP}: 415 UNSUPPORTED_MEDIA_TYPE`,
      `application/x-www-form-urlencoded empty ${FOREIGN}: 415 UNSUPPORTED_MEDIA_TYPE`,
      'application/x-www-form-urlencoded empty none: 415 UNSUPPORTED_MEDIA_TYPE',
      'application/x-www-form-urlencoded empty null: 415 UNSUPPORTED_MEDIA_TYPE',
      `application/x-www-form-urlencoded empty ${APP}: 415 UNSUPPORTED_MEDIA_TYPE`,
      `text/plain empty ${FOREIGN}: 403 CSRF_REJECTED`,
      'text/plain empty none: 403 CSRF_REJECTED',
      'text/plain empty null: 403 CSRF_REJECTED',
      `text/plain empty ${APP}: 200 `, // a front end's logout without a body (the only request here that acts)
    ]);
  });

  it("decision B45: a front end's preflight is answered with its origin echoed, credentials allowed and Vary: Origin", async () => {
    const r = await h.request({
      method: 'OPTIONS',
      url: '/auth/login',
      origin: null,
      headers: {
        origin: GOV,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    assert.equal(r.statusCode, 204);
    assert.equal(r.headers['access-control-allow-origin'], GOV);
    assert.equal(r.headers['access-control-allow-credentials'], 'true');
    assert.match(String(r.headers.vary), /\bOrigin\b/);
    assert.match(String(r.headers['access-control-allow-methods']), /\bPOST\b/);
    assert.match(String(r.headers['access-control-allow-headers']), /content-type/i);
    assert.equal(r.headers['access-control-max-age'], '600');
  });

  it("decision B45: a front end's credentialed GET can read the answer; the session answer varies by Origin", async () => {
    const { jar } = await h.login('ada@example.org');
    const r = await h.request({ method: 'GET', url: '/api/auth/session', jar, headers: { origin: APP } });
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers['access-control-allow-origin'], APP);
    assert.equal(r.headers['access-control-allow-credentials'], 'true');
    assert.match(String(r.headers.vary), /\bOrigin\b/);
    assert.equal(r.json().authenticated, true);
  });

  it('decision B45: any other origin (a sibling subdomain, `null`, a look-alike) gets no CORS header at all', async () => {
    for (const origin of [FOREIGN, 'null', `${APP}.evil.example`, 'http://app.domdao.example', `${APP}:8443`]) {
      const pre = await h.request({
        method: 'OPTIONS',
        url: '/auth/login',
        origin: null,
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      assert.deepEqual(corsHeaders(pre.headers), [], `preflight from ${origin}`);
      const get = await h.request({ method: 'GET', url: '/auth/session', headers: { origin } });
      assert.deepEqual(corsHeaders(get.headers), [], `GET from ${origin}`);
      const post = await h.request({
        method: 'POST',
        url: '/auth/login',
        origin,
        payload: { email: 'ada@example.org', password: 'correct horse battery staple' },
      });
      assert.equal(post.statusCode, 403, `login from ${origin}`);
      assert.deepEqual(corsHeaders(post.headers), [], `POST from ${origin}`);
    }
  });

  it("decision B48: the bridge's own origin (PUBLIC_URL) is trusted for its own pages; the first front end stays the default target", async () => {
    const own = 'https://bridge.domdao.example';
    const login = await h.request({
      method: 'POST',
      url: '/auth/login',
      origin: own,
      payload: { email: 'ada@example.org', password: 'correct horse battery staple' },
    });
    assert.equal(login.statusCode, 200, login.body);
    assert.match((await h.request({ method: 'GET', url: '/login' })).body, new RegExp(`data-return="${APP}/?"`));
    assert.throws(
      () => loadBridgeConfig({ NODE_ENV: 'test', PUBLIC_URL: 'bridge.domdao.example' }),
      /PUBLIC_URL: bridge\.domdao\.example is not an http\(s\) URL/,
    );
  });
});
