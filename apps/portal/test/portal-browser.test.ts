// test-lane: browser (decision R17: one Chromium file at a time)
// The member web app in a real browser (decisions F1–F5): Chromium
// through Playwright against the bridge serving the built app on a test port. The under-13 block and
// its 24-hour flag; joining with the form sealed in the browser, the verification link, signing in
// with returnUrl; proposals, a sanitised Markdown body and voting as an Active member; executing an
// approved price proposal and the price;
// search by meaning, the AI summary and drafting helper against a local inference server (plain search
// when it fails); starting a campaign and contributing; my membership, email preferences and activity; signing out
// (server session and user_data gone). axe-core finds no serious or critical violation on any page;
// every page is photographed at 1280 and 375 px into screenshots/portal/ (looked at by a person).
// An unknown path a browser opens is the app's own 404 page (decision F24).
/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { freePort } from '@domdao/test-helpers';
import {
  ADMIN_EMAIL,
  bridge,
  EMBED_SWEEP_JOB,
  startFakeInference,
  type Bridge,
  type FakeInference,
  type Jar,
} from '@domdao/bridge-service/testing';
import { launchChromium, requireChromium, SHOTS, shoot as shootOn } from '@domdao/test-helpers/browser';

const PASSWORD = 'a long and private passphrase';
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

let h: Bridge;
let inference: FakeInference;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let base = '';
const csp: string[] = [];
const errors: string[] = [];

/** Signs in through the API (for setting up what the browser then shows); the user's id and principal. */
async function apiLogin(email: string): Promise<{ jar: Jar; user_id: string; principal: string }> {
  const jar: Jar = {};
  const r = await h.request({
    method: 'POST',
    url: '/auth/login',
    payload: { email, password: PASSWORD },
    jar,
    origin: base,
  });
  assert.equal(r.statusCode, 200, r.body);
  const { user_id } = (await h.request({ method: 'GET', url: '/auth/session', jar })).json() as { user_id: string };
  const { principal } = await h.opened.db
    .selectFrom('users')
    .select('principal')
    .where('id', '=', user_id)
    .executeTakeFirstOrThrow();
  return { jar, user_id, principal };
}

/** Screenshots at 1280 and 375 px wide, and the accessibility check. */
const shoot = (name: string): Promise<void> => shootOn(page, name, { sideways: false });

before(async () => {
  requireChromium();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // As on `npm start`: one origin, a host-only session cookie.
  // With a local OpenAI-compatible server, so the app's AI helpers are shown and used (spec 2 AI).
  inference = await startFakeInference();
  h = await bridge(undefined, {
    PUBLIC_URL: base,
    FRONTEND_ORIGINS: base,
    COOKIE_DOMAIN: '',
    DEV_CHECKOUT: 'true',
    DEV_FAUCET_DOM: '1000',
    EMBEDDED_TREASURY_DOM: '5000',
    INFERENCE_URL: inference.url,
    AI_RATE_LIMIT_PER_MINUTE: '1000',
  });
  await h.app.listen({ port, host: '127.0.0.1' });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  page.on(
    'console',
    (m) => /Content Security Policy/i.test(m.text()) && csp.push(`${page.url()}: ${m.text().slice(0, 120)}`),
  );
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
});

after(async () => {
  await browser?.close();
  await h?.close();
  await inference?.close();
});

