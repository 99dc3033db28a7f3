// test-lane: browser (decision R17: one Chromium file at a time)
// The admin console's daily work in Chromium at 1280 and 375 px (decisions F28, F33–F35, B78, B79): an
// admin approves KYC and rejects it with a reason (read back on the card), runs the price-proposal job
// with the console's button and sees each run's outcome (submitted, then skipped as pending), and reads
// the job runs grouped by job: a failing job first and marked, a streak of skipped runs one line that
// opens onto its runs. A member and a signed-out visitor meet the one admin gate (AdminOnly) on both
// admin pages. axe-core finds no serious or critical violation; no console error, CSP violation or
// failed request beyond the refusal asked for; nothing scrolls sideways; photographed into
// screenshots/portal/ (looked at by a person).
/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { freePort } from '@domdao/test-helpers';
import {
  ADMIN_EMAIL,
  bridge,
  startFakeSources,
  type Bridge,
  type FakeSources,
  type Jar,
} from '@domdao/bridge-service/testing';
import { launchChromium, requireChromium, SHOTS, shoot as shootOn, watchPage } from '@domdao/test-helpers/browser';

const PASSWORD = 'a long and private passphrase';
const MIN = 60_000;

let h: Bridge;
let fake: FakeSources;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let base = '';
const problems: string[] = [];
/** The refusal the journey asks for: the price job pressed again while its proposal is pending (decision O22). */
const expected = new Set(['POST /api/admin/price/submit-proposal 409']);

const setPrice = (price: number | null) => {
  for (const s of ['a', 'b'])
    fake.set(`/${s}`, price === null ? { status: 503, body: { error: 'down' } } : { body: { price } });
};

const shoot = (name: string): Promise<void> => shootOn(page, name);

