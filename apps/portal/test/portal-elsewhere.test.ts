// test-lane: browser (decision R17: one Chromium file at a time)
// Decision F11: the app also works when hosted on another subdomain: the member app built with
// PORTAL_BRIDGE_ORIGIN and served by a plain static server on https://app.dao.test (its own strict CSP,
// naming the bridge in connect-src), the bridge on https://api.dao.test (the session cookie on
// Domain=.dao.test). In Chromium: the app reads proposals across origins, "Sign in" goes to the
// bridge's login page and returns to the app (returnUrl on a FRONTEND_ORIGINS origin), an Active
// member votes (a credentialed cross-origin POST: CORS preflight and the Origin rule), and signing
// out ends the server session. Both hostnames resolve to 127.0.0.1 (--host-resolver-rules); TLS with
// a certificate generated here (openssl) and --ignore-certificate-errors.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { bridgeOrigin, buildPortal } from '../build.ts';
import { requireChromium, SHOTS } from '@domdao/test-helpers/browser';
import {
  closeServers,
  daoTestServers,
  launchDaoTestChromium,
  listen,
  proxyTo,
} from '@domdao/test-helpers/dao-test-tls';
import { bridge, type Bridge } from '@domdao/bridge-service/testing';

const PASSWORD = 'correct horse battery staple';
const HOUR_MS = 3_600_000;
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
};

