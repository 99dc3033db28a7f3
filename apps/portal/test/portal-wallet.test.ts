// test-lane: browser (decision R17: one Chromium file at a time)
// The wallet in Chromium at 1280 and 375 px (decisions F29, F30, B75, B76): a member gets test DOM,
// copies their ICRC-1 account with the keyboard, finds another member by name, sends DOM through the
// confirmation step, and both see the transfer in their history by name. portal-kit.ts checks axe-core,
// console errors, CSP and failed requests on every page.
/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base, h, member, page, problems, shoot, signIn, usePortal } from './portal-kit.ts';

usePortal();

describe('issue 35 item 4: the wallet in Chromium (decisions F29, F30)', () => {
  let sender: Awaited<ReturnType<typeof member>>;
  let receiver: Awaited<ReturnType<typeof member>>;

  it('decision F29: the wallet is in the navigation and linked from /me; test DOM arrives; the account is copied with the keyboard', async () => {
    sender = await member('grace-wallet@example.org');
    receiver = await member('ada-wallet@example.org');
    for (const [m, name] of [
      [sender, 'Grace Sender'],
      [receiver, 'Ada Receiver'],
    ] as const) {
      const r = await h.request({
        method: 'PUT',
        url: '/api/me/display-name',
        jar: m.jar,
        origin: base,
        payload: { display_name: name },
      });
      assert.equal(r.statusCode, 200, r.body);
    }
    await signIn('grace-wallet@example.org', '/me');
    await page.click('a:has-text("Open your wallet")');
    await page.waitForURL(`${base}/wallet`);
    assert.equal(
      await page.getAttribute('nav a[href="/wallet"]', 'aria-current'),
      'page',
      'the navigation marks the wallet',
    );
    await page.waitForSelector('text=Nothing yet: DOM you receive or send shows here.');
    await shoot('wallet-empty');
    await page.click('button:has-text("Get test DOM")');
    await page.waitForSelector('text=1,000 test DOM added.');
    await page.waitForSelector('.big:has-text("1,000 DOM")');
    await page.waitForSelector('li:has-text("DOM minted to you") >> text=+1,000 DOM');
    // The account is the principal itself (ICRC-1 textual encoding without a subaccount).
    assert.equal((await page.textContent('#account'))?.trim(), sender.principal);
    // By keyboard: the copy button is in the tab order, just before "Get test DOM", and Enter presses it.
    await page.focus('button:has-text("Get test DOM")');
    await page.keyboard.press('Shift+Tab');
    assert.equal(
      await page.evaluate(() => document.activeElement?.textContent),
      'Copy',
      'the keyboard reaches the copy button',
    );
    await page.keyboard.press('Enter');
    await page.waitForSelector('button:has-text("Copied")');
    await page.waitForSelector('#copy-status:has-text("Copied: your account is on the clipboard.")');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), sender.principal);
    await shoot('wallet-funded');
  });

  it('decision F30: a member found by name, the amount checked against the balance and the fee, a confirmation, the result', async () => {
    await page.fill('#send-to', 'Ada Rec');
    await page.click('.picks button:has-text("Ada Receiver")');
    await page.waitForSelector('#send-h ~ form >> text=To Ada Receiver');
    await page.waitForSelector('#send-hint:has-text("Fee 0.0001 DOM · you have 1,000 DOM")');
    // Refused in the browser: nothing is asked of the bridge.
    await page.click('button:has-text("Review")');
    await page.waitForSelector('#send-error:has-text("Enter an amount above 0 DOM")');
    await page.fill('#send-amount', '1000');
    await page.click('button:has-text("Review")');
    await page.waitForSelector('#send-error:has-text("more than your balance: at most 999.9999 DOM")');
    await page.fill('#send-amount', '0.000000001');
    await page.click('button:has-text("Review")');
    await page.waitForSelector('#send-error:has-text("at most 8 decimals")');
    await shoot('wallet-send-refused');
    await page.fill('#send-amount', '12.5');
    await page.click('button:has-text("Review")');
    await page.waitForSelector('#confirm-h:has-text("Check and confirm")');
    await page.waitForSelector('dl.summary >> text=12.5001 DOM');
    await page.waitForSelector('dl.summary >> text=987.4999 DOM');
    await shoot('wallet-confirm');
    await page.click('button:has-text("Confirm and send")');
    await page.waitForSelector('p.result:has-text("Sent 12.5 DOM to Ada Receiver (ledger block #")');
    await page.waitForSelector('.big:has-text("987.4999 DOM")');
    await page.waitForSelector('li:has-text("Sent to Ada Receiver") >> text=−12.5001 DOM');
    const line = (await page.textContent('li:has-text("Sent to Ada Receiver")')) ?? '';
    assert.match(line, /amount 12\.5 DOM · fee 0\.0001 DOM · block #\d+/);
    assert.equal(
      await h.opened.canisters.clients.ledger.icrc1_balance_of({ owner: receiver.principal }),
      1_250_000_000n,
    );
    await shoot('wallet-sent');
  });

  it('decision F29: the receiver sees the transfer in their history by the sender’s name', async () => {
    await page.click('#signout');
    await page.waitForSelector('a:has-text("Sign in")');
    await signIn('ada-wallet@example.org', '/wallet');
    await page.waitForSelector('.big:has-text("12.5 DOM")');
    await page.waitForSelector('li:has-text("Received from Grace Sender") >> text=+12.5 DOM');
    assert.doesNotMatch((await page.textContent('main')) ?? '', /@example\.org/, 'never an email');
    await shoot('wallet-received');
  });

  it('on every page above: no console error, no CSP violation, no failed request', () => {
    assert.deepEqual(problems, []);
  });
});
