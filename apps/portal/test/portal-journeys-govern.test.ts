// test-lane: browser (decision R17: one Chromium file at a time)
// Issue 35 in Chromium at 1280 and 375 px (decisions F22, F25–F28): a member names themself and gets
// test DOM; a proposal counts down to its vote, then shows a bar per choice and the quorum in the list
// and on its page; payloads are forms and members are chosen by name; an admin finds a user by name at
// 375 px and rejects KYC with a reason. portal-kit.ts checks axe-core, console errors, CSP and failed
// requests on every page.
/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_EMAIL } from '@domdao/bridge-service/testing';
import { base, h, HOUR_MS, member, page, problems, shoot, signIn, usePortal } from './portal-kit.ts';

usePortal();

describe('issue 35: governance, names, wallet and admin in Chromium (decisions F22, F25–F28)', () => {
  it('decisions F22, F26, F29: a member names themself and gets test DOM on the wallet page; the account is copyable', async () => {
    await member('grace@example.org', true);
    await signIn('grace@example.org', '/me');
    await page.waitForSelector('text=Other members see you as');
    assert.match(
      (await page.locator('#name-h + p strong').textContent()) ?? '',
      /^[A-Z][a-z]+ [A-Z][a-z]+ #[0-9a-f]{4}$/,
      'a friendly default',
    );
    await page.fill('#display-name', 'Grace Hopper');
    await page.click('button:has-text("Save name")');
    await page.waitForSelector('text=other members now see “Grace Hopper”');
    await shoot('me-name-wallet');
    // Decision F29: the faucet and the account are on the wallet page, linked from /me.
    await page.click('a:has-text("Open your wallet")');
    await page.click('button:has-text("Get test DOM")');
    await page.waitForSelector('text=1,000 test DOM added.');
    await page.waitForSelector('.big:has-text("1,000 DOM")');
    await page.click('button:has-text("Copy")');
    await page.waitForSelector('button:has-text("Copied")');
    assert.equal(
      await page.evaluate(() => navigator.clipboard.readText()),
      (await page.textContent('#account'))?.trim(),
    );
  });

  it('decision F25: a proposal counts down to its vote, then shows a bar per choice and the quorum, in the list and on its page', async () => {
    // The page's clock is the bridge's (which this test moves by hours).
    h.advance(Date.now() - h.now());
    await page.clock.setFixedTime(h.now());
    const grace = await member('grace2@example.org', true);
    await h.request({
      method: 'PUT',
      url: '/api/me/display-name',
      jar: grace.jar,
      origin: base,
      payload: { display_name: 'Grace Two' },
    });
    const ada = await member('ada@example.org', true);
    const r = await h.request({
      method: 'POST',
      url: '/api/governance/propose',
      jar: grace.jar,
      origin: base,
      payload: { title: 'Plant an orchard', body: 'Apples for everyone.', category: 'General' },
    });
    assert.equal(r.statusCode, 201, r.body);
    const id = r.json().proposal_id as string;
    await page.goto(`${base}/`);
    await page.waitForSelector('text=Voting opens in 1 h');
    await page.goto(`${base}/govern`);
    await page.waitForSelector(`li:has-text("Plant an orchard") >> text=Voting soon`);
    await page.waitForSelector('li:has-text("Plant an orchard") >> text=by Grace Two');
    await page.goto(`${base}/proposals/${id}`);
    await page.waitForSelector('text=Voting opens in 1 h');
    await page.waitForSelector('text=Voting has not opened yet.');
    await shoot('proposal-countdown');

    h.advance(HOUR_MS + 1000);
    await page.clock.setFixedTime(h.now());
    await h.opened.canisters.platform!.tick();
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: '/api/governance/vote',
          jar: ada.jar,
          origin: base,
          payload: { proposal_id: id, vote: 'Yes' },
        })
      ).statusCode,
      200,
    );
    await page.goto(`${base}/govern`);
    await page.waitForSelector('li:has-text("Plant an orchard") >> text=Voting open');
    await page.waitForSelector('li:has-text("Plant an orchard") >> text=Ends in 7 days');
    await page.waitForSelector('li:has-text("Plant an orchard") >> text=Yes 1 · No 0 · Abstain 0');
    await page.waitForSelector('li:has-text("Plant an orchard") [role=img][aria-label^="Turnout"]');
    await shoot('govern-list');
    await page.goto(`${base}/proposals/${id}`);
    await page.waitForSelector('[aria-label="Yes: 1 of 1 votes"]');
    await page.waitForSelector('[aria-label="No: 0 of 1 votes"]');
    await page.waitForSelector('[aria-label^="Turnout"]');
    await page.waitForSelector('text=proposed by Grace Two');
    await shoot('proposal-open');
  });

  it('decision F27: a payout recipient is chosen by searching members by name; membership policy and amendments are forms, not JSON', async () => {
    await signIn('grace@example.org', '/govern');
    await page.click('button:has-text("New proposal")');
    await page.selectOption('#p-category', 'TreasuryPayout');
    await page.fill('#p-title', 'Pay Grace Two for the trees');
    await page.fill('#p-body', 'Saplings and stakes.');
    await page.fill('#p-recipient', 'grace t');
    await page.click('.picks button:has-text("Grace Two")');
    await page.waitForSelector('#p-recipient-chosen >> text=Paying Grace Two');
    await page.fill('#p-amount', '12');
    await page.selectOption('#p-unit', 'dom');
    await shoot('propose-payout');
    await Promise.all([page.waitForURL(/\/proposals\/\d+$/), page.click('#propose button[type=submit]')]);
    const id = page.url().split('/').at(-1)!;
    const p = (await h.request({ method: 'GET', url: `/api/governance/proposals/${id}` })).json() as {
      payload: { TreasuryPayout: { recipient: string } };
    };
    const grace2 = (
      await h.opened.db
        .selectFrom('users')
        .select('principal')
        .where('display_name', '=', 'Grace Two')
        .executeTakeFirstOrThrow()
    ).principal;
    assert.equal(p.payload.TreasuryPayout.recipient, grace2, 'the chosen member is the recipient');

    await page.goto(`${base}/govern`);
    await page.click('button:has-text("New proposal")');
    await page.selectOption('#p-category', 'MembershipPolicy');
    assert.equal(await page.locator('textarea#p-json').count(), 0, 'no raw JSON');
    await page.fill('#p-revoke', 'grace t');
    await page.click('.picks button:has-text("Grace Two")');
    await page.waitForSelector('strong:has-text("Grace Two")');
    await shoot('propose-policy');
    await page.selectOption('#p-category', 'ConstitutionalAmendment');
    await page.fill('input[placeholder="e.g. 20"]', '25');
    await shoot('propose-amendment');
  });

  it('decision F28: at 375 px an admin finds a user by name, sees the email and rejects KYC with a reason', async () => {
    await member(ADMIN_EMAIL);
    const applicant = await member('applicant@example.org');
    await h.request({
      method: 'PUT',
      url: '/api/me/display-name',
      jar: applicant.jar,
      origin: base,
      payload: { display_name: 'Applicant Ann' },
    });
    await page.setViewportSize({ width: 375, height: 800 });
    await signIn(ADMIN_EMAIL, '/admin');
    await page.fill('#find-user', 'applicant');
    await page.click('button:has-text("Find")');
    const card = page.locator('.item.user:has-text("Applicant Ann")');
    await card.locator('text=applicant@example.org').waitFor();
    await card.locator('input.reason').fill('The document was unreadable');
    const button = card.locator('button:has-text("Reject KYC")');
    const box = (await button.boundingBox())!;
    assert.ok(box.x >= 0 && box.x + box.width <= 375, 'the button is on screen at 375 px');
    await button.click();
    await page.waitForSelector('text=KYC rejected.');
    await card.locator('text=KYC rejected').waitFor();
    await shoot('admin-users');
  });

  it('on every page above: no console error, no CSP violation, no failed request', () => {
    assert.deepEqual(problems, []);
  });
});
