// test-lane: browser (decision R17: one Chromium file at a time)
// Issue 48 items 6 and 7 in Chromium at 1280 and 375 px: the payment's confirmation and the
// membership's end date on /me survive a reload (decision F50); the faucet stops after its daily grants
// and says when to come back (decision B107); no internal reference on the pages a member or an admin
// reads (decision F51); no control under 24 × 24 px at 375 px (decision F52, every shot); the delegation
// page reads the recent ballots in one request and the brand once, the console's event log ten lines a
// page (decision F53); a delegate's statement, written on /delegation and read with their following
// when members choose a delegate (decisions F54, B108). portal-kit.ts checks axe-core, console
// errors, CSP violations and failed requests on every page.
/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SHOTS } from '@domdao/test-helpers/browser';
import { ADMIN_EMAIL, eventually, type Jar } from '@domdao/bridge-service/testing';
import {
  base,
  expected,
  h,
  HOUR_MS,
  member,
  page,
  PASSWORD,
  problems,
  secondBrowser,
  shoot,
  signIn,
  usePortal,
} from './portal-kit.ts';

usePortal();

/** Words that name the platform's insides rather than what a member sees (decision F51). */
const INTERNAL = /\bdecision [A-Z]{1,2}\d+\b|canister|ICRC|\bprincipal\b/i;

async function named(email: string, name: string, active = true) {
  const m = await member(email, active);
  const r = await h.request({
    method: 'PUT',
    url: '/api/me/display-name',
    jar: m.jar,
    origin: base,
    payload: { display_name: name },
  });
  assert.equal(r.statusCode, 200, r.body);
  return m;
}

const userId = async (jar: Jar) =>
  ((await h.request({ method: 'GET', url: '/auth/session', jar })).json() as { user_id: string }).user_id;

/** The page's whole text (header, main, footer) names nothing internal. */
async function saysNothingInternal(what: string): Promise<void> {
  const text = await page.evaluate(() => document.body.innerText);
  const found = INTERNAL.exec(text);
  assert.equal(
    found,
    null,
    `${what}: "${text.slice(Math.max(0, (found?.index ?? 0) - 60), (found?.index ?? 0) + 60)}"`,
  );
}

