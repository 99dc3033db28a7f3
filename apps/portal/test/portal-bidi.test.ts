// test-lane: browser (decision R17: one Chromium file at a time)
// Decisions F41, F42 in Chromium: member-written text with bidi controls (a proposal titled
// "Invoice \u202Egnp.exe", its body, a vote's reason, a campaign, the activity feed) shows as typed: the
// characters are laid out left to right in the order they were typed, no control reaches the page's
// text or attributes, and member text sits in its own isolate (<bdi>, dir=auto).
/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base, h, HOUR_MS, member, page, problems, shoot, signIn, usePortal } from './portal-kit.ts';

usePortal();

const RLO = '\u202E';
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** The left edge of each character of `text` where it first appears under `selector`, in typed order. */
function edges(selector: string, text: string): Promise<number[] | null> {
  return page.evaluate(
    ([sel, t]) => {
      const root = document.querySelector(sel!);
      if (!root) return null;
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const at = n.textContent!.indexOf(t!);
        if (at < 0) continue;
        return Array.from(t!, (_, k) => {
          const r = document.createRange();
          r.setStart(n, at + k);
          r.setEnd(n, at + k + 1);
          return r.getBoundingClientRect().left;
        });
      }
      return null;
    },
    [selector, text],
  );
}

async function readsAsTyped(selector: string, text: string): Promise<void> {
  const x = await edges(selector, text);
  assert.ok(x, `${selector}: "${text}" not found`);
  for (let k = 1; k < x.length; k++)
    assert.ok(x[k]! > x[k - 1]!, `${selector}: "${text}" is not laid out as typed (${x.map(Math.round).join(', ')})`);
}

describe('decisions F41, F42: bidi controls in member-written text, in Chromium', () => {
  it('decision F41: a proposal titled "Invoice" + U+202E + "gnp.exe" shows "Invoice gnp.exe" in typed order on its page, in the list and the feed; its body, a reason and a campaign too; no control in the DOM', async () => {
    const ann = await member('ann@bidi.example', true);
    const title = `Invoice ${RLO}gnp.exe`;
    let r = await h.request({
      method: 'POST',
      url: '/api/governance/propose',
      jar: ann.jar,
      origin: base,
      payload: {
        title,
        body: `Open the attachment ${RLO}gnp.exe\u202C today.\n\nSigned \u2067Ann\u2069.`,
        category: 'General',
      },
    });
    assert.equal(r.statusCode, 201, r.body);
    const id = r.json().proposal_id as string;
    h.advance(HOUR_MS + 1000);
    await h.opened.canisters.platform!.tick();
    r = await h.request({
      method: 'POST',
      url: '/api/governance/vote',
      jar: ann.jar,
      origin: base,
      payload: { proposal_id: id, vote: 'Yes', reason: `I opened ${RLO}gnp.exe` },
    });
    assert.equal(r.statusCode, 200, r.body);
    r = await h.request({
      method: 'POST',
      url: '/api/campaigns',
      jar: ann.jar,
      origin: base,
      payload: {
        title: `Fund ${RLO}gnp.exe`,
        description: `Pay for ${RLO}gnp.exe`,
        goal: { dom_e8s: '100000000' },
        deadline: new Date(h.now() + 48 * HOUR_MS).toISOString(),
      },
    });
    assert.equal(r.statusCode, 201, r.body);
    const campaign = r.json().id as string;

    await signIn('ann@bidi.example', `/proposals/${id}`);
    await page.waitForSelector('h1:has-text("Invoice")');
    await page.waitForSelector('section[aria-label="Reasons"]');
    await readsAsTyped('h1', 'gnp.exe');
    assert.equal(await page.textContent('h1'), 'Invoice gnp.exe');
    assert.equal(await page.getAttribute('h1', 'dir'), 'auto', 'decision F42: the title is its own isolate');
    await readsAsTyped('section[aria-label="Proposal text"]', 'gnp.exe');
    assert.match(
      (await page.textContent('section[aria-label="Proposal text"]')) ?? '',
      /Open the attachment gnp\.exe today\.\s*Signed Ann\./,
    );
    await readsAsTyped('section[aria-label="Reasons"]', 'gnp.exe');
    assert.equal(await page.textContent('section[aria-label="Reasons"] li bdi'), 'I opened gnp.exe');
    await page.waitForSelector('[data-testid="ballot"]:has-text("I opened gnp.exe")');
    await shoot('bidi-proposal');
    const inPage = await page.evaluate(() => [
      document.title,
      document.body.textContent ?? '',
      ...Array.from(document.querySelectorAll('*')).flatMap((e) => Array.from(e.attributes, (a) => a.value)),
    ]);
    assert.ok(!inPage.some((t) => BIDI.test(t)), 'no bidi control in the page text or any attribute');

    await page.goto(`${base}/govern`);
    await page.waitForSelector('li:has-text("Invoice gnp.exe")');
    await readsAsTyped('ul.list', 'gnp.exe');
    await page.goto(`${base}/campaigns/${campaign}`);
    await page.waitForSelector('h1:has-text("Fund gnp.exe")');
    await readsAsTyped('h1', 'gnp.exe');
    await readsAsTyped('p[dir="auto"]', 'gnp.exe');
    await shoot('bidi-campaign');
    await page.goto(`${base}/me`);
    await page.waitForSelector('text=New proposal: Invoice gnp.exe');
    await readsAsTyped('ul.list', 'gnp.exe');
    assert.ok(!BIDI.test((await page.textContent('main')) ?? ''));
    assert.deepEqual(problems, []);
  });
});