describe('the member web app in Chromium (decisions F1–F5)', () => {
  it('spec 2 registration rule 1: under 13 → the block screen, nothing sent, and the block flag kept 24 hours', async () => {
    const before = h.emails().length;
    await page.goto(`${base}/join`);
    await shoot('join-dob');
    await page.fill('#dob', new Date(Date.now() - 10 * 365 * DAY_MS).toISOString().slice(0, 10));
    await page.click('button[type=submit]');
    await page.waitForSelector('text=We can’t create an account for you');
    await shoot('join-blocked');
    const until = Number(await page.evaluate(() => localStorage.getItem('age_block_until')));
    assert.ok(Math.abs(until - (Date.now() + DAY_MS)) < 60_000, 'the flag expires in 24 hours');
    await page.reload();
    await page.waitForSelector('text=We can’t create an account for you');
    assert.equal(await page.locator('#email').count(), 0, 'no personal field is shown');
    // A day later the flag has expired: the form starts again from the date of birth.
    await page.evaluate(() => localStorage.setItem('age_block_until', String(Date.now() - 1)));
    await page.reload();
    await page.waitForSelector('#dob');
    assert.equal(h.emails().length, before, 'nothing was sent');
  });

  it('spec 2 rules 1–3: joining seals the form in the browser; the emailed link verifies and signs in (decision B105); sign-in returns to the app (returnUrl)', async () => {
    await page.goto(`${base}/join`);
    await page.fill('#dob', '1990-05-01');
    await page.click('button[type=submit]');
    await page.fill('#name', 'Grace Hopper');
    await page.fill('#email', 'grace@example.org');
    await page.fill('#password', 'short');
    await page.waitForSelector('text=The password must be at least 12 characters long.');
    await page.fill('#password', PASSWORD);
    await page.check('input[type=checkbox]');
    await shoot('join-form');
    const sent = page.waitForRequest((r) => r.url().endsWith('/api/auth/register'));
    await page.click('button[type=submit]');
    const body = (await sent).postDataJSON() as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), [
      'display_name',
      'dob_encrypted',
      'email_encrypted',
      'name_encrypted',
      'password',
      'tos_accepted',
    ]);
    // Decision F47: the name other members see is public, so it alone travels in clear.
    assert.equal(body.display_name, 'Grace Hopper');
    assert.match(String(body.email_encrypted), /^hpke1\./, 'sealed before it left the browser');
    assert.ok(!JSON.stringify(body).includes('grace@example.org'));
    await page.waitForSelector('text=Check your email');
    await shoot('join-sent');

    const mail = h
      .emails()
      .filter((m) => m.to.includes('grace@example.org'))
      .at(-1)!;
    const link = new RegExp(`${base.replace(/[.:/]/g, '\\$&')}(/verify-email\\?token=[0-9a-f-]+)`).exec(mail.text)?.[1];
    assert.ok(link, mail.text);
    // Decision B51: the link's page asks for the password chosen at registration.
    await page.goto(`${base}${link}`);
    await page.fill('#password', PASSWORD);
    await shoot('verify-email');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    await page.waitForSelector('text=You are signed in.');

    await page.goto(`${base}/`);
    await page.waitForSelector('text=Signed in as grace@example.org');
    await page.click('#signout');
    await page.waitForSelector('text=You are not signed in.');
    await shoot('home-signed-out');
    await Promise.all([page.waitForURL(/\/login\?returnUrl=/), page.click('main >> text=Sign in')]);
    assert.equal(
      new URL(page.url()).searchParams.get('returnUrl'),
      `${base}/`,
      'URL-encoded returnUrl (spec 2 Authentication 7)',
    );
    await shoot('login');
    await page.fill('#email', 'grace@example.org');
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL(`${base}/`), page.click('button[type=submit]')]);
    await page.waitForSelector('text=Signed in as grace@example.org (member).');
    const mirrored = JSON.parse((await page.evaluate(() => localStorage.getItem('user_data'))) ?? 'null') as {
      email: string;
      roles: string[];
    };
    assert.deepEqual(
      [mirrored.email, mirrored.roles],
      ['grace@example.org', ['member']],
      'user_data mirror (spec 2 Authentication 6)',
    );
    await shoot('home-signed-in');
  });

  it('spec 1/2: proposals list and a proposal; the Markdown body is sanitised; an Active member votes; a Registered one reads only', async () => {
    const { jar, principal } = await apiLogin('grace@example.org');
    const body =
      '# Plan\n\nFix the **fence**.\n\n<script>window.pwned = 1</script>\n\n[click](javascript:window.pwned=2) <img src=x onerror="window.pwned=3">';
    const proposed = await h.request({
      method: 'POST',
      url: '/api/governance/propose',
      jar,
      origin: base,
      payload: { title: 'Repair the fence', body, category: 'General' },
    });
    assert.equal(proposed.statusCode, 403, 'a Registered member cannot propose (Active only)');
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
    const ok = await h.request({
      method: 'POST',
      url: '/api/governance/propose',
      jar,
      origin: base,
      payload: { title: 'Repair the fence', body, category: 'General' },
    });
    assert.equal(ok.statusCode, 201, ok.body);
    const id = (ok.json() as { proposal_id: string }).proposal_id;
    h.advance(HOUR_MS + 1000);
    await h.opened.canisters.platform!.tick();

    await page.goto(`${base}/govern`);
    await page.waitForSelector('text=Repair the fence');
    await shoot('govern');
    await page.click('text=Repair the fence');
    await page.waitForURL(`${base}/proposals/${id}`);
    await page.waitForSelector('.prose h1');
    assert.equal(await page.locator('.prose strong').textContent(), 'fence');
    assert.equal(await page.locator('.prose script, .prose img').count(), 0, 'no script or image from the body');
    assert.match(
      (await page.locator('.prose').textContent()) ?? '',
      /<script>window\.pwned = 1<\/script>/,
      'raw HTML is shown as text (decision F6)',
    );
    assert.ok(
      !((await page.locator('.prose a').getAttribute('href')) ?? '').startsWith('javascript:'),
      'no javascript: link',
    );
    assert.equal(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
    // The session was read before the upgrade: the app sees Active after its refresh (here: a reload).
    await page.reload();
    await page.waitForSelector('text=Vote yes');
    await shoot('proposal-open');
    await page.click('text=Vote yes');
    await page.waitForSelector('text=Your vote “Yes” is recorded.');
    await page.waitForSelector('text=Your vote: Yes');
    await page.waitForSelector('text=Your vote receipt #');
    assert.match((await page.locator('[aria-label=Tally]').textContent()) ?? '', /1 of 1 members voted/);
    await shoot('proposal-voted');
  });

  it('decision G23: a member made Active after voting opened clicks Vote and the app says why they cannot vote on this proposal', async () => {
    const email = 'late@example.org';
    const fields = await h.encrypt({ email, name: 'Late Member', dob: '1980-01-01' });
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: '/api/auth/register',
          origin: base,
          payload: { ...fields, password: PASSWORD, tos_accepted: true },
        })
      ).statusCode,
      201,
    );
    assert.equal((await h.verify(email, { password: PASSWORD })).statusCode, 200);
    const c = h.opened.canisters.clients;
    const created = await c.governance.create_proposal({
      title: 'Plant the orchard',
      body: 'Apples.',
      category: 'General',
    });
    assert.ok('Ok' in created);
    h.advance(HOUR_MS + 1000);
    await h.opened.canisters.platform!.tick();
    h.advance(1000);
    const { principal } = await apiLogin(email);
    assert.ok('Ok' in (await c.user.record_kyc(principal, true)));
    assert.ok(
      'Ok' in
        (await c.user.upgrade_membership_to_active({
          principal,
          kyc_proof: new Uint8Array([1]),
          payment_proof: new Uint8Array([2]),
        })),
    );
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const late = await other.newPage();
      late.on('pageerror', (e) => errors.push(`${late.url()}: ${e.message}`));
      const url = `${base}/proposals/${created.Ok}`;
      await late.goto(`${base}/login?returnUrl=${encodeURIComponent(url)}`);
      await late.fill('#email', email);
      await late.fill('#password', PASSWORD);
      await Promise.all([late.waitForURL(url), late.click('button[type=submit]')]);
      await late.click('text=Vote yes');
      await late.waitForSelector(
        'text=You became a voting member after voting opened on this proposal, so you cannot vote on it. You can vote on proposals that open from now on.',
      );
      assert.equal(await late.locator('text=Vote yes').count(), 0, 'the vote buttons are gone');
      assert.match(
        (await late.locator('[aria-label=Tally]').textContent()) ?? '',
        /0 of \d+ members voted/,
        'nothing counted',
      );
      await late.screenshot({ path: join(SHOTS, 'proposal-joined-after-opening-1280.png'), fullPage: true });
    } finally {
      await other.close();
    }
  });

  it('spec 2 AI in the app: search by meaning, the summary and the drafting helper (a local inference server); plain search when it fails', async () => {
    const { jar } = await apiLogin('grace@example.org');
    const garden = await h.request({
      method: 'POST',
      url: '/api/governance/propose',
      jar,
      origin: base,
      payload: {
        title: 'Plant a community garden',
        body: 'Plant a community garden with vegetable seeds.',
        category: 'General',
      },
    });
    assert.equal(garden.statusCode, 201, garden.body);
    const gardenId = (garden.json() as { proposal_id: string }).proposal_id;
    await h.app.jobs.runNow(EMBED_SWEEP_JOB);

    await page.goto(`${base}/govern`);
    await page.waitForSelector('text=Search (by meaning)');
    await page.fill('input[type=search]', 'community garden seeds');
    await page.click('button:has-text("Search")');
    await page.waitForFunction(() => document.querySelectorAll('ul.list li').length === 1);
    assert.deepEqual(
      await page.locator('ul.list li strong').allTextContents(),
      ['Plant a community garden'],
      'the fence proposal shares no meaning with the query',
    );
    const searched = inference.embedCalls().at(-1)!.body as { input: string | string[] };
    assert.deepEqual([searched.input].flat(), ['community garden seeds'], 'the query went to the inference server');
    await shoot('govern-search');

    await page.click('text=Plant a community garden');
    await page.waitForURL(`${base}/proposals/${gardenId}`);
    await page.click('button:has-text("Summarise with AI")');
    await page.waitForSelector('text=is summarised in one sentence');
    await shoot('proposal-summary');

    await page.goto(`${base}/govern`);
    await page.click('button:has-text("New proposal")');
    await page.fill('#p-intent', 'Plant trees along the river');
    await page.click('button:has-text("Draft with AI")');
    await page.waitForFunction(() => (document.querySelector('#p-title') as HTMLInputElement | null)?.value !== '');
    assert.equal(await page.inputValue('#p-title'), 'Proposal: Plant trees along the river');
    assert.match(await page.inputValue('#p-body'), /^## Summary\n\nPlant trees along the river/);
    await shoot('propose-draft');

    // The inference server failing: the member is told, and the titles and text are searched instead.
    inference.faultsForInput.set('fence repair', 'fail');
    await page.goto(`${base}/govern`);
    await page.waitForSelector('text=Search (by meaning)');
    await page.fill('input[type=search]', 'fence repair');
    await page.click('button:has-text("Search")');
    await page.waitForSelector('text=Semantic search is unavailable');
    assert.deepEqual(await page.locator('ul.list li strong').allTextContents(), ['Repair the fence']);
  });

  it('spec 1: the price page shows the ratified price once members ratified one, and its history', async () => {
    await page.goto(`${base}/price`);
    await page.waitForSelector('text=No price has been ratified yet');
    const platform = h.opened.canisters.platform!;
    for (const price of [0.25, 0.3]) {
      const { jar, principal } = await apiLogin('grace@example.org');
      let id: string;
      if (price === 0.25) {
        // The first through the app's proposal form (SetDomPrice fields).
        await page.goto(`${base}/govern`);
        await page.click('button:has-text("New proposal")');
        await page.selectOption('#p-category', 'SetDomPrice');
        await page.fill('#p-title', `Price ${price}`);
        await page.fill('#p-body', 'The market moved.');
        await page.fill('#p-price', String(price));
        await shoot('propose');
        await Promise.all([page.waitForURL(/\/proposals\/\d+$/), page.click('button:has-text("Submit proposal")')]);
        id = /\/proposals\/(\d+)$/.exec(page.url())![1]!;
        await page.waitForSelector('text=DOM price'); // decision F56: the category's label, not its internal name
      } else {
        const r = await h.request({
          method: 'POST',
          url: '/api/governance/propose',
          jar,
          origin: base,
          payload: { title: `Price ${price}`, body: 'b', category: 'SetDomPrice', payload: { price_usd: price } },
        });
        assert.equal(r.statusCode, 201, r.body);
        id = (r.json() as { proposal_id: string }).proposal_id;
      }
      h.advance(HOUR_MS + 1000);
      await platform.tick();
      assert.ok('Ok' in (await platform.as(principal).governance.cast_vote(BigInt(id), 'Yes')));
      h.advance(3 * DAY_MS + 1000);
      if (price === 0.25) {
        // Approved once the window closed (derived on read); executed from the app (spec 1: any
        // member may execute; the canister's scheduler would do it within the execution window).
        // Three days on, the browser's session has expired: sign in again on the bridge's page.
        await page.goto(`${base}/login?returnUrl=${encodeURIComponent(`${base}/proposals/${id}`)}`);
        await page.fill('#email', 'grace@example.org');
        await page.fill('#password', PASSWORD);
        await Promise.all([page.waitForURL(`${base}/proposals/${id}`), page.click('button[type=submit]')]);
        await page.waitForSelector('text=Approved. It is executed automatically');
        await shoot('proposal-approved');
        await page.click('button:has-text("Execute now")');
        await page.waitForSelector('text=Done: the proposal is Executed.');
        await page.waitForSelector('.badge >> text=Executed');
      }
      await platform.tick();
    }
    await page.goto(`${base}/price`);
    await page.waitForSelector('text=$0.30');
    assert.equal(await page.locator('svg.chart circle').count(), 2);
    await shoot('price');
  });

  it('spec 1 campaigns: start a campaign in the browser, contribute DOM, see the progress', async () => {
    // Sessions expire as the clock moved on: sign in again through the app.
    await page.goto(`${base}/campaigns`);
    await page.evaluate(() => fetch('/auth/logout', { method: 'POST' }));
    await page.goto(`${base}/login?returnUrl=${encodeURIComponent(`${base}/campaigns`)}`);
    await page.fill('#email', 'grace@example.org');
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL(`${base}/campaigns`), page.click('button[type=submit]')]);
    assert.equal(
      await page.evaluate(() =>
        fetch('/api/dev/faucet', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then(
          (r) => r.status,
        ),
      ),
      200,
    );
    await page.waitForSelector('text=Start a campaign');
    await page.fill('#c-title', 'Community garden');
    await page.fill('#c-desc', 'Seeds and tools for the shared garden.');
    await page.fill('input[inputmode=decimal]', '100');
    await page.selectOption('select', 'dom');
    await Promise.all([page.waitForURL(/\/campaigns\/\d+$/), page.click('text=Create campaign')]);
    await page.waitForSelector('h1:has-text("Community garden")');
    await page.fill('input[inputmode=decimal]', '25');
    await page.click('button:has-text("Contribute")');
    await page.waitForSelector('text=Thank you: 25 DOM contributed.');
    await page.waitForSelector('text=25 DOM raised');
    assert.equal(await page.getAttribute('[role=progressbar]', 'aria-valuenow'), '25');
    await shoot('campaign');
    await page.goto(`${base}/campaigns`);
    await page.waitForSelector('text=Community garden');
    await shoot('campaigns');
  });

  it('decisions F5, F8: "Me": membership, balance, email preferences (saved through the API), activity, and the digest\'s unsubscribe link', async () => {
    await page.goto(`${base}/me`);
    await page.waitForSelector('text=Active');
    await page.waitForSelector('text=DOM', { state: 'attached' });
    await page.selectOption('select', 'weekly');
    await page.waitForSelector('text=Saved.');
    const { jar } = await apiLogin('grace@example.org');
    assert.equal(
      (await h.request({ method: 'GET', url: '/api/me/notification-preferences', jar })).json().digest_frequency,
      'weekly',
    );
    await shoot('me');
    // The bridge's own pages the app and the emails link to (server-rendered, usable without JavaScript).
    await page.goto(`${base}/activity`);
    await page.waitForSelector('text=Email preferences');
    await shoot('bridge-activity');
    await page.goto(`${base}/preferences`);
    await page.waitForSelector('h1');
    await shoot('bridge-preferences');
    await page.goto(`${base}/unsubscribe?token=v1.not-a-token`);
    await page.waitForSelector('h1');
    await shoot('bridge-unsubscribe-invalid');

    // Spec 3 unsubscribe: the link of a real weekly digest, opened on this bridge (in production the
    // edge routes https://<brand domain>/unsubscribe to it, decision N3), turns the digest off.
    // Something new for the digest after opting in (its window starts there, decision N5).
    h.advance(1000);
    const news = await h.request({
      method: 'POST',
      url: '/api/governance/propose',
      jar,
      origin: base,
      payload: { title: 'Paint the gate', body: 'Green.', category: 'General' },
    });
    assert.equal(news.statusCode, 201, news.body);
    for (let i = 0; i < 200; i++) {
      const items = (await h.request({ method: 'GET', url: '/api/me/activity', jar })).json().items as Array<{
        title: string;
      }>;
      if (items.some((x) => x.title === 'New proposal: Paint the gate')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    h.advance(8 * DAY_MS);
    // The runner's own timer may have sent it first at the hour; either way one digest goes out.
    const run = await h.app.jobs.runNow('inbox:digest');
    const digest = h
      .emails()
      .filter((m) => m.to.includes('grace@example.org') && /unsubscribe\?token=/.test(m.text))
      .at(-1);
    assert.ok(digest, `a digest was mailed to grace (the manual run: ${JSON.stringify(run)})`);
    const link = new URL(/https:\/\/\S+\/unsubscribe\?token=[A-Za-z0-9._-]+/.exec(digest.text)![0]);
    await page.goto(`${base}${link.pathname}${link.search}`);
    await page.waitForSelector('text=You are unsubscribed');
    await shoot('bridge-unsubscribed');
    // (Eight days on, the browser's session has expired: read the preference through the API.)
    const again = await apiLogin('grace@example.org');
    assert.equal(
      (await h.request({ method: 'GET', url: '/api/me/notification-preferences', jar: again.jar })).json()
        .digest_frequency,
      'none',
    );
  });

  it('decision F7: the admin console: the admin approves KYC in the browser; after the payment the member is Active', async () => {
    /** Registers and verifies through the API (the browser part is covered above). */
    const verified = async (email: string) => {
      const fields = await h.encrypt({ email, name: 'Member', dob: '1980-01-01' });
      assert.equal(
        (
          await h.request({
            method: 'POST',
            url: '/api/auth/register',
            origin: base,
            payload: { ...fields, password: PASSWORD, tos_accepted: true },
          })
        ).statusCode,
        201,
      );
      const mail = h
        .emails()
        .filter((m) => m.to.includes(email))
        .at(-1)!;
      assert.ok(/\/verify-email\?token=[0-9a-f-]+/.test(mail.text));
      assert.equal((await h.verify(email, { password: PASSWORD })).statusCode, 200);
    };
    await verified(ADMIN_EMAIL);
    await verified('kyc@example.org');
    await page.goto(`${base}/login?returnUrl=${encodeURIComponent(`${base}/admin`)}`);
    await page.fill('#email', ADMIN_EMAIL);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL(`${base}/admin`), page.click('button[type=submit]')]);
    await page.waitForSelector('h1:has-text("Admin console")');
    await page.waitForSelector('nav >> text=Admin');
    await page.fill('#find-user', 'kyc@example.org');
    await page.click('button:has-text("Find")');
    await page.waitForSelector('button:has-text("Approve KYC")');
    await page.click('button:has-text("Approve KYC")');
    await page.waitForSelector('text=KYC approved.');
    await page.waitForSelector('.item.user:has-text("KYC approved")');
    await page.waitForSelector('h2:has-text("Governance event log")');
    await shoot('admin');
    // The member pays on their own page through the simulated checkout (decision F8) and is Active.
    await page.evaluate(() => fetch('/auth/logout', { method: 'POST' }));
    await page.goto(`${base}/login?returnUrl=${encodeURIComponent(`${base}/me`)}`);
    await page.fill('#email', 'kyc@example.org');
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL(`${base}/me`), page.click('button[type=submit]')]);
    await page.waitForSelector('text=Identity check (KYC): approved');
    await shoot('me-upgrade');
    await page.click('button:has-text("simulated checkout")');
    // Paid and applied: the session refreshes, the page shows Active and the upgrade section is gone.
    await page.waitForSelector('p.big:has-text("Active")');
    assert.equal(await page.locator('#upgrade-h').count(), 0);
    const { jar } = await apiLogin('kyc@example.org');
    assert.equal(
      (await h.request({ method: 'GET', url: '/api/auth/session', jar })).json().membership_status,
      'Active',
    );
    // A member who is not an admin sees the console refused (and the server answers 403 anyway).
    await page.goto(`${base}/admin`);
    await page.waitForSelector('text=This console is for administrators.');
    assert.equal(await page.evaluate(() => fetch('/api/admin/users').then((r) => r.status)), 403);
  });

  it('decision F9: "Sign out everywhere" on /me ends every session of the member, another browser\'s too', async () => {
    const other = await browser.newContext();
    try {
      const second = await other.newPage();
      await second.goto(`${base}/login?returnUrl=${encodeURIComponent(`${base}/me`)}`);
      await second.fill('#email', 'kyc@example.org');
      await second.fill('#password', PASSWORD);
      await Promise.all([second.waitForURL(`${base}/me`), second.click('button[type=submit]')]);
      await page.goto(`${base}/me`);
      // This browser and the other one (and the API sign-in of the test before), once the list has loaded.
      await page.waitForFunction(() => document.querySelectorAll('section[aria-labelledby=sessions-h] li').length >= 2);
      await Promise.all([page.waitForURL(`${base}/`), page.click('text=Sign out everywhere')]);
      await page.waitForSelector('text=You are not signed in.');
      assert.equal(
        await second.evaluate(() => fetch('/api/me/sessions').then((r) => r.status)),
        401,
        'the other browser is signed out too',
      );
      // Signed in again for the next test.
      await page.goto(`${base}/login?returnUrl=${encodeURIComponent(`${base}/`)}`);
      await page.fill('#email', 'kyc@example.org');
      await page.fill('#password', PASSWORD);
      await Promise.all([page.waitForURL(`${base}/`), page.click('button[type=submit]')]);
    } finally {
      await other.close();
    }
  });

  it('spec 2 Authentication 5–6: signing out ends the server session and clears user_data; the app says so', async () => {
    await page.goto(`${base}/`);
    await page.waitForSelector('#signout');
    await Promise.all([page.waitForEvent('load'), page.click('#signout')]);
    await page.waitForSelector('text=You are not signed in.');
    assert.equal(await page.evaluate(() => localStorage.getItem('user_data')), null);
    assert.equal(await page.evaluate(() => fetch('/api/me/balance').then((r) => r.status)), 401);
    const missing = await page.goto(`${base}/nowhere-in-the-app`);
    assert.equal(missing?.status(), 404);
    await page.waitForSelector('text=Page not found');
    await shoot('not-found');
    assert.deepEqual(csp, [], 'no Content-Security-Policy violation on any page');
    assert.deepEqual(errors, [], 'no uncaught error in any page');
  });
});
