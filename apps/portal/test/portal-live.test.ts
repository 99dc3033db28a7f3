// test-lane: browser (decision R17: one Chromium file at a time)
// Decision V32 in the web app (issue 35 item 2): two members in two browsers. Ada watches a proposal's
// page and the governance list; Ben votes in his own browser; Ada's page and list show the new tally
// without a reload, and no browser polls (one event stream per page, no repeated proposal reads
// while nothing happens).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { base, h, HOUR_MS, member, page, problems, secondBrowser, shoot, signIn, usePortal } from './portal-kit.ts';

usePortal();

describe('decision V32: live tallies in two browsers', () => {
  it('Ben votes in his browser; Ada sees the tally and the turnout move on the proposal page and in the list, without reloading', async () => {
    await member('ada@live.example', true);
    await member('ben@live.example', true);
    const created = await h.opened.canisters.clients.governance.create_proposal({
      title: 'Light the square',
      body: 'Lamps on the square.',
      category: 'General',
    });
    assert.ok('Ok' in created);
    const id = String(created.Ok);
    const second = await h.opened.canisters.clients.governance.create_proposal({
      title: 'Paint the benches',
      body: 'Green.',
      category: 'General',
    });
    assert.ok('Ok' in second);
    h.advance(HOUR_MS + 1000);
    await h.opened.canisters.platform!.tick();

    const streams: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/governance/live') streams.push(new URL(r.url()).search);
    });
    await signIn('ada@live.example', `/proposals/${id}`);
    await page.waitForSelector('[aria-label="Yes: 0 of 0 votes"]');
    const ben: Page = await secondBrowser();
    await signIn('ben@live.example', `/proposals/${id}`, ben);

    // Once the page is shown, a page that polled would read the proposal again; this one waits for events.
    let reads = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === `/api/governance/proposals/${id}`) reads++;
    });
    assert.deepEqual(streams, [`?proposal_id=${id}`], 'one event stream, for this proposal');

    await ben.click('button:has-text("Yes")');
    await ben.waitForSelector('text=Your vote “Yes” is recorded.');
    // Ada's page, untouched: the event arrives and the page reads the proposal once.
    await page.waitForSelector('[aria-label="Yes: 1 of 1 votes"]');
    assert.ok(reads >= 1 && reads <= 2, `the proposal was read ${reads} times after the vote`);
    await shoot('live-proposal-after-vote');

    // The list follows too: Ben votes on a second proposal while Ada watches the list.
    await page.goto(`${base}/govern`);
    await page.waitForSelector('li:has-text("Paint the benches") >> text=Voting open');
    await page.waitForSelector('li:has-text("Paint the benches") >> text=Yes 0 · No 0 · Abstain 0');
    await ben.goto(`${base}/proposals/${String(second.Ok)}`);
    await ben.click('button:has-text("No")');
    await ben.waitForSelector('text=Your vote “No” is recorded.');
    await page.waitForSelector('li:has-text("Paint the benches") >> text=Yes 0 · No 1 · Abstain 0');
    await shoot('live-list-after-vote');

    await ben.context().close();
    assert.deepEqual(problems, []);
  });
});
