// test-lane: browser (decision R17: one Chromium file at a time)
// Decisions B86 and B87 in Chromium at 1280 and 375 px: the mailbox's owner opens a link someone else
// registered, says they did not register, gives the date of birth first (under 13: the block screen,
// and the web app's join page keeps blocking), then name, terms and a new password, and signs in to
// an account that holds only their answers. portal-kit.ts checks axe-core, console errors, CSP and
// failed requests on every page.
/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createOpener, eventually, loadKeys } from '@domdao/bridge-service/testing';
import { base, expected, h, page, PASSWORD, problems, shoot, usePortal } from './portal-kit.ts';

usePortal();

const EMAIL = 'owner@example.org';
const ATTACKER = { name: 'Eve Attacker', dob: '1990-01-01', password: 'attacker chose this one 42' };

describe('starting afresh on the link page, in Chromium (decisions B86, B87)', () => {
  it("decisions B86, B87: date of birth first, the under-13 block screen (kept by the join page), then the owner's name, terms and password make the account", async () => {
    const fields = await h.encrypt({ email: EMAIL, name: ATTACKER.name, dob: ATTACKER.dob });
    const r = await h.request({
      method: 'POST',
      url: '/api/auth/register',
      origin: base,
      payload: { ...fields, password: ATTACKER.password, tos_accepted: true },
    });
    assert.equal(r.statusCode, 201, r.body);
    await eventually('the verification email', () => h.emails().some((m) => m.to.includes(EMAIL)) || undefined);
    const link = h.verificationPath(EMAIL);

    await page.goto(`${base}${link}`);
    await page.click('text=I did not register');
    await page.waitForSelector('#dob');
    assert.equal(await page.locator('#new_password').count(), 0, 'the date of birth comes alone');
    await shoot('verify-afresh-dob');

    // Under 13: the block screen; the web app's join page then blocks too (spec 2 rule 1's flag).
    const year = new Date().getUTCFullYear();
    await page.fill('#dob', `${year - 10}-06-01`);
    expected.add('POST /verify-email 403');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    await page.waitForSelector('text=You must be at least 13 years old');
    expected.delete('POST /verify-email 403');
    await shoot('verify-afresh-blocked');
    assert.ok(Number(await page.evaluate(() => localStorage.getItem('age_block_until'))) > Date.now());
    await page.goto(`${base}/join`);
    await page.waitForSelector('text=We can’t create an account for you');
    await page.evaluate(() => localStorage.removeItem('age_block_until'));

    // 13 and over: the rest of the answers; a missing tick is said on the page, the name kept.
    await page.goto(`${base}${link}&choose=1`);
    await page.fill('#dob', '1985-04-12');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    await page.waitForSelector('text=12 April 1985');
    await page.fill('#name', 'Olive Owner');
    await page.fill('#new_password', PASSWORD);
    await shoot('verify-afresh-answers');
    // The browser itself holds the form until the terms are ticked (required).
    assert.equal(await page.locator('#tos_accepted:invalid').count(), 1);
    await page.check('#tos_accepted');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    await page.waitForSelector('text=Your email address is verified');
    await shoot('verify-afresh-done');

    const login = (password: string) =>
      h.request({ method: 'POST', url: '/auth/login', origin: base, payload: { email: EMAIL, password } });
    assert.equal((await login(ATTACKER.password)).statusCode, 401);
    const signedIn = await login(PASSWORD);
    assert.equal(signedIn.statusCode, 200, signedIn.body);
    const row = await h.opened.db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
    const opener = await createOpener((await loadKeys(h.config)).hpkePrivateKey);
    assert.deepEqual(
      [
        await opener.open('name', row.name_encrypted),
        await opener.open('dob', row.dob_encrypted),
        row.is_minor,
        row.id !== r.json().user_id,
      ],
      ['Olive Owner', '1985-04-12', false, true],
    );
    assert.deepEqual(problems, []);
  });
});
