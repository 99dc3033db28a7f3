// test-lane: browser (decision R17: one Chromium file at a time)
// The admin console's Audit page in Chromium (decision F16): an admin sees the audit log's newest
// events, filters them by event (the filter lands in the URL), pages to older events by cursor, and a
// member sees no log; axe-core finds no serious or critical violation; photographed into
// screenshots/portal/ at 1280 and 375 px (looked at by a person).
/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { freePort } from '@domdao/test-helpers';
import { ADMIN_EMAIL, APP, bridge, type Bridge, type Jar } from './harness.ts';
import { launchChromium, requireChromium, shoot as shootOn } from '@domdao/test-helpers/browser';

let h: Bridge;
let browser: Browser;
let base = '';
const errors: string[] = [];

async function pageAs(jar: Jar): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addCookies([{ name: 'session', value: jar.cookie!, url: base }]);
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  page.on(
    'console',
    (m) => /Content Security Policy/i.test(m.text()) && errors.push(`${page.url()}: ${m.text().slice(0, 120)}`),
  );
  return page;
}

const shoot = (page: Page, name: string): Promise<void> => shootOn(page, name, { sideways: false });

before(async () => {
  requireChromium();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // One origin and a host-only cookie, as on `npm start`; the harness's own origin too, for its helpers.
  h = await bridge(undefined, { PUBLIC_URL: base, FRONTEND_ORIGINS: `${base},${APP}`, COOKIE_DOMAIN: '' });
  await h.app.listen({ port, host: '127.0.0.1' });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await h?.close();
});

describe('the Audit page of the admin console in Chromium (decision F16)', () => {
  it('decision F16: an admin reads the newest events, filters by event through the URL, pages to older ones; a member sees no log', async () => {
    const admin = await h.member(ADMIN_EMAIL);
    const member = await h.member('member-audit-page@domdao.example');
    assert.equal((await h.login('member-audit-page@domdao.example', 'not the right password')).res.statusCode, 401);
    // 55 refusals at an admin route: more than one page of 50.
    for (let i = 0; i < 55; i++)
      assert.equal((await h.request({ method: 'GET', url: '/api/admin/audit' })).statusCode, 401);

    const page = await pageAs(admin.jar);
    await page.goto(`${base}/admin/audit`);
    await page.waitForSelector('tr[data-event]');
    assert.equal(await page.locator('nav a[href="/admin/audit"]').count(), 1, 'the Audit link is in the navigation');
    assert.equal(await page.locator('tr[data-event]').count(), 50);
    assert.equal(
      await page.locator('tr[data-event]').first().getAttribute('data-event'),
      'admin.access_denied',
      'newest first',
    );
    const text = await page.locator('main').innerText();
    assert.ok(!/@domdao\.example/.test(text), 'no email address on the page');
    await shoot(page, 'admin-audit');

    await page.locator('button', { hasText: 'Older' }).click();
    await page.waitForURL(/cursor=/);
    await page.waitForFunction(() => document.querySelectorAll('tr[data-event]').length < 50);
    const older = await page
      .locator('tr[data-event]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-event')));
    assert.ok(older.includes('auth.login_failed') && older.includes('registration.created'), older.join());

    await page.goto(`${base}/admin/audit`);
    await page.waitForSelector('tr[data-event]');
    await page.selectOption('select[name=event]', 'auth.login_failed');
    await page.locator('button[type=submit]', { hasText: 'Filter' }).click();
    await page.waitForURL(/event=auth\.login_failed/);
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll('tr[data-event]')).every(
        (r) => r.getAttribute('data-event') === 'auth.login_failed',
      ),
    );
    assert.equal(await page.locator('tr[data-event]').count(), 1);
    const row = await page.locator('tr[data-event]').innerText();
    assert.match(row, /failure/);
    assert.match(row, /anonymous/);
    await shoot(page, 'admin-audit-filtered');

    const memberPage = await pageAs(member.jar);
    await memberPage.goto(`${base}/admin/audit`);
    await memberPage.waitForSelector('text=This page is for administrators.');
    assert.equal(await memberPage.locator('nav a[href="/admin/audit"]').count(), 0);
    assert.deepEqual(errors, []);
  });
});
