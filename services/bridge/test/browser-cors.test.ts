// test-lane: browser (decision R17: one Chromium file at a time)
// Decisions B8 and B45 in a real browser: a page on https://b.dao.test calls the bridge on
// https://api.dao.test (sibling subdomains of one parent, the session cookie on Domain=.dao.test,
// Secure) with `credentials: 'include'`: the preflight is answered, login sets the shared cookie and
// the session is readable. A page on a foreign origin cannot read the bridge's answers, and a
// sandboxed (opaque, `Origin: null`) page cannot sign in. Chromium (Debian's /usr/bin/chromium) driven
// by playwright-core; both hostnames resolve to 127.0.0.1 through --host-resolver-rules; TLS with a
// certificate generated here (openssl) and --ignore-certificate-errors. The screenshot goes to
// screenshots/ (gitignored).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { requireChromium } from '@domdao/test-helpers/browser';
import {
  closeServers,
  daoTestServers,
  launchDaoTestChromium,
  listen,
  proxyTo,
} from '@domdao/test-helpers/dao-test-tls';
import { bridge, type Bridge } from './harness.ts';

const SCREENSHOT_DIR = new URL('../../../screenshots/', import.meta.url).pathname;
const PASSWORD = 'correct horse battery staple';

/** The front-end page: runs the cross-origin calls and shows what it got. */
function frontendPage(api: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>front end</title>
<style>body{font:15px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1f2937}pre{background:#f3f4f6;padding:.6rem;white-space:pre-wrap}h1{font-size:1.2rem}</style></head>
<body><h1>Front end on <span id="origin"></span> calling ${api}</h1><pre id="out">waiting…</pre>
<script>
document.getElementById('origin').textContent = location.origin;
window.run = async (email, password) => {
  const out = {};
  const login = await fetch('${api}/auth/login', { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  out.login = { status: login.status, body: await login.json() };
  const session = await fetch('${api}/api/auth/session', { credentials: 'include' });
  out.session = { status: session.status, body: await session.json() };
  out.cookieVisibleToPage = document.cookie.includes('session=');
  document.getElementById('out').textContent = JSON.stringify(out, null, 2);
  return out;
};
window.tryRead = async (url, init) => {
  try { const r = await fetch(url, init); return { read: true, status: r.status }; } catch (e) { return { read: false, error: String(e) }; }
};
</script></body></html>`;
}

describe('CORS with credentials across sibling subdomains in Chromium (decision B45)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-browser-'));
  const servers: Server[] = [];
  let h: Bridge;
  let browser: Browser;
  let api = '';
  let front = '';
  let foreign = '';

  before(async () => {
    requireChromium();
    // Ports are known before the bridge is configured: the servers exist first, their handlers are set later.
    const [apiServer, frontServer, foreignServer] = daoTestServers(dir, 3) as [Server, Server, Server];
    servers.push(apiServer, frontServer, foreignServer);
    const [apiPort, frontPort, foreignPort] = [
      await listen(apiServer),
      await listen(frontServer),
      await listen(foreignServer),
    ];
    api = `https://api.dao.test:${apiPort}`;
    front = `https://b.dao.test:${frontPort}`;
    foreign = `https://evil.dao.test:${foreignPort}`;

    h = await bridge(undefined, { FRONTEND_ORIGINS: front, COOKIE_DOMAIN: '.dao.test', PUBLIC_URL: api });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    // TLS in front of the bridge, as the platform gateway does.
    proxyTo(apiServer, (h.app.server.address() as AddressInfo).port);
    const serve = (req: IncomingMessage, res: ServerResponse) => {
      if (req.url === '/sandboxed') {
        // An opaque origin: the browser sends `Origin: null` (and a Referer naming this page).
        res
          .writeHead(200, { 'content-type': 'text/html', 'content-security-policy': 'sandbox allow-scripts' })
          .end(frontendPage(api));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end(frontendPage(api));
    };
    frontServer.on('request', serve);
    foreignServer.on('request', serve);

    // A verified account (registration through the bridge's own routes).
    assert.equal((await h.register('ada@example.org')).statusCode, 201);
    const link = /https:\/\/api\.dao\.test:\d+(\/verify-email\?token=[0-9a-f-]+)/.exec(h.emails().at(-1)!.text)?.[1];
    assert.ok(link, 'the verification link points at PUBLIC_URL');
    assert.equal((await h.verify('ada@example.org', { password: PASSWORD })).statusCode, 200);

    browser = await launchDaoTestChromium();
  });

  after(async () => {
    await browser?.close();
    await closeServers(servers);
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('decision B45: b.<parent> signs in on api.<parent> with credentials and reads the session; the cookie is shared and HttpOnly', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 900, height: 560 } });
    try {
      const page = await context.newPage();
      await page.goto(`${front}/`);
      // JSON POST: the browser sends a preflight first; only its CORS answer lets the login through.
      const out = (await page.evaluate(
        ([e, p]) => (globalThis as unknown as { run(e: string, p: string): Promise<unknown> }).run(e!, p!),
        ['ada@example.org', PASSWORD],
      )) as {
        login: { status: number; body: { authenticated: boolean; email: string } };
        session: { status: number; body: { authenticated: boolean; email: string; membership_status?: string } };
        cookieVisibleToPage: boolean;
      };
      assert.equal(out.login.status, 200, JSON.stringify(out));
      assert.equal(out.login.body.authenticated, true);
      assert.equal(out.session.status, 200);
      assert.deepEqual(
        [out.session.body.authenticated, out.session.body.email, out.session.body.membership_status],
        [true, 'ada@example.org', 'Registered'],
      );
      assert.equal(out.cookieVisibleToPage, false, 'HttpOnly: the page cannot read the cookie');
      const [cookie] = (await context.cookies(api)).filter((c) => c.name === 'session');
      assert.ok(cookie, 'the browser stored the session cookie');
      assert.deepEqual(
        [cookie.domain, cookie.secure, cookie.httpOnly, cookie.sameSite],
        ['.dao.test', true, true, 'Lax'],
      );
      assert.equal(
        (await context.cookies(front)).filter((c) => c.name === 'session').length,
        1,
        'sent to every sibling of .dao.test',
      );
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'cors-sibling-subdomains.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });

  it("decision B45: a page on a foreign origin cannot read the bridge's answers (no CORS headers)", async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    try {
      const page = await context.newPage();
      await page.goto(`${foreign}/`);
      const tryRead = (url: string, init: RequestInit) =>
        page.evaluate(
          ([u, i]) =>
            (globalThis as unknown as { tryRead(u: string, i: RequestInit): Promise<{ read: boolean }> }).tryRead(u, i),
          [url, init] as const,
        );
      assert.deepEqual(await tryRead(`${api}/api/auth/session`, { credentials: 'include' }), {
        read: false,
        error: 'TypeError: Failed to fetch',
      });
      const login = await tryRead(`${api}/auth/login`, {
        method: 'POST',
        credentials: 'include',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ada@example.org', password: PASSWORD }),
      });
      assert.equal(login.read, false, 'the preflight fails');
      assert.equal((await context.cookies(api)).filter((c) => c.name === 'session').length, 0, 'no session was set');
    } finally {
      await context.close();
    }
  });

  it('decision B8: a sandboxed page of the front end (opaque origin, `Origin: null`) cannot sign in, whatever its Referer', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    try {
      const page = await context.newPage();
      await page.goto(`${front}/sandboxed`);
      assert.equal(
        await page.evaluate(() => (globalThis as unknown as { origin: string }).origin),
        'null',
        'the page runs in an opaque origin',
      );
      const r = await page.evaluate(
        ([u, p]) =>
          (globalThis as unknown as { tryRead(u: string, i: RequestInit): Promise<{ read: boolean }> }).tryRead(u!, {
            method: 'POST',
            credentials: 'include',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: 'ada@example.org', password: p }),
          }),
        [`${api}/auth/login`, PASSWORD],
      );
      assert.equal(r.read, false, 'the preflight from `null` gets no CORS headers');
      assert.equal((await context.cookies(api)).filter((c) => c.name === 'session').length, 0, 'no session was set');
    } finally {
      await context.close();
    }
    // What the sandboxed page's request carries, sent without a preflight: refused by the bridge.
    const res = await h.request({
      method: 'POST',
      url: '/auth/login',
      origin: null,
      headers: { origin: 'null', referer: `${front}/sandboxed` },
      payload: { email: 'ada@example.org', password: PASSWORD },
    });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error, 'CSRF_REJECTED');
  });

  it("decision B48: the bridge's own login page signs in (its origin is PUBLIC_URL's) and returns to the front end; `/` shows the session and signs out", async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 700, height: 420 } });
    try {
      const page = await context.newPage();
      await page.goto(`${api}/login?returnUrl=${encodeURIComponent(`${front}/`)}`);
      await page.fill('#email', 'ada@example.org');
      await page.fill('#password', PASSWORD);
      await Promise.all([page.waitForURL(`${front}/`, { timeout: 10_000 }), page.click('button[type=submit]')]);
      await page.goto(`${api}/`);
      // The web app at `/` (decision F5) reads the session after it loads.
      await page.waitForSelector('text=Signed in as ada@example.org (member).');
      assert.match((await page.textContent('body')) ?? '', /Signed in as ada@example\.org \(member\)\./);
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'bridge-home-signed-in.png'), fullPage: true });
      await Promise.all([page.waitForEvent('load'), page.click('#signout')]);
      await page.waitForSelector('text=You are not signed in.');
      assert.match((await page.textContent('body')) ?? '', /You are not signed in\./);
      assert.equal((await context.cookies(api)).filter((c) => c.name === 'session').length, 0, 'the cookie is cleared');
    } finally {
      await context.close();
    }
  });
});
