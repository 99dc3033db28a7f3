// test-lane: browser (decision R17: one Chromium file at a time)
// Issue 48 items 2–4 in Chromium at 1280 and 375 px. Decision F47: the join page asks the name other
// members see, filled in from the name and editable, refused like the profile refuses it. Decision B105:
// confirming the link, with the registration's password or by starting afresh, signs the member in,
// so Continue lands on the app signed in. Decisions F48, B106: the admin console finds a member by the
// name given at registration. Decision G50: a campaign's dollar progress follows a SetDomPrice in the
// step that executes it. Decision F63: the campaigns, a campaign's page, /me's contributions and the
// price page say an instant in the reader's zone. portal-kit.ts checks axe-core, console errors, CSP and failed requests.
/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_EMAIL, eventually } from '@domdao/bridge-service/testing';
import { absoluteTime } from '@domdao/proposal-text';
import { shoot as shootOn } from '@domdao/test-helpers/browser';
import {
  base,
  DAY_MS,
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

/** Five seconds from a SetDomPrice's execution to the campaign page showing dollars (issue 48 item 4). */
const FOLLOW_MS = 5_000;

/** Each test starts signed out, on the app's own page (a page of the bridge may forbid the fetch). */
async function signedOut(): Promise<void> {
  await page.goto(`${base}/`);
  await page.evaluate(() => fetch('/auth/logout', { method: 'POST' }));
}

describe('issue 48: names, signed in after verifying, the campaign follows the price, in Chromium', () => {
  it('decisions F47, B105: join asks the name members see (filled in from the name, editable, unique by look); confirming the link signs in, Continue lands signed in', async () => {
    // Someone already shows as Ada Lovelace.
    const taken = await h.encrypt({ email: 'first-ada@example.org', name: 'Ada Lovelace', dob: '1980-01-01' });
    const r = await h.request({
      method: 'POST',
      url: '/api/auth/register',
      origin: base,
      payload: { ...taken, password: PASSWORD, tos_accepted: true, display_name: 'Ada Lovelace' },
    });
    assert.equal(r.statusCode, 201, r.body);

    await page.goto(`${base}/join`);
    await page.fill('#dob', '1990-01-01');
    await page.click('button[type=submit]');
    await page.fill('#name', 'Ada Lovelace');
    assert.equal(await page.inputValue('#display_name'), 'Ada Lovelace', 'filled in from the name');
    await page.fill('#email', 'ada@example.org');
    await page.fill('#password', PASSWORD);
    await page.check('input[type=checkbox]');
    expected.add('POST /api/auth/register 409');
    await page.click('button[type=submit]');
    await page.waitForSelector('#display-name-error >> text=Another member already uses this name; choose another.');
    expected.delete('POST /api/auth/register 409');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'display_name');
    await shoot('join-name-taken');
    await page.fill('#display_name', 'Ada King');
    // The member's own choice stays when the name changes.
    await page.fill('#name', 'Ada Lovelace ');
    assert.equal(await page.inputValue('#display_name'), 'Ada King');
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Check your email');
    await shoot('join-sent');

    await eventually(
      'the verification email',
      () => h.emails().some((m) => m.to.includes('ada@example.org')) || undefined,
    );
    await page.goto(`${base}${h.verificationPath('ada@example.org')}`);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    await page.waitForSelector('text=You are signed in.');
    await shoot('verify-signed-in');
    await Promise.all([page.waitForURL(`${base}/`), page.click('a:has-text("Continue")')]);
    await page.waitForSelector('text=Signed in as ada@example.org');
    await page.waitForSelector('#signout');
    await shoot('home-after-verify');
    await page.goto(`${base}/me`);
    await page.waitForSelector('text=Other members see you as Ada King.');
    await shoot('me-chosen-name');
    assert.deepEqual(problems, []);
  });

  it('decision B105: a link confirmed by choosing a new password (the account started afresh) signs in too; the name members see is the owner’s', async () => {
    await signedOut();
    const attacker = await h.encrypt({ email: 'owner@example.org', name: 'Eve Attacker', dob: '1990-01-01' });
    const r = await h.request({
      method: 'POST',
      url: '/api/auth/register',
      origin: base,
      payload: { ...attacker, password: 'attacker chose this one 42', tos_accepted: true, display_name: 'Eve' },
    });
    assert.equal(r.statusCode, 201, r.body);
    await eventually(
      'the verification email',
      () => h.emails().some((m) => m.to.includes('owner@example.org')) || undefined,
    );
    await page.goto(`${base}${h.verificationPath('owner@example.org')}&choose=1`);
    await page.fill('#dob', '1985-04-12');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    await page.fill('#name', 'Olive Owner');
    await page.fill('#new_password', PASSWORD);
    await page.check('#tos_accepted');
    await shoot('verify-afresh-display-name');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    await page.waitForSelector('text=You are signed in.');
    await Promise.all([page.waitForURL(`${base}/`), page.click('a:has-text("Continue")')]);
    await page.waitForSelector('text=Signed in as owner@example.org');
    await page.goto(`${base}/me`);
    await page.waitForSelector('text=Other members see you as Olive Owner.');
    await shoot('me-afresh-name');
    assert.deepEqual(problems, []);
  });

  it('decisions F48, B106: the admin console finds a member by a word of the name given at registration and shows it', async () => {
    await signedOut();
    await member(ADMIN_EMAIL);
    await signIn(ADMIN_EMAIL, '/admin');
    await page.fill('#find-user', 'lovelace');
    await page.click('button:has-text("Find")');
    const card = page.locator('li.user', { hasText: 'Ada King' });
    await card.waitFor();
    assert.match(await card.innerText(), /Registered as Ada Lovelace/);
    assert.match(await card.innerText(), /ada@example\.org/);
    assert.equal(
      await page.locator('li.user', { hasText: 'Ada Lovelace' }).count(),
      2,
      'the one shown as Ada Lovelace too',
    );
    await shoot('admin-find-registration-name');
    assert.deepEqual(problems, []);
  });

  it(`decision G50: the campaign page shows dollar progress within ${FOLLOW_MS / 1000} s of the SetDomPrice's execution, with no timer step between`, async () => {
    await signedOut();
    const grace = await member('grace@example.org', true);
    assert.equal(
      (await h.request({ method: 'POST', url: '/api/dev/faucet', jar: grace.jar, origin: base, payload: {} }))
        .statusCode,
      200,
    );
    const deadline = new Date(h.now() + 10 * DAY_MS).toISOString();
    const c = await h.request({
      method: 'POST',
      url: '/api/campaigns',
      jar: grace.jar,
      origin: base,
      payload: { title: 'Orchard fund', description: 'Trees', goal: { usd: 100 }, deadline },
    });
    assert.equal(c.statusCode, 201, c.body);
    const campaign = (c.json() as { id: string }).id;
    const given = await h.request({
      method: 'POST',
      url: `/api/campaigns/${campaign}/contributions`,
      jar: grace.jar,
      origin: base,
      headers: { 'idempotency-key': 'orchard-1' },
      payload: { amount: { dom_e8s: String(10n * 100_000_000n) } },
    });
    assert.equal(given.statusCode, 201, given.body);
    const proposed = await h.request({
      method: 'POST',
      url: '/api/governance/propose',
      jar: grace.jar,
      origin: base,
      payload: { title: 'Price 0.5', body: 'The market moved.', category: 'SetDomPrice', payload: { price_usd: 0.5 } },
    });
    assert.equal(proposed.statusCode, 201, proposed.body);
    const id = (proposed.json() as { proposal_id: string }).proposal_id;
    const platform = h.opened.canisters.platform!;
    h.advance(HOUR_MS + 1000);
    await platform.tick();
    assert.ok('Ok' in (await platform.as(grace.principal).governance.cast_vote(BigInt(id), 'Yes')));
    // The campaign's own price refresh runs here; from now on no timer step runs (the canisters' clock
    // moves only with the bridge's, and nothing ticks the scheduler).
    await platform.tick();
    h.advance(3 * DAY_MS + 1000);

    await signIn('grace@example.org', `/campaigns/${campaign}`);
    await page.waitForSelector('text=Progress in dollars shows once members ratify a DOM price');
    await shoot('campaign-before-price');
    await page.goto(`${base}/proposals/${id}`);
    await page.waitForSelector('text=Approved. It is executed automatically');
    await page.click('button:has-text("Execute now")');
    await page.waitForSelector('text=Done: the proposal is Executed.');
    const executed = Date.now();
    await page.goto(`${base}/campaigns/${campaign}`);
    await page.waitForSelector('text=10 DOM raised ($5.00) of $100.00', { timeout: FOLLOW_MS });
    const took = Date.now() - executed;
    assert.ok(took < FOLLOW_MS, `shown ${took} ms after the execution`);
    await shoot('campaign-follows-price');
    assert.deepEqual(problems, []);
  });

  it("decision F63: the campaigns, a campaign's page, /me's contributions and the price page say each instant in the reader's own zone (Tokyo here), named, never UTC", async () => {
    // The Orchard fund, its contribution and the ratified price are G50's, above.
    const tokyo = await secondBrowser({ timezoneId: 'Asia/Tokyo' });
    await tokyo.clock.setFixedTime(h.now());
    const inTokyo = (iso: string) => absoluteTime(Date.parse(iso), 'Asia/Tokyo');
    const LOCAL = /\w{3}, \d+ \w{3} \d{4}, \d\d:\d\d GMT\+9/;
    const campaigns = (await h.request({ method: 'GET', url: '/api/campaigns' })).json() as {
      items: { id: string; title: string; deadline: string }[];
    };
    const orchard = campaigns.items.find((c) => c.title === 'Orchard fund')!;
    await signIn('grace@example.org', '/campaigns', tokyo);
    const row = tokyo.locator('li.item', { hasText: 'Orchard fund' });
    await row.waitFor();
    const rowText = await row.innerText();
    assert.ok(rowText.includes(`until ${inTokyo(orchard.deadline)}`), rowText);
    assert.match(rowText, LOCAL);

    await tokyo.goto(`${base}/campaigns/${orchard.id}`);
    const open = tokyo.locator('p.muted', { hasText: 'Open until' });
    await open.waitFor();
    assert.ok((await open.innerText()).startsWith(`Open until ${inTokyo(orchard.deadline)} · `));
    const given = tokyo.locator('tbody tr').first();
    await given.waitFor();
    assert.match(await given.locator('td').first().innerText(), new RegExp(`^${LOCAL.source}$`));

    await tokyo.goto(`${base}/me`);
    const mine = tokyo.locator('section', { hasText: 'My contributions' }).locator('li').first();
    await mine.waitFor();
    assert.match(await mine.innerText(), new RegExp(`DOM, ${LOCAL.source}$`));

    const history = (await h.request({ method: 'GET', url: '/api/governance/price/history?limit=1' })).json() as {
      items: { effective_at: string }[];
    };
    await tokyo.goto(`${base}/price`);
    const since = tokyo.locator('p.muted', { hasText: 'In force since' });
    await since.waitFor();
    assert.ok((await since.innerText()).startsWith(`In force since ${inTokyo(history.items[0]!.effective_at)}, by`));
    for (const path of ['/campaigns', `/campaigns/${orchard.id}`, '/me', '/price']) {
      await tokyo.goto(`${base}${path}`);
      await tokyo.locator('main h1').first().waitFor();
      assert.doesNotMatch(await tokyo.locator('main').innerText(), /UTC/, path);
    }
    await shootOn(tokyo, 'price-tokyo');
    await tokyo.context().close();
    assert.deepEqual(problems, []);
  });
});
