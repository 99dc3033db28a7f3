// test-lane: browser (decision R17: one Chromium file at a time)
// Decision S30: the bridge serves its OpenAPI document rendered as a page, GET /api/docs, with Redoc's
// bundle from npm (no other origin is ever asked), under a policy of its own: the bridge's strict
// Content-Security-Policy plus a per-answer style nonce and the search worker; every other page keeps
// its policy. In Chromium an operation is rendered with no console error and no CSP violation.
/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { freePort } from '@domdao/test-helpers';
import { PAGE_CSP } from '../src/core/http/page.ts';
import { editRedoc } from '../src/features/api-docs/routes.ts';
import { APP, bridge, type Bridge } from './harness.ts';
import { launchChromium, requireChromium, SHOTS, watchPage } from '@domdao/test-helpers/browser';

let h: Bridge;
let browser: Browser;
let base = '';

before(async () => {
  requireChromium();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  h = await bridge(undefined, { PUBLIC_URL: base, FRONTEND_ORIGINS: `${base},${APP}`, COOKIE_DOMAIN: '' });
  await h.app.listen({ port, host: '127.0.0.1' });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await h?.close();
});

describe('the API reference page (decision S30)', () => {
  it('decision S30: GET /api/docs and the scripts it names answer from the bridge, under a nonce-bearing policy of its own', async () => {
    const res = await fetch(`${base}/api/docs`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    assert.ok(nonce && nonce.length >= 22, `a nonce of 16 random bytes: ${csp}`);
    assert.match(csp, /default-src 'none'; script-src 'self';/, 'scripts from the bridge only, no inline or eval');
    assert.doesNotMatch(
      csp,
      /unsafe-inline|unsafe-eval|https?:/,
      'no inline script or style without the nonce, no other origin',
    );
    const html = await res.text();
    assert.ok(html.includes(`data-nonce="${nonce}"`));
    const again = await fetch(`${base}/api/docs`);
    assert.notEqual(
      /'nonce-([^']+)'/.exec(again.headers.get('content-security-policy') ?? '')?.[1],
      nonce,
      'a new nonce per answer',
    );
    const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(
      html.includes(`<script src="/api/docs/redoc.standalone.js" nonce="${nonce}">`),
      'the bundle learns the nonce from its own element',
    );
    assert.deepEqual(scripts, ['/api/docs/redoc.standalone.js', '/api/docs/init.js'], 'only scripts the bridge serves');
    for (const src of scripts) {
      const s = await fetch(`${base}${src}`);
      assert.equal(s.status, 200, src);
      assert.match(s.headers.get('content-type') ?? '', /^text\/javascript/, src);
      const body = await s.text();
      assert.ok(body.length > 100, src);
      assert.doesNotMatch(body, /cdn\.redoc\.ly/, `${src} names no CDN`);
    }
    assert.equal((await fetch(`${base}/api/docs/unknown.js`)).status, 404);
  });

  it('decision S30: the other pages keep their policy: the sign-in page and the web app have no nonce and no worker source', async () => {
    const res = await fetch(`${base}/login`);
    assert.equal(res.headers.get('content-security-policy'), PAGE_CSP);
    const app = (await fetch(`${base}/`)).headers.get('content-security-policy') ?? '';
    assert.match(app, /style-src 'self';/);
    assert.doesNotMatch(app, /nonce|worker-src|unsafe/);
  });

  it('decision S30: both edits find their one string in the pinned bundle; a bundle without them is reported, not edited', () => {
    const bundle = readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
    const edited = editRedoc(bundle);
    assert.deepEqual(edited.missing, []);
    assert.doesNotMatch(edited.text, /cdn\.redoc\.ly/);
    assert.match(edited.text, /r\.nc=document\.currentScript&&document\.currentScript\.nonce\|\|void 0/);
    const other = editRedoc('console.log("another version")');
    assert.equal(other.missing.length, 2);
    assert.equal(other.text, 'console.log("another version")');
  });

  it('decision S30: in Chromium the page renders the operations, with no console error, CSP violation or request to another origin', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    const origins = new Set<string>();
    watchPage(page, problems, new Set());
    page.on('request', (r) => origins.add(new URL(r.url()).origin));
    await page.goto(`${base}/api/docs`);
    // An operation of the document, rendered: its summary as a heading and its path.
    await page
      .getByRole('heading', { name: /Sign in: sets the/i })
      .first()
      .waitFor({ timeout: 60_000 });
    assert.ok(await page.getByText('/auth/login').first().isVisible());
    await page.screenshot({ path: `${SHOTS}api-docs-1280.png` });
    await context.close();
    assert.deepEqual(problems, [], 'no console error, CSP violation or failed request');
    assert.deepEqual(
      [...origins].filter((o) => o !== base && !o.startsWith('blob:') && o !== 'null'),
      [],
      'nothing from another origin',
    );
  });
});