/** Every button of the console lies within a 375 px screen (none pushed off to the right). */
async function buttonsOnScreen(what: string): Promise<void> {
  await page.setViewportSize({ width: 375, height: 800 });
  const off = await page.evaluate(() =>
    Array.from(document.querySelectorAll('main button, main input, main summary'))
      .map((b) => ({
        text: (b.textContent || (b as HTMLInputElement).placeholder || b.tagName).trim().slice(0, 40),
        r: b.getBoundingClientRect(),
      }))
      .filter(({ r }) => r.width > 0 && (r.left < 0 || r.right > 375))
      .map(({ text, r }) => `${text} (${Math.round(r.left)}–${Math.round(r.right)})`),
  );
  assert.deepEqual(off, [], `${what}: controls off a 375 px screen`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

async function member(email: string, name: string): Promise<{ jar: Jar; user_id: string }> {
  const fields = await h.encrypt({ email, name: 'Member', dob: '1980-01-01' });
  const r = await h.request({
    method: 'POST',
    url: '/api/auth/register',
    origin: base,
    payload: { ...fields, password: PASSWORD, tos_accepted: true },
  });
  assert.equal(r.statusCode, 201, r.body);
  assert.equal((await h.verify(email, { password: PASSWORD })).statusCode, 200);
  const jar: Jar = {};
  assert.equal(
    (await h.request({ method: 'POST', url: '/auth/login', payload: { email, password: PASSWORD }, jar, origin: base }))
      .statusCode,
    200,
  );
  const put = await h.request({
    method: 'PUT',
    url: '/api/me/display-name',
    jar,
    origin: base,
    payload: { display_name: name },
  });
  assert.equal(put.statusCode, 200, put.body);
  return { jar, user_id: (r.json() as { user_id: string }).user_id };
}

async function signIn(email: string, returnPath: string): Promise<void> {
  await page.goto(`${base}/login?returnUrl=${encodeURIComponent(`${base}${returnPath}`)}`);
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await Promise.all([page.waitForURL(`${base}${returnPath}`), page.click('#login button[type=submit]')]);
}

before(async () => {
  requireChromium();
  fake = await startFakeSources();
  setPrice(null);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const src = (name: string) => ({
    kind: 'json-http',
    name,
    weight: 1,
    url: fake.url(`/${name}`),
    price_pointer: '/price',
    timeout_ms: 1000,
    max_age_seconds: 60,
  });
  h = await bridge(
    undefined,
    {
      PUBLIC_URL: base,
      FRONTEND_ORIGINS: base,
      COOKIE_DOMAIN: '',
      PRICE_SOURCES: JSON.stringify([src('a'), src('b')]),
      PRICE_POLL_SECONDS: '3600',
      PRICE_STALENESS_SECONDS: String(7 * 86_400),
      PRICE_PROPOSAL_INTERVAL_SECONDS: '3600',
    },
    // Job slots run when the test ticks, so the history it builds is exactly the one it checks.
    { jobTimer: false },
  );
  // The job history ends at noon UTC today, on the bridge's clock and on the page's (set below), so its
  // two hours never cross midnight whenever the test runs (the page then writes both dates, and the
  // checks below read one day's span); the session cookie has a Max-Age, so the browser's own clock
  // is free to differ. The bridge's clock starts 30 s into a five-minute slot, so two hours hold 24 slots.
  const start = Date.parse(`${new Date().toISOString().slice(0, 10)}T10:00:30Z`);
  h.advance(start - h.now());
  await h.app.ready();
  // Two hours of history on the bridge's clock, before anyone signs in and before the price is known:
  // every job's slots, minute by minute, and one job that always fails.
  h.app.jobs.define({
    name: 'test:flaky-export',
    everyMs: 30 * MIN,
    run: async () => {
      throw new Error('the export target answered 500');
    },
  });
  for (let i = 0; i < 120; i++) {
    await h.app.jobs.tick();
    h.advance(MIN);
  }
  await h.app.listen({ port, host: '127.0.0.1' });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.clock.setFixedTime(h.now());
  page = await context.newPage();
  watchPage(page, problems, expected);
});

after(async () => {
  await browser?.close();
  await h?.close();
  await fake?.close();
});

describe('the admin console in Chromium (decisions F28, F33–F35, B78, B79)', () => {
  let ann: { user_id: string };

  it('decision F35: the one admin gate: signed out, the console and the Audit page ask for an admin; a member is told they are for administrators', async () => {
    await member(ADMIN_EMAIL, 'Root Admin');
    ann = await member('ann-applicant@example.org', 'Applicant Ann');
    await member('bob-applicant@example.org', 'Applicant Bob');
    await page.goto(`${base}/admin`);
    await page.waitForSelector('main >> text=as an administrator.');
    assert.equal(await page.locator('main a', { hasText: 'Sign in' }).count(), 1);
    await page.goto(`${base}/admin/audit`);
    await page.waitForSelector('main >> text=as an administrator.');
    await signIn('bob-applicant@example.org', '/admin');
    await page.waitForSelector('text=This console is for administrators.');
    await page.goto(`${base}/admin/audit`);
    await page.waitForSelector('text=This page is for administrators.');
    assert.equal(await page.locator('h1', { hasText: /Admin console|Audit log/ }).count(), 0);
    await page.evaluate(() => fetch('/auth/logout', { method: 'POST' }));
  });

  it('decisions F28, F35: at 375 px the admin approves one applicant and rejects another with a reason, read back on the card', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await signIn(ADMIN_EMAIL, '/admin');
    await page.waitForSelector('h1:has-text("Admin console")');
    await page.fill('#find-user', 'bob-applicant@example.org');
    await page.click('button:has-text("Find")');
    const bob = page.locator('.item.user:has-text("Applicant Bob")');
    await bob.locator('text=bob-applicant@example.org').waitFor();
    await bob.locator('button:has-text("Approve KYC")').click();
    await page.waitForSelector('p[role=status]:has-text("KYC approved.")');
    await bob.locator('text=KYC approved').waitFor();

    await page.fill('#find-user', 'applicant ann');
    await page.click('button:has-text("Find")');
    const card = page.locator('.item.user:has-text("Applicant Ann")');
    await card.locator('text=ann-applicant@example.org').waitFor();
    const reject = card.locator('button:has-text("Reject KYC")');
    assert.equal(await reject.isDisabled(), true, 'no rejection without a reason');
    const reason = card.locator('input.reason');
    // The reason fits the bridge's 200-character reference with "rejected: " before it: 190 at most.
    assert.equal(await reason.getAttribute('maxlength'), '190');
    await reason.fill('x'.repeat(191));
    assert.equal((await reason.inputValue()).length, 190, 'one past the limit is not typed');
    await reason.fill('The passport photo was unreadable');
    await buttonsOnScreen('users at 375 px');
    await shoot('admin-kyc-reason');
    await page.setViewportSize({ width: 375, height: 800 });
    await reject.click();
    await page.waitForSelector('p[role=status]:has-text("KYC rejected.")');
    await card.locator('text=Rejected because: The passport photo was unreadable').waitFor();
    await card.locator('text=KYC rejected').waitFor();
    const kyc = (
      await h.request({ method: 'GET', url: `/api/admin/users?name=applicant`, jar: (await adminJar()).jar })
    ).json() as {
      users: Array<{ user_id: string; kyc_status: string; kyc_reference: string | null }>;
    };
    const row = kyc.users.find((u) => u.user_id === ann.user_id)!;
    assert.deepEqual([row.kyc_status, row.kyc_reference], ['rejected', 'rejected: The passport photo was unreadable']);
    await page.setViewportSize({ width: 1280, height: 800 });
    await shoot('admin-kyc');
  });

  it('decisions F33, B78: the admin runs the price job with the button and sees its outcome: submitted, then skipped while the proposal is pending', async () => {
    setPrice(0.25);
    await h.app.priceOracle.pollNow();

    await page.goto(`${base}/admin`);
    await page.waitForSelector('li.job[data-job="price:proposal"]');
    const price = page.locator('li.job[data-job="price:proposal"]');
    assert.equal(await price.locator('li.run.folded').count(), 1, 'two hours of no_aggregate: one folded line');
    const button = page.locator('button', { hasText: 'Run the price job now' });
    await button.click();
    const outcome = page.locator('.outcome[role=status]');
    await outcome.locator('text=succeeded').waitFor();
    const said = await outcome.innerText();
    assert.match(said, /Run \d+: SetDomPrice proposal \d+ submitted at \$0\.25 per DOM \(no ratified price\)/);
    const proposal = /proposal (\d+) submitted/.exec(said)![1]!;
    assert.equal(await outcome.locator(`a[href="/proposals/${proposal}"]`).count(), 1);
    // The list reloaded: the manual run heads the price job's group.
    await price.locator('li.run[data-status=succeeded]:has-text("(manual)")').first().waitFor();
    assert.equal(await price.locator('li.run').first().getAttribute('data-status'), 'succeeded');
    await shoot('admin-price-submitted');

    await button.click();
    await outcome.locator('text=PROPOSAL_PENDING').waitFor();
    assert.match(
      await outcome.innerText(),
      new RegExp(`skipped\\s+PROPOSAL_PENDING SetDomPrice proposal ${proposal} is still pending \\(run \\d+\\)`),
    );
    await price.locator('li.run').first().locator('text=pending proposal').waitFor();
    await buttonsOnScreen('the price job at 375 px');
    await shoot('admin-price-skipped');
    // Both runs are audited with the admin as the actor (decision B61).
    const audit = (
      await h.request({
        method: 'GET',
        url: '/api/admin/audit?event=price.proposal_triggered',
        jar: (await adminJar()).jar,
      })
    ).json() as {
      items: Array<{ actor: string; detail: { status: string } }>;
    };
    const adminId = (
      (await h.request({ method: 'GET', url: '/auth/session', jar: (await adminJar()).jar })).json() as {
        user_id: string;
      }
    ).user_id;
    assert.deepEqual(
      audit.items.map((r) => [r.actor, r.detail.status]),
      [
        [adminId, 'skipped'],
        [adminId, 'succeeded'],
      ],
    );
  });

  it('decisions F34, B79: job runs grouped by job: the failing job first and marked, skipped streaks folded into one line that opens onto its runs', async () => {
    await page.goto(`${base}/admin`);
    await page.waitForSelector('li.job');
    const jobs = await page
      .locator('li.job')
      .evaluateAll((els) => els.map((e) => [e.getAttribute('data-job'), e.classList.contains('bad')] as const));
    const firstFine = jobs.findIndex(([, bad]) => !bad);
    const at = jobs.findIndex(([job]) => job === 'test:flaky-export');
    assert.ok(
      at >= 0 && at < firstFine,
      `a job whose last run failed comes before every other: ${JSON.stringify(jobs)}`,
    );
    const flaky = page.locator('li.job[data-job="test:flaky-export"]');
    assert.match((await flaky.getAttribute('class')) ?? '', /\bbad\b/);
    await flaky.locator('text=Last run failed').waitFor();
    assert.ok((await flaky.locator('li.run.bad').count()) >= 1);
    await flaky.locator('text=the export target answered 500').first().waitFor();
    // member-emails:retry ran every 5 minutes for two hours with nothing to do: 24 skipped runs, one line.
    const retry = page.locator('li.job[data-job="member-emails:retry"]');
    const fold = retry.locator('li.run.folded');
    assert.equal(await fold.count(), 1);
    assert.equal(await fold.getAttribute('data-count'), '24');
    assert.match(await fold.locator('summary').innerText(), /skipped 24 times, .*\d\d:\d\d–\d\d:\d\d UTC/);
    await fold.locator('summary').click();
    await fold.locator('ol.fold-runs li').nth(23).waitFor();
    assert.equal(await fold.locator('ol.fold-runs li').count(), 24);
    await buttonsOnScreen('job runs at 375 px');
    await shoot('admin-job-runs');
    // The whole console at a phone's width, top to bottom.
    await page.setViewportSize({ width: 375, height: 800 });
    await page.screenshot({ path: join(SHOTS, 'admin-console-full-375.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('on every page above: no console error, no CSP violation, no failed request', () => {
    assert.deepEqual(problems, []);
  });
});

let adminSession: { jar: Jar } | undefined;
/** The admin's own API session (the test reads what the browser did through the public API). */
async function adminJar(): Promise<{ jar: Jar }> {
  if (!adminSession) {
    const jar: Jar = {};
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: '/auth/login',
          payload: { email: ADMIN_EMAIL, password: PASSWORD },
          jar,
          origin: base,
        })
      ).statusCode,
      200,
    );
    adminSession = { jar };
  }
  return adminSession;
}
