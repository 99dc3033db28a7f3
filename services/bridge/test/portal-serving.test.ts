// The bridge's `/` and the member web app's other paths (decisions F1–F4; supersedes B46's
// interim page): index.html of the built app under a strict Content-Security-Policy, content-hashed
// assets cached for a year, the brand from the email configuration, and every other path still the
// bridge's JSON 404. What the pages do is tested in Chromium (portal-browser.test.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadBridgeConfig } from '../src/config.ts';
import { bridge, type Bridge } from './harness.ts';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

describe("the member web app at the bridge's / (decisions F1–F4)", () => {
  let h: Bridge;
  const dir = mkdtempSync(join(tmpdir(), 'domdao-portal-'));
  before(async () => {
    // A build of our own: these tests check the serving, not the bundle.
    mkdirSync(join(dir, 'assets'));
    writeFileSync(
      join(dir, 'index.html'),
      '<!doctype html><title>DOM DAO</title><script type="module" src="/assets/app-TEST1234.js"></script><div id="app"></div>',
    );
    writeFileSync(join(dir, 'assets', 'app-TEST1234.js'), 'console.log("app")');
    writeFileSync(join(dir, 'assets', 'app-TEST1234.css'), 'body{}');
    h = await bridge(undefined, {
      PORTAL_DIR: dir,
      BRAND_DAO_NAME: 'Garden Co-op',
      BRAND_DAO_PRIMARY_COLOR: '#0F766E',
    });
  });
  after(() => h.close());

  it('decision F2: every app path answers index.html with the strict CSP, no-cache and no framing', async () => {
    for (const path of [
      '/',
      '/join',
      '/govern',
      '/proposals/12',
      '/price',
      '/campaigns',
      '/campaigns/3',
      '/me',
      '/admin',
    ]) {
      const r = await h.request({ method: 'GET', url: path });
      assert.equal(r.statusCode, 200, path);
      assert.match(String(r.headers['content-type']), /^text\/html; charset=utf-8/);
      assert.equal(r.headers['content-security-policy'], CSP, path);
      assert.equal(r.headers['cache-control'], 'no-cache');
      assert.equal(r.headers['x-frame-options'], 'DENY');
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
      assert.match(r.body, /<div id="app"><\/div>/);
    }
    assert.equal((await h.request({ method: 'HEAD', url: '/' })).statusCode, 200);
  });

  it('decision F2: assets are served with their type and cached as immutable; an unknown asset is a JSON 404', async () => {
    const js = await h.request({ method: 'GET', url: '/assets/app-TEST1234.js' });
    assert.deepEqual(
      [js.statusCode, js.headers['content-type'], js.headers['cache-control'], js.body],
      [200, 'text/javascript; charset=utf-8', 'public, max-age=31536000, immutable', 'console.log("app")'],
    );
    assert.equal(
      (await h.request({ method: 'GET', url: '/assets/app-TEST1234.css' })).headers['content-type'],
      'text/css; charset=utf-8',
    );
    const missing = await h.request({ method: 'GET', url: '/assets/nope.js' });
    assert.deepEqual([missing.statusCode, missing.json().error], [404, 'NOT_FOUND']);
    assert.equal(
      (await h.request({ method: 'GET', url: '/assets/..%2Findex.html' })).statusCode,
      404,
      'no path out of assets/',
    );
  });

  it('decision F4: the brand comes from the same BRAND_DAO_* variables as the emails', async () => {
    const r = await h.request({ method: 'GET', url: '/portal/brand.json' });
    assert.deepEqual(r.json(), {
      name: 'Garden Co-op',
      primary_color: '#0F766E',
      background_color: '#F4F4F7',
      logo_url: null,
    });
  });

  it("other paths and methods keep the bridge's answers: unknown paths JSON 404, POST / 404, the API untouched", async () => {
    const other = await h.request({ method: 'GET', url: '/nope' });
    assert.deepEqual([other.statusCode, other.json().error], [404, 'NOT_FOUND']);
    assert.equal((await h.request({ method: 'GET', url: '/proposals/12/extra' })).statusCode, 404);
    assert.equal((await h.request({ method: 'POST', url: '/', payload: {} })).statusCode, 404);
    assert.equal((await h.request({ method: 'GET', url: '/api/governance/settings' })).statusCode, 200);
    assert.match((await h.request({ method: 'GET', url: '/login' })).body, /<form/);
  });

  it('decision F1: a bridge without a build says how to build it at `/` (and the API still works)', async () => {
    const bare = await bridge(undefined, { PORTAL_DIR: join(dir, 'missing') });
    try {
      const r = await bare.request({ method: 'GET', url: '/' });
      assert.equal(r.statusCode, 200);
      assert.match(r.body, /npm run build:portal/);
    } finally {
      await bare.close();
    }
  });

  it('configuration: a bad brand colour or logo URL is refused at start-up', () => {
    assert.throws(
      () => loadBridgeConfig({ BRAND_DAO_PRIMARY_COLOR: 'blue' }),
      /BRAND_DAO_PRIMARY_COLOR: a colour #RRGGBB/,
    );
    assert.throws(
      () => loadBridgeConfig({ BRAND_DAO_LOGO_URL: 'http://insecure.example/logo.png' }),
      /BRAND_DAO_LOGO_URL/,
    );
    assert.equal(
      loadBridgeConfig({ BRAND_DAO_LOGO_URL: 'https://cdn.example/logo.png' }).BRAND_DAO_LOGO_URL,
      'https://cdn.example/logo.png',
    );
    assert.throws(
      () => loadBridgeConfig({ NODE_ENV: 'production', DEV_CHECKOUT: 'true' }),
      /DEV_CHECKOUT: development only/,
      'decision F8',
    );
  });
  it('decision F8: the simulated checkout is off unless DEV_CHECKOUT is set; both routes need a session', async () => {
    assert.equal((await h.request({ method: 'POST', url: '/api/dev/checkout', payload: {} })).statusCode, 401);
    assert.equal((await h.request({ method: 'GET', url: '/api/me/membership-upgrade' })).statusCode, 401);
    const m = await h.member('checkout-off@example.org');
    const off = await h.request({ method: 'POST', url: '/api/dev/checkout', payload: {}, jar: m.jar });
    assert.deepEqual([off.statusCode, off.json().error], [404, 'NOT_FOUND']);
    assert.deepEqual((await h.request({ method: 'GET', url: '/api/me/membership-upgrade', jar: m.jar })).json(), {
      kyc_status: 'none',
      adult: true,
      price_minor: '2500',
      currency: 'USD',
      simulated_checkout: false,
    });
  });
  it('decision F9: a member lists their sessions and ends them all; no session 401; a foreign Origin 403 and nothing ends', async () => {
    assert.equal((await h.request({ method: 'GET', url: '/api/me/sessions' })).statusCode, 401);
    const m = await h.member('sessions@example.org');
    const second = await h.login('sessions@example.org');
    const list = await h.request({ method: 'GET', url: '/api/me/sessions', jar: m.jar });
    assert.equal(list.statusCode, 200);
    assert.equal((list.json() as { sessions: unknown[] }).sessions.length, 2);
    assert.equal(list.headers['cache-control'], 'private, no-store');
    const foreign = await h.request({
      method: 'DELETE',
      url: '/api/me/sessions',
      jar: m.jar,
      origin: 'https://evil.example',
    });
    assert.deepEqual([foreign.statusCode, foreign.json().error], [403, 'CSRF_REJECTED']);
    assert.equal(
      (await h.request({ method: 'GET', url: '/api/me/sessions', jar: second.jar })).statusCode,
      200,
      'nothing ended',
    );
    const out = await h.request({ method: 'DELETE', url: '/api/me/sessions', jar: m.jar });
    assert.deepEqual(out.json(), { authenticated: false, sessions_ended: 2 });
    assert.equal(
      (await h.request({ method: 'GET', url: '/api/me/sessions', jar: second.jar })).statusCode,
      401,
      'the other session ended too',
    );
  });
});
