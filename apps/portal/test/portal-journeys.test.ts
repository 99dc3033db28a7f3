// test-lane: browser (decision R17: one Chromium file at a time)
// Issue 35 in Chromium at 1280 and 375 px (decisions F23–F25): every sign-in dead end has a way on
// (forgot password, join, a new link for an unconfirmed address; used and dead links); the price page
// shows the oracle as given; a USD goal before any ratified price says so; an unknown path is the app's
// 404 page; the bridge's own pages look like the app. portal-kit.ts checks axe-core, console errors,
// CSP and failed requests on every page.
/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually } from '@domdao/bridge-service/testing';
import { base, DAY_MS, expected, h, member, page, PASSWORD, problems, shoot, usePortal } from './portal-kit.ts';

usePortal();

describe('issue 35: ways on, in Chromium (decisions F23–F25)', () => {
  it('decision F23: sign-in offers forgot password, join, and a new link for an unconfirmed address', async () => {
    const fields = await h.encrypt({ email: 'unconfirmed@example.org', name: 'Member', dob: '1980-01-01' });
    const r = await h.request({
      method: 'POST',
      url: '/api/auth/register',
      origin: base,
      payload: { ...fields, password: PASSWORD, tos_accepted: true },
    });
    assert.equal(r.statusCode, 201);
    await page.goto(`${base}/login`);
    await page.waitForSelector('a[href="/join"]');
    await page.fill('#email', 'unconfirmed@example.org');
    await page.fill('#password', PASSWORD);
    expected.add('POST /auth/login 403');
    await page.click('#login button[type=submit]');
    await page.waitForSelector('text=Your email address is not confirmed yet');
    expected.delete('POST /auth/login 403');
    const mails = () => h.emails().filter((m) => m.to.includes('unconfirmed@example.org')).length;
    // The registration's email leaves through the outbox, after the answer.
    await eventually('the first verification email', () => mails() === 1 || undefined);
    await page.click('#resend');
    await page.waitForSelector('text=a new link is on its way');
    await eventually('the verification email sent again', () => mails() === 2 || undefined);
    await page.click('summary:has-text("Forgot password?")');
    await shoot('login-unconfirmed');
    await page.fill('#forgot-email', 'nobody@example.org');
    await page.click('#forgot button[type=submit]');
    await page.waitForSelector('text=we sent it a link to choose a new password');
  });

  it('decision F23: a used link says sign in; a dead link asks for a new one right there', async () => {
    await member('used@example.org');
    const link = h.verificationPath('used@example.org');
    // The link pages answer 400 with a page saying what to do next (decision B51).
    expected.add('GET /verify-email 400');
    const used = await page.goto(`${base}${link}`);
    assert.equal(used?.status(), 400);
    await page.waitForSelector('text=Already verified');
    await page.waitForSelector('main a.button:has-text("Sign in")');
    await shoot('verify-used');
    await page.goto(`${base}/verify-email?token=00000000-0000-4000-8000-000000000000`);
    await page.fill('#resend-email', 'used@example.org');
    await page.click('#resend-form button[type=submit]');
    await page.waitForSelector('text=a new link is on its way');
    await shoot('verify-dead');
    expected.delete('GET /verify-email 400');
  });

  it('decision F25: the price page shows the oracle as given, a USD goal before any ratified price says so; a 404 page and a favicon', async () => {
    const owner = await member('owner@example.org', true);
    const deadline = new Date(h.now() + 10 * DAY_MS).toISOString();
    const c = await h.request({
      method: 'POST',
      url: '/api/campaigns',
      jar: owner.jar,
      origin: base,
      payload: { title: 'Orchard fund', description: 'Trees', goal: { usd: 100 }, deadline },
    });
    assert.equal(c.statusCode, 201, c.body);
    await page.goto(`${base}/campaigns`);
    await page.waitForSelector(
      'li:has-text("Orchard fund") >> text=Progress in dollars shows once members ratify a DOM price',
    );
    await shoot('campaigns-usd-no-price');
    await page.goto(`${base}/price`);
    await page.waitForSelector('text=No price has been ratified yet');
    assert.doesNotMatch((await page.textContent('main')) ?? '', /NaN/);
    await shoot('price-none');
    expected.add('GET /nowhere-in-the-app 404');
    const missing = await page.goto(`${base}/nowhere-in-the-app`);
    assert.equal(missing?.status(), 404);
    await page.waitForSelector('text=Page not found');
    await shoot('not-found');
    expected.delete('GET /nowhere-in-the-app 404');
    const json = await h.request({ method: 'GET', url: '/nowhere-in-the-api' });
    assert.deepEqual([json.statusCode, json.json().error], [404, 'NOT_FOUND'], 'an API client keeps the JSON 404');
    const icon = await h.request({ method: 'GET', url: '/favicon.ico' });
    assert.deepEqual([icon.statusCode, icon.headers['content-type']], [200, 'image/svg+xml']);
    await page.goto(`${base}/activity`);
    await page.waitForSelector('nav >> text=Govern');
    await shoot('bridge-activity-look');
    await page.goto(`${base}/preferences`);
    await page.waitForSelector('text=Sign in to choose which emails you receive.');
    await shoot('bridge-preferences-look');
  });

  it('on every page above: no console error, no CSP violation, no failed request', () => {
    assert.deepEqual(problems, []);
  });
});
