// What a browser test holds every page to (issue 35), shared by the web app's tests (apps/portal/test)
// and the bridge's own pages (the API reference, the audit console): Chromium launched with the house
// flags; every console error, CSP violation, page error, failed request and refused answer of a page is
// a problem (except the answers a journey asks for on purpose); no serious or critical axe-core
// violation; screenshots at 1280 and 375 px; at 375 px no control under 24 × 24 px (WCAG 2.2 SC 2.5.8,
// decision F52). Imported as `@domdao/test-helpers/browser`, apart from the index, so a test without a
// browser does not load Playwright.
/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium unless CHROMIUM_PATH names another (scripts/README.md). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The flags every test's Chromium runs with: no sandbox (it needs kernel features a container may lack), no
 * GPU,
 * and none of the browser's own traffic (updates, sync, first-run pages) beside the page's, which
 * would cost CPU on the shared machine and show up as requests nobody made.
 */
export const CHROMIUM_FLAGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Chromium with CHROMIUM_FLAGS and `extra` (a host resolver rule, a certificate exception). */
export function launchChromium(extra: readonly string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_FLAGS, ...extra] });
}

/** Where the pages' screenshots go (not committed; looked at by whoever changes a page). */
export const SHOTS = new URL('../../../screenshots/portal/', import.meta.url).pathname;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** First in a browser test's before(): fails with how to install Chromium when it is missing, and makes SHOTS. */
export function requireChromium(): void {
  assert.ok(
    existsSync(CHROMIUM),
    `Chromium is required at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`,
  );
  mkdirSync(SHOTS, { recursive: true });
}

/** Puts into `problems` what goes wrong on `page`; `expected` answers (`METHOD path status`) are not problems. */
export function watchPage(page: Page, problems: string[], expected: ReadonlySet<string>): void {
  page.on('console', (m) => {
    // A refused request is judged below by its answer; Chromium also logs each one as "Failed to load resource".
    if (/^Failed to load resource: the server responded with a status of/.test(m.text())) return;
    if (m.type() === 'error' || /Content Security Policy/i.test(m.text()))
      problems.push(`${page.url()}: console: ${m.text().slice(0, 160)}`);
  });
  page.on('pageerror', (e) => problems.push(`${page.url()}: ${e.message}`));
  // ERR_ABORTED is a request the browser dropped because the page navigated on (an icon mid-load, an
  // event stream), not a failure.
  page.on(
    'requestfailed',
    (r) =>
      r.failure()?.errorText !== 'net::ERR_ABORTED' && problems.push(`${r.url()}: failed ${r.failure()?.errorText}`),
  );
  page.on('response', (r) => {
    const what = `${r.request().method()} ${new URL(r.url()).pathname} ${r.status()}`;
    if (r.status() >= 400 && !expected.has(what)) problems.push(what);
  });
}

/** No serious or critical axe-core violation on the page as it is now. */
export async function accessible(page: Page, what: string): Promise<void> {
  // axe-core's source is run in the page as text: the app never loads it, so the page checked is the page members get.
  const found = await page.evaluate<string[]>(`${AXE}
    axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
  assert.deepEqual(found, [], `${what}: axe-core violations`);
}

/** WCAG 2.2 SC 2.5.8 Target Size (Minimum): 24 × 24 CSS px (decision F52). */
export const TARGET_MIN_PX = 24;

/**
 * Every control on the page as laid out now that is smaller than TARGET_MIN_PX in width or height
 * (decision F52, WCAG 2.2 SC 2.5.8): links, buttons, form fields, summaries and whatever else takes
 * the keyboard's focus, where visible. The one exception taken is the SC's "inline" one: a link laid
 * out inline in a line of text (its block holds text outside it), whose height the line sets. The
 * others (spacing, an equivalent control, the browser's own control, essential) are not claimed.
 */
export async function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate((min) => {
    const found: string[] = [];
    const controls = document.querySelectorAll<HTMLElement>(
      'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [tabindex]:not([tabindex="-1"])',
    );
    for (const el of Array.from(controls)) {
      const style = getComputedStyle(el);
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || style.visibility === 'hidden' || el.closest('[hidden], .sr-only'))
        continue;
      if (r.width >= min - 0.01 && r.height >= min - 0.01) continue;
      if (el.tagName === 'A' && style.display === 'inline') {
        let block = el.parentElement;
        while (block && getComputedStyle(block).display.startsWith('inline')) block = block.parentElement;
        const own = (el.textContent ?? '').trim();
        const all = (block?.textContent ?? '').replace(/\s+/g, ' ').trim();
        if (all.length > own.length) continue;
      }
      const label = (el.getAttribute('aria-label') || el.textContent || (el as HTMLInputElement).placeholder || el.id)
        .trim()
        .slice(0, 40);
      found.push(
        `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(' ').join('.')}` : ''} "${label}" ${r.width.toFixed(1)}×${r.height.toFixed(1)}`,
      );
    }
    return found;
  }, TARGET_MIN_PX);
}

/**
 * The accessibility check, then `screenshots/portal/<name>-<width>.png` at 1280 and 375 px;
 * `sideways` (default true) also fails a page that scrolls sideways at either width; at 375 px every
 * control is at least 24 × 24 px (decision F52).
 */
export async function shoot(page: Page, name: string, { sideways = true }: { sideways?: boolean } = {}): Promise<void> {
  await accessible(page, name);
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 800 });
    await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
    if (sideways) {
      const wide = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
      assert.equal(wide, false, `${name} at ${width} px scrolls sideways`);
    }
    if (width === 375)
      assert.deepEqual(
        await smallTargets(page),
        [],
        `${name} at 375 px: controls under ${TARGET_MIN_PX} × ${TARGET_MIN_PX} px (WCAG 2.5.8)`,
      );
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}