describe('the member app hosted on another subdomain than the bridge (decision F11)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-portal-elsewhere-'));
  const dist = join(dir, 'dist');
  const servers: Server[] = [];
  let h: Bridge;
  let browser: Browser;
  let api = '';
  let app = '';
  const problems: string[] = [];

  before(async () => {
    requireChromium();
    const [apiServer, appServer] = daoTestServers(dir, 2) as [Server, Server];
    servers.push(apiServer, appServer);
    api = `https://api.dao.test:${await listen(apiServer)}`;
    app = `https://app.dao.test:${await listen(appServer)}`;

    await buildPortal({ force: true, bridgeOrigin: api, outDir: dist });
    // A static host: files as they are, index.html for any other path (the app routes itself).
    const csp = `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src ${api}; form-action ${api}; frame-ancestors 'none'; base-uri 'none'`;
    appServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const path = normalize(decodeURIComponent(new URL(req.url ?? '/', app).pathname));
      const file = join(dist, path);
      const found = file.startsWith(dist) && path !== '/' && existsSync(file) ? file : join(dist, 'index.html');
      res
        .writeHead(200, {
          'content-type': TYPES[extname(found)] ?? 'application/octet-stream',
          'content-security-policy': csp,
        })
        .end(readFileSync(found));
    });

    h = await bridge(undefined, { FRONTEND_ORIGINS: app, COOKIE_DOMAIN: '.dao.test', PUBLIC_URL: api });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    proxyTo(apiServer, (h.app.server.address() as AddressInfo).port);

    // An Active member (registered and verified through the bridge's routes) and an open proposal.
    assert.equal((await h.register('ada@example.org')).statusCode, 201);
    const link = /https:\/\/api\.dao\.test:\d+(\/verify-email\?token=[0-9a-f-]+)/.exec(h.emails().at(-1)!.text)?.[1];
    assert.ok(link, 'the verification link points at PUBLIC_URL');
    assert.equal((await h.verify('ada@example.org', { password: PASSWORD })).statusCode, 200);
    const jar = {};
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: '/auth/login',
          payload: { email: 'ada@example.org', password: PASSWORD },
          jar,
          origin: app,
        })
      ).statusCode,
      200,
    );
    const { user_id } = (await h.request({ method: 'GET', url: '/auth/session', jar })).json() as { user_id: string };
    const { principal } = await h.opened.db
      .selectFrom('users')
      .select('principal')
      .where('id', '=', user_id)
      .executeTakeFirstOrThrow();
    const c = h.opened.canisters.clients;
    assert.ok('Ok' in (await c.user.record_kyc(principal, true)));
    assert.ok(
      'Ok' in
        (await c.user.upgrade_membership_to_active({
          principal,
          kyc_proof: new Uint8Array([1]),
          payment_proof: new Uint8Array([2]),
        })),
    );
    assert.ok(
      'Ok' in
        (await c.governance.create_proposal({
          title: 'Light the path',
          body: 'Solar lamps along the **path**.',
          category: 'General',
        })),
    );
    h.advance(HOUR_MS + 1000);
    await h.opened.canisters.platform!.tick();

    browser = await launchDaoTestChromium();
  });

  after(async () => {
    await browser?.close();
    await closeServers(servers);
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads across origins, signs in on the bridge and comes back, votes with a credentialed POST, signs out', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      // CSP refusals and CORS blocks are console errors; an API's 4xx answer (no ratified price yet, 401
      // before sign-in) is logged as "Failed to load resource" and handled by the app.
      page.on(
        'console',
        (m) =>
          m.type() === 'error' &&
          !/^Failed to load resource/.test(m.text()) &&
          problems.push(`${page.url()}: ${m.text().slice(0, 160)}`),
      );
      page.on('pageerror', (e) => problems.push(`${page.url()}: ${e.message}`));

      await page.goto(`${app}/govern`);
      await page.waitForSelector('text=Light the path');
      assert.equal(await page.getAttribute('meta[name=domdao-bridge]', 'content'), api);
      const signIn = page.locator('header >> text=Sign in');
      const href = (await signIn.getAttribute('href')) ?? '';
      assert.equal(
        href,
        `${api}/login?returnUrl=${encodeURIComponent(`${app}/govern`)}`,
        'the bridge login page, returning to the app',
      );

      await Promise.all([page.waitForURL(`${api}/login?*`), signIn.click()]);
      await page.fill('#email', 'ada@example.org');
      await page.fill('#password', PASSWORD);
      await Promise.all([page.waitForURL(`${app}/govern`), page.click('button[type=submit]')]);
      await page.waitForSelector('header >> text=Sign out');

      await page.click('text=Light the path');
      await page.waitForSelector('text=Vote yes');
      await page.click('text=Vote yes');
      await page.waitForSelector('text=Your vote “Yes” is recorded.');
      await page.screenshot({ path: join(SHOTS, 'elsewhere-voted-1280.png'), fullPage: true });

      // The cookie the browser held (Domain=.dao.test), replayed after the sign-out: its session is gone.
      const cookie = (await context.cookies(api)).map((k) => `${k.name}=${k.value}`).join('; ');
      const before = (await h.request({ method: 'GET', url: '/api/auth/session', headers: { cookie } })).json() as {
        authenticated: boolean;
      };
      assert.equal(before.authenticated, true);
      await page.click('header >> text=Sign out');
      await page.waitForSelector('header >> text=Sign in');
      const after = (await h.request({ method: 'GET', url: '/api/auth/session', headers: { cookie } })).json() as {
        authenticated: boolean;
      };
      assert.equal(after.authenticated, false, 'the server session is gone');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it('PORTAL_BRIDGE_ORIGIN must be an http(s) origin: a path, another scheme or junk is refused with the reason', () => {
    assert.equal(bridgeOrigin(undefined), '');
    assert.equal(bridgeOrigin('https://api.dao.test:8443'), 'https://api.dao.test:8443');
    assert.equal(bridgeOrigin('https://api.dao.test/'), 'https://api.dao.test');
    for (const bad of [
      'api.dao.test',
      'ftp://api.dao.test',
      'https://api.dao.test/bridge',
      'https://u:p@api.dao.test',
      'https://api.dao.test?x=1',
      'javascript:alert(1)',
    ]) {
      assert.throws(() => bridgeOrigin(bad), /PORTAL_BRIDGE_ORIGIN must be an http\(s\) origin/, bad);
    }
  });
});