describe('issue 48 items 6 and 7: what members see, in Chromium (decisions F50–F54, B107, B108)', () => {
  let admin: Awaited<ReturnType<typeof member>>;
  let pat: Awaited<ReturnType<typeof member>>;
  const year = new Date().getUTCFullYear();

  it('decision F50: after paying on /me the membership says Active until 31 December and the payment received, and both are still there after a reload', async () => {
    admin = await member(ADMIN_EMAIL);
    pat = await named('pat-pays@example.org', 'Pat Payer', false);
    const kyc = await h.request({
      method: 'POST',
      url: `/api/admin/users/${await userId(pat.jar)}/kyc`,
      jar: admin.jar,
      origin: base,
      payload: { approved: true },
    });
    assert.equal(kyc.statusCode, 200, kyc.body);
    await signIn('pat-pays@example.org', '/me');
    await page.waitForSelector('main p.big:has-text("Registered")');
    assert.equal(await page.locator('[data-testid=active-until]').count(), 0, 'no end date while Registered');
    await page.click('button:has-text("simulated checkout")');
    const paid = async () => {
      // Decision F57: the end in the reader's zone (this browser's: UTC) and how far off it is.
      await page.waitForSelector(`[data-testid=active-until]:has-text("31 Dec ${year}, 23:59")`);
      const until = await page.locator('[data-testid=active-until]').innerText();
      assert.match(
        until,
        new RegExp(`^Active until \\w{3}, 31 Dec ${year}, 23:59 UTC \\((in \\d+ \\w+|next month|tomorrow)\\)\\.$`),
        until,
      );
      await page.waitForSelector('[data-testid=payment]:has-text("Payment of 25.00 USD received on")');
      await page.waitForSelector('[data-testid=payment]:has-text("Thank you: it paid your membership.")');
    };
    await paid();
    await shoot('me-paid');
    await page.reload();
    await paid();
    assert.equal(await page.locator('section[aria-labelledby=upgrade-h]').count(), 0, 'nothing left to pay');
    await shoot('me-paid-reloaded');
  });

  it("decision F57: the Sessions card and the membership end in the reader's own zone (Tokyo here), relative as elsewhere", async () => {
    const tokyo = await secondBrowser({ timezoneId: 'Asia/Tokyo' });
    await tokyo.clock.setFixedTime(h.now());
    await signIn('pat-pays@example.org', '/me', tokyo);
    const until = tokyo.locator('[data-testid=active-until]');
    await until.waitFor();
    assert.match(await until.innerText(), new RegExp(`^Active until \\w{3}, 1 Jan ${year + 1}, 08:59 GMT\\+9 \\(`));
    const session = tokyo.locator('section[aria-labelledby=sessions-h] li').first();
    await session.waitFor();
    const text = await session.innerText();
    assert.match(
      text,
      /^Signed in (now|.+ ago|in \d+ seconds?) \(\w{3}, \d+ \w{3} \d{4}, \d\d:\d\d GMT\+9\), last active .+ \(.+GMT\+9\), ends (in .+|tomorrow) \(.+GMT\+9\)$/,
      text,
    );
    assert.doesNotMatch(text, /UTC/);
    await tokyo.context().close();
    assert.deepEqual(problems, []);
  });

  it('decision B107: "Get test DOM" gives five times a day; the sixth says when to come back and the button waits', async () => {
    // The refusal this journey asks for: the sixth press.
    expected.add('POST /api/dev/faucet 429');
    await page.goto(`${base}/wallet`);
    await page.waitForSelector('.hint:has-text("Up to 5 times a day.")');
    for (let i = 1; i <= 5; i++) {
      await page.click('button:has-text("Get test DOM")');
      await page.waitForSelector(`.big:has-text("${i},000 DOM")`);
    }
    await page.click('button:has-text("Get test DOM")');
    await page.waitForSelector("text=You have had today's test DOM (5 times a day). Try again in 24 h.");
    assert.equal(await page.isDisabled('button:has-text("Get test DOM")'), true, 'the button waits');
    await page.waitForSelector('.big:has-text("5,000 DOM")');
    await shoot('wallet-faucet-limit');
  });

  it('decision F51: no decision id, "canister", ICRC or principal on /me, /wallet, /delegation, /govern, a proposal (its receipt, its platform proposer) or the admin console', async () => {
    // A proposal the platform itself made (the bridge's own principal, no member's: "proposed by the platform").
    const made = await h.opened.canisters.clients.governance.create_proposal({
      title: 'Platform housekeeping',
      body: 'Routine.',
      category: 'General',
    });
    if (!('Ok' in made)) assert.fail(`create_proposal: ${Object.keys(made.Err).join()}`);
    const platformId = String(made.Ok);
    h.advance(HOUR_MS + 1000);
    await page.clock.setFixedTime(h.now());
    await h.opened.canisters.platform!.tick();
    // Pat votes: the page shows the vote's receipt.
    await signIn('pat-pays@example.org', `/proposals/${platformId}`);
    await page.waitForSelector('text=proposed by the platform');
    await page.click('button:has-text("Vote yes")');
    await page.waitForSelector('text=Your vote receipt #');
    await saysNothingInternal('a proposal');
    await shoot('proposal-receipt');
    for (const path of ['/me', '/wallet', '/delegation', '/govern']) {
      await page.goto(`${base}${path}`);
      await page.waitForLoadState('networkidle');
      await saysNothingInternal(path);
    }
    await signIn(ADMIN_EMAIL, '/admin');
    await page.waitForSelector('#price-h');
    await page.waitForLoadState('networkidle');
    await saysNothingInternal('/admin');
  });

  it('decision F52: at 375 px the menu and the footer links are 24 × 24 px at least (every shot checks every control)', async () => {
    await page.goto(`${base}/me`);
    await page.waitForSelector('h1:has-text("My membership")');
    await page.setViewportSize({ width: 375, height: 800 });
    const sizes = await page.evaluate(() =>
      Array.from(document.querySelectorAll('header nav a, footer a')).map((a) => {
        const r = a.getBoundingClientRect();
        return { text: a.textContent, w: r.width, h: r.height };
      }),
    );
    await page.setViewportSize({ width: 1280, height: 800 });
    assert.ok(sizes.length >= 8, JSON.stringify(sizes));
    for (const s of sizes) assert.ok(s.w >= 24 && s.h >= 24, `${s.text}: ${s.w.toFixed(1)} × ${s.h.toFixed(1)} px`);
  });

  it('decision F53: /delegation asks for the recent ballots once (no my-vote a proposal) and for brand.json once; the console’s event log is ten lines a page, newest first', async (t) => {
    await signIn('pat-pays@example.org', '/me');
    // What /me asks for is not the delegation page's.
    await page.waitForLoadState('networkidle');
    const asked: string[] = [];
    const record = (r: { url(): string }) => {
      const u = new URL(r.url());
      if (u.origin === base && (u.pathname.startsWith('/api/') || u.pathname.startsWith('/portal/')))
        asked.push(u.pathname);
    };
    page.on('request', record);
    await page.goto(`${base}/delegation`);
    await page.waitForSelector('#by-delegates-h ~ p:has-text("No delegate has voted for you")');
    await page.waitForLoadState('networkidle');
    page.off('request', record);
    const count = (p: string | RegExp) => asked.filter((a) => (typeof p === 'string' ? a === p : p.test(a))).length;
    assert.equal(count('/api/governance/my-ballots'), 1, asked.join(' '));
    assert.equal(count(/\/my-vote$/), 0, asked.join(' '));
    assert.equal(count('/portal/brand.json'), 1, asked.join(' '));
    t.diagnostic(`/delegation asked ${asked.length} times: ${asked.join(' ')}`);
    assert.ok(asked.length <= 9, `${asked.length} requests: ${asked.join(' ')}`);

    // Enough governance events for two pages: proposals the platform makes.
    for (let i = 1; i <= 12; i++) {
      const r = await h.opened.canisters.clients.governance.create_proposal({
        title: `Housekeeping ${i}`,
        body: 'Routine.',
        category: 'General',
      });
      assert.ok('Ok' in r);
    }
    const jar: Jar = {};
    const login = await h.request({
      method: 'POST',
      url: '/auth/login',
      payload: { email: ADMIN_EMAIL, password: PASSWORD },
      jar,
      origin: base,
    });
    assert.equal(login.statusCode, 200, login.body);
    const log = await eventually('the events copied to the log', async () => {
      const items = (
        await h.request({ method: 'GET', url: '/api/governance/admin/events?order=newest&limit=500', jar })
      ).json().items as Array<{
        seq: string;
      }>;
      return items.length >= 14 ? items : undefined;
    });
    await signIn(ADMIN_EMAIL, '/admin');
    const lines = page.locator('[data-testid=events] li');
    await lines.nth(9).waitFor();
    assert.equal(await lines.count(), 10);
    const seqs = async () => (await lines.allTextContents()).map((s) => Number(/^#(\d+)/.exec(s)?.[1]));
    const first = await seqs();
    assert.deepEqual(
      first,
      log.slice(0, 10).map((e) => Number(e.seq)),
      'the newest ten, newest first',
    );
    assert.match((await lines.first().textContent()) ?? '', /^#\d+ Proposal created · proposal #\d+ /);
    await page.setViewportSize({ width: 375, height: 800 });
    const card = await page.locator('section[aria-labelledby=h-events]').boundingBox();
    const whole = await page.evaluate(() => document.documentElement.scrollHeight);
    await page
      .locator('section[aria-labelledby=h-events]')
      .screenshot({ path: join(SHOTS, 'admin-event-log-card-375.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
    t.diagnostic(`at 375 px the event log card is ${Math.round(card!.height)} px tall, the console ${whole} px`);
    assert.ok(card!.height < 800, `the event log at 375 px: ${card!.height} px`);
    await shoot('admin-event-log');
    await page.click('button:has-text("Older events")');
    await page.waitForFunction(
      (top) => !document.querySelector('[data-testid=events] li')?.textContent?.startsWith(`#${top} `),
      first[0],
    );
    const older = await seqs();
    assert.ok(Math.max(...older) < Math.min(...first), `older: ${older.join(',')} after ${first.join(',')}`);
    await page.click('button:has-text("Newer events")');
    await page.waitForFunction(
      (top) => document.querySelector('[data-testid=events] li')?.textContent?.startsWith(`#${top} `),
      first[0],
    );
  });

  it('decisions F54, B108: Ben writes his statement (501 characters are held back, 500 are saved); Ann reads it with how many members he votes for, chooses him from the list, and he votes for one more', async () => {
    const ben = await named('ben-profile@example.org', 'Ben Profile');
    const cat = await named('cat-profile@example.org', 'Cat Profile');
    await named('ann-profile@example.org', 'Ann Profile');
    assert.equal(
      (
        await h.request({
          method: 'PUT',
          url: '/api/governance/delegation',
          jar: cat.jar,
          origin: base,
          payload: { delegate: ben.principal },
        })
      ).statusCode,
      200,
    );
    const statement =
      'I read every proposal in full before I vote, I explain each vote in its reason, and I ask the proposer when something is unclear. '
        .repeat(5)
        .slice(0, 499)
        .concat('.');
    assert.equal([...statement].length, 500);

    await signIn('ben-profile@example.org', '/delegation');
    await page.fill('#statement', `${statement}x`);
    await page.waitForSelector('#statement-hint.bad:has-text("501 of 500 characters")');
    assert.equal(await page.isDisabled('#statement-form button[type=submit]'), true, 'one past the limit is held back');
    await page.fill('#statement', statement);
    await page.waitForSelector('#statement-hint:has-text("500 of 500 characters")');
    await page.click('#statement-form button[type=submit]');
    await page.waitForSelector('text=Saved: members choosing a delegate now read it.');
    await shoot('delegation-statement');

    await signIn('ann-profile@example.org', '/delegation');
    const ben1 = page.locator('[data-testid=delegate]:has-text("Ben Profile")');
    await ben1.locator('text=Votes for 1 member').waitFor();
    await ben1.locator('.statement:has-text("I read every proposal in full")').waitFor();
    await shoot('delegation-delegates');
    await page.click('button[aria-label="Choose Ben Profile as your delegate"]');
    await page.waitForSelector('#delegate-chosen >> text=Ben Profile');
    await page.waitForSelector('[data-testid=chosen-profile] >> text=Votes for 1 member');
    await page.waitForSelector(
      '[data-testid=chosen-profile] .statement:has-text("I ask the proposer when something is unclear")',
    );
    await shoot('delegation-chosen-profile');
    await page.click('#delegate-form button[type=submit]');
    await page.waitForSelector('text=You delegate to Ben Profile.');
    await page.waitForSelector('[data-testid=delegate]:has-text("Ben Profile") >> text=Votes for 2 members');
    await shoot('delegation-delegated');
  });

  it('on every page above: no console error, no CSP violation, no failed request beyond the sixth faucet press', () => {
    assert.deepEqual(problems, []);
  });
});
