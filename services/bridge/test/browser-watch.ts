// What a browser test holds every page to (issue 35): every console error, CSP violation, page error,
// failed request and refused answer of a page is a problem (except the answers a journey asks for
// on purpose); no serious or critical axe-core violation; screenshots at 1280 and 375 px.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

/** Where the pages' screenshots go (not committed; looked at by whoever changes a page). */
export const SHOTS = new URL('../../../screenshots/portal/', import.meta.url).pathname;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Puts into `problems` what goes wrong on `page`; `expected` answers (`METHOD path status`) are not problems. */
export function watchPage(page: Page, problems: string[], expected: ReadonlySet<string>): void {
  page.on('console', (m) => {
    // A refused request is judged below by its answer; Chromium also logs each one as "Failed to load resource".
    if (/^Failed to load resource: the server responded with a status of/.test(m.text())) return;
    if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(`${page.url()}: console: ${m.text().slice(0, 160)}`);
  });
  page.on('pageerror', (e) => problems.push(`${page.url()}: ${e.message}`));
  // ERR_ABORTED is a request the browser dropped because the page navigated on (an icon mid-load, an
  // event stream), not a failure.
  page.on('requestfailed', (r) => r.failure()?.errorText !== 'net::ERR_ABORTED' && problems.push(`${r.url()}: failed ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    const what = `${r.request().method()} ${new URL(r.url()).pathname} ${r.status()}`;
    if (r.status() >= 400 && !expected.has(what)) problems.push(what);
  });
}

/** No serious or critical axe-core violation on the page as it is now. */
export async function accessible(page: Page, what: string): Promise<void> {
  const found = (await page.evaluate(`${AXE}
    axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`)) as string[];
  assert.deepEqual(found, [], `${what}: axe-core violations`);
}

/**
 * The accessibility check, then `screenshots/portal/<name>-<width>.png` at 1280 and 375 px;
 * `sideways` (default true) also fails a page that scrolls sideways at either width.
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
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}
