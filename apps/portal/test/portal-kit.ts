// The browser, the bridge and the checks shared by the issue 35 journey files (portal-journeys*.test.ts):
// Chromium at 1280 and 375 px, axe-core with no serious or critical violation, and every console error,
// CSP violation and failed request recorded in `problems` (a journey names the refusals it asks for in
// `expected`). Decisions F22–F28.
/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { freePort } from '@domdao/test-helpers';
import { bridge, type Bridge, type Jar } from '@domdao/bridge-service/testing';
import {
  accessible as accessibleOn,
  launchChromium,
  requireChromium,
  shoot as shootOn,
  watchPage,
} from '@domdao/test-helpers/browser';

export const PASSWORD = 'a long and private passphrase';
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

// Live bindings: set in before(), read by the journey files.
export let h: Bridge;
export let page: Page;
export let base = '';
let browser: Browser;
export const problems: string[] = [];
/** Answers a journey asks for on purpose (a refusal it shows the member), as `METHOD path status`. */
const EXPECTED_ALWAYS = [
  // Before the oracle's first aggregate its price answers 503 PRICE_UNAVAILABLE (spec 1); this test has no price
  // source.
  'GET /api/price/dom-usd 503',
];
export const expected = new Set<string>(EXPECTED_ALWAYS);

export const accessible = (what: string): Promise<void> => accessibleOn(page, what);

export const shoot = (name: string): Promise<void> => shootOn(page, name);

export async function member(email: string, active = false): Promise<{ jar: Jar; principal: string }> {
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
  const { principal } = (await h.request({ method: 'GET', url: '/api/me/profile', jar })).json() as {
    principal: string;
  };
  if (active) {
    const c = h.opened.canisters.clients;
    assert.ok('Ok' in (await c.user.record_kyc(principal, true)));
    assert.ok(
      'Ok' in
        (await c.user.upgrade_membership_to_active({
          principal,
          kyc_proof: new Uint8Array([1]),
          payment_proof: new Uint8Array([2]),
        })),
    );
  }
  return { jar, principal };
}

export async function signIn(email: string, returnPath = '/', on: Page = page): Promise<void> {
  await on.goto(`${base}/login?returnUrl=${encodeURIComponent(`${base}${returnPath}`)}`);
  await on.fill('#email', email);
  await on.fill('#password', PASSWORD);
  await Promise.all([on.waitForURL(`${base}${returnPath}`), on.click('#login button[type=submit]')]);
}

/** A second person's browser (its own context: its own cookies), watched like the first; `timezoneId` is its time zone. */
export async function secondBrowser({ timezoneId }: { timezoneId?: string } = {}): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    ...(timezoneId !== undefined && { timezoneId }),
  });
  const p = await context.newPage();
  watchPage(p, problems, expected);
  return p;
}

/**
 * The browser and the bridge for the calling file: called at its top level, so its hooks are the file's
 * own (a module's top-level hooks would belong to the first file that imported it when files share a
 * process, decision R20).
 */
export function usePortal(): void {
  before(open);
  after(async () => {
    await browser?.close();
    await h?.close();
  });
}

async function open(): Promise<void> {
  // What an earlier file of the process recorded or allowed is not this file's.
  problems.length = 0;
  expected.clear();
  for (const e of EXPECTED_ALWAYS) expected.add(e);
  requireChromium();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  h = await bridge(undefined, {
    PUBLIC_URL: base,
    FRONTEND_ORIGINS: base,
    COOKIE_DOMAIN: '',
    DEV_FAUCET_DOM: '1000',
    DEV_CHECKOUT: 'true',
  });
  // The browser counts down with its own clock: the bridge's and the canisters' clock starts at it.
  h.advance(Date.now() - h.now());
  await h.app.listen({ port, host: '127.0.0.1' });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  page = await context.newPage();
  watchPage(page, problems, expected);
}
