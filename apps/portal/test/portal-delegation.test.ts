// test-lane: browser (decision R17: one Chromium file at a time)
// Liquid democracy in the web app, in Chromium at 1280 and 375 px (issue 36 item 3, issue 35 item 1;
// decisions F36–F38 on the bridge's V30, V31): member A chooses member B as delegate by name, B votes,
// A sees "voted by your delegate B" on /delegation and on the proposal and overrides with a direct vote;
// B sees how many delegate to them; the proposal's timeline shows what happened when and what is
// planned, and the votes list (admins only, spec 1 Authentication rule 2) shows who voted how,
// directly or by delegate. portal-kit.ts checks axe-core, console errors, CSP and failed requests.
/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_EMAIL, eventually } from '@domdao/bridge-service/testing';
import { base, h, HOUR_MS, member, page, problems, shoot, signIn, usePortal } from './portal-kit.ts';

usePortal();

async function named(email: string, name: string) {
  const m = await member(email, true);
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

/** The browser's clock is the bridge's (which this test moves by hours and days). */
async function clockToBridge() {
  await page.clock.setFixedTime(h.now());
}

describe('issue 36: delegating by name, voting by delegate and overriding, in Chromium (decisions F36–F38)', () => {
  let id = '';

  it('decision F38: A finds B by name and delegates every category to them; B sees one delegation and A’s name', async () => {
    h.advance(Date.now() - h.now());
    await clockToBridge();
    await named('ann@example.org', 'Ann Delegator');
    await named('ben@example.org', 'Ben Delegate');
    const cat = await named('cat@example.org', 'Cat Follower');
    // A third member delegates to B through the API, keeping their name private (decision G33).
    const ben = (
      await h.opened.db
        .selectFrom('users')
        .select('principal')
        .where('display_name', '=', 'Ben Delegate')
        .executeTakeFirstOrThrow()
    ).principal;
    assert.equal(
      (
        await h.request({
          method: 'PUT',
          url: '/api/governance/delegation',
          jar: cat.jar,
          origin: base,
          payload: { delegate: ben },
        })
      ).statusCode,
      200,
    );

    await signIn('ann@example.org', '/delegation');
    await page.waitForSelector('text=You vote for yourself on every category.');
    await page.fill('#delegate', 'ben d');
    await page.click('.picks button:has-text("Ben Delegate")');
    await page.waitForSelector('#delegate-chosen >> text=Ben Delegate');
    await page.check('input[name=show_name]');
    await page.click('#delegate-form button[type=submit]');
    await page.waitForSelector('text=You delegate to Ben Delegate.');
    await page.waitForSelector('[data-testid=delegation]:has-text("All categories: Ben Delegate")');
    assert.equal(await page.locator('main code').count(), 0, 'no bare principal on the page (decision F22)');
    await shoot('delegation');

    await signIn('ben@example.org', '/delegation');
    await page.waitForSelector('[data-testid=delegators]:has-text("you vote for 2 delegations too")');
    await page.waitForSelector('li:has-text("Ann Delegator · all categories")');
    await page.waitForSelector('li:has-text("a member who keeps their name private")');
    await shoot('delegation-delegate');
  });

  it('decisions F19, F36, F38: B votes; A sees "voted by your delegate Ben Delegate" on /delegation and on the proposal, then votes herself', async () => {
    h.advance(1000);
    const ann = await member('ann2@example.org', true);
    const r = await h.request({
      method: 'POST',
      url: '/api/governance/propose',
      jar: ann.jar,
      origin: base,
      payload: { title: 'Plant a hedge', body: 'Beech, along the lane.', category: 'General' },
    });
    assert.equal(r.statusCode, 201, r.body);
    id = r.json().proposal_id as string;

    // Before voting opens: the timeline counts down to it; no votes yet.
    await clockToBridge();
    await signIn('ben@example.org', `/proposals/${id}`);
    await page.waitForSelector('li[data-kind=opens].next >> text=in 1 h');
    await page.waitForSelector('section[aria-labelledby=votes-h] >> text=No votes yet: voting has not opened.');
    await shoot('proposal-timeline-created');

    h.advance(HOUR_MS + 1000);
    await clockToBridge();
    await h.opened.canisters.platform!.tick();
    await page.goto(`${base}/proposals/${id}`);
    await page.fill('textarea[name=reason]', 'Hedges shelter birds.');
    await page.click('button:has-text("Vote yes")');
    await page.waitForSelector('text=Your vote “Yes” is recorded.');

    await signIn('ann@example.org', '/delegation');
    await page.waitForSelector(
      `[data-testid=delegate-vote]:has-text("#${id} Plant a hedge: Yes, voted by your delegate Ben Delegate")`,
    );
    await page.waitForSelector('[data-testid=delegate-vote] >> text=open the proposal to vote yourself instead');
    await shoot('delegation-voted-by-delegate');

    await page.click(`a:has-text("#${id} Plant a hedge")`);
    await page.waitForURL(`${base}/proposals/${id}`);
    await page.waitForSelector(
      '[data-testid=ballot]:has-text("Your vote: Yes, voted by your delegate Ben Delegate. Vote below to replace it")',
    );
    await page.waitForSelector('li[data-kind=opens].done >> text=Voting opened');
    await page.waitForSelector('li[data-kind=closes].next >> text=in 7 days');
    await page.waitForSelector('text=Who voted how is shown only to the DAO’s admins');
    await page.waitForSelector('text=Hedges shelter birds.');
    await shoot('proposal-voted-by-delegate');

    await page.click('button:has-text("Vote no")');
    await page.waitForSelector('[data-testid=ballot]:has-text("Your vote: No, voted directly")');
    await shoot('proposal-override');
  });

  it('decisions F36, F37: after the close the timeline shows counted, passed and executed; an admin sees who voted how, directly or by delegate', async () => {
    const p = (await h.request({ method: 'GET', url: `/api/governance/proposals/${id}` })).json() as {
      voting_closes: string;
    };
    // Ann's page is closed first: seven days on, her session has expired, and her open proposal page would
    // reload her vote on the close's live event and be refused (401) whenever that event came first.
    await page.goto('about:blank');
    h.advance(Date.parse(p.voting_closes) - h.now() + 1000);
    await clockToBridge();
    for (let i = 0; i < 5; i++) await h.opened.canisters.platform!.tick();
    const admin = await member(ADMIN_EMAIL);
    assert.ok(admin.principal);
    // The follower copies the canister's events on its own poll (decision V3): the page is opened once they are there.
    await eventually('the execution copied to the event log', async () => {
      const t = (await h.request({ method: 'GET', url: `/api/governance/proposals/${id}/timeline` })).json() as {
        steps: Array<{ kind: string; event: unknown }>;
      };
      return t.steps.some((s) => s.kind === 'executed' && s.event !== null) || undefined;
    });
    await signIn(ADMIN_EMAIL, `/proposals/${id}`);
    await page.waitForSelector('li[data-kind=tallied] >> text=Votes counted');
    await page.waitForSelector('li[data-kind=approved] >> text=Passed');
    await page.waitForSelector('li[data-kind=executed] >> text=Executed');
    const votes = page.locator('section[aria-labelledby=votes-h] ul.votes li');
    await votes.first().waitFor();
    const rows = (
      await votes.evaluateAll((lis) =>
        lis.map((li) => [
          li.querySelector('.vote-line')!.textContent,
          li.querySelector('.reason')?.textContent ?? null,
        ]),
      )
    ).sort();
    assert.deepEqual(rows, [
      ['Ann Delegator voted No directly', null],
      ['Ben Delegate voted Yes directly', '“Hedges shelter birds.”'],
      ['Cat Follower voted Yes by delegate Ben Delegate', null],
    ]);
    await shoot('proposal-timeline-votes');
  });

  it('on every page above: no console error, no CSP violation, no failed request', () => {
    assert.deepEqual(problems, []);
  });
});
