// test-lane: browser (decision R17: one Chromium file at a time)
// Issue 48 item 5 in Chromium at 1280 and 375 px: the Activity card on /me says when each item
// happened relative to now and in the browser's own time zone (a browser in Tokyo reads GMT+9), an item
// about a vote says how soon voting closes from the real deadline, the delegate is named, never a
// principal, and "Show older activity" reads the next page until "That is all your activity."
// (decisions F49, F55, N29, N30). portal-kit.ts checks axe-core, console errors, CSP violations and
// failed requests on every page; the times are worded by @domdao/proposal-text, as the page words them.
/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addActivity } from '@domdao/bridge-service/testing';
import { absoluteTime, relativeTime } from '@domdao/proposal-text';
import { shoot } from '@domdao/test-helpers/browser';
import { base, h, HOUR_MS, member, problems, secondBrowser, signIn, usePortal } from './portal-kit.ts';

usePortal();

describe('issue 48 item 5: the activity on /me reads finished, in Chromium (decisions F49, F55, N29, N30)', () => {
  it('decisions F49, F55, N29, N30: relative and Tokyo-local times, "Voting closes in …" from the deadline, the delegate by name, "Show older activity" to the end; 1280 and 375 px, axe clean', async () => {
    const ann = await member('ann-activity@example.org', true);
    const ben = await member('ben-activity@example.org', true);
    const named = await h.request({
      method: 'PUT',
      url: '/api/me/display-name',
      jar: ben.jar,
      origin: base,
      payload: { display_name: 'Ben Delegate' },
    });
    assert.equal(named.statusCode, 200, named.body);
    const delegated = await h.request({
      method: 'PUT',
      url: '/api/governance/delegation',
      jar: ann.jar,
      origin: base,
      payload: { delegate: ben.principal },
    });
    assert.equal(delegated.statusCode, 200, delegated.body);
    const annId = (
      (await h.request({ method: 'GET', url: '/auth/session', jar: ann.jar })).json() as { user_id: string }
    ).user_id;
    // 25 older items of ann's own, so the proposal's items are on the first page and these run past it.
    for (let i = 1; i <= 25; i++)
      await addActivity(
        h.opened.db,
        `test:older:${i}`,
        { category: 'Test', title: `Older item ${i}`, audience: { kind: 'user', user_id: annId } },
        new Date(h.now()),
      );
    const made = await h.opened.canisters.clients.governance.create_proposal({
      title: 'Repaint the hall',
      body: 'Fresh paint.',
      category: 'General',
    });
    if (!('Ok' in made)) assert.fail(`create_proposal: ${Object.keys(made.Err).join()}`);
    h.advance(HOUR_MS + 1000);
    await h.opened.canisters.platform!.tick();
    const p = (await h.opened.canisters.clients.governance.get_proposal(made.Ok))!;
    const closes = Number(p.voting_closes / 1_000_000n);
    const vote = await h.request({
      method: 'POST',
      url: '/api/governance/vote',
      jar: ben.jar,
      origin: base,
      payload: { proposal_id: String(made.Ok), vote: 'Yes' },
    });
    assert.equal(vote.statusCode, 200, vote.body);
    await h.app.events.settle();
    // Three hours later, in Tokyo.
    h.advance(3 * HOUR_MS);
    const tokyo = await secondBrowser({ timezoneId: 'Asia/Tokyo' });
    await tokyo.clock.setFixedTime(h.now());
    await signIn('ann-activity@example.org', '/me', tokyo);
    const delegateItem = tokyo.locator('[data-testid=activity] li', {
      hasText: 'Your delegate Ben Delegate voted Yes: Repaint the hall',
    });
    await delegateItem.waitFor();
    const text = await delegateItem.innerText();
    assert.match(text, / · 3 hours ago \(.+GMT\+9\)/, text);
    assert.ok(
      text.includes(`Voting closes ${relativeTime(closes, h.now())} (${absoluteTime(closes, 'Asia/Tokyo')}).`),
      text,
    );
    const openItem = await tokyo
      .locator('[data-testid=activity] li', { hasText: 'Voting is open: Repaint the hall' })
      .innerText();
    assert.match(openItem, /Active members can vote now\. Voting closes in \d+ days \(.+GMT\+9\)\./);
    const all = await tokyo.evaluate(() => document.body.innerText);
    assert.ok(!all.includes(ben.principal), 'no principal on the page');
    assert.doesNotMatch(all, /\d{4}-\d\d-\d\dT\d\d:\d\d/, 'no raw timestamp');
    assert.equal(await tokyo.locator('[data-testid=activity] > li').count(), 20, 'a page of 20');
    await shoot(tokyo, 'me-activity');
    await tokyo.click('button:has-text("Show older activity")');
    await tokyo.locator('[data-testid=activity-end]').waitFor();
    assert.equal(await tokyo.locator('button:has-text("Show older activity")').count(), 0, 'nothing older: no button');
    const titles = await tokyo.locator('[data-testid=activity] > li strong').allInnerTexts();
    assert.ok(titles.length > 20 && titles.includes('Older item 1'), titles.join(' | '));
    assert.equal(new Set(titles).size, titles.length, 'no item twice');
    await shoot(tokyo, 'me-activity-all');
    assert.deepEqual(problems, []);
    await tokyo.context().close();
  });
});
