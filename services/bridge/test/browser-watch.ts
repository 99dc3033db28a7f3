// What a browser test holds every page to (issue 35): every console error, CSP violation, page error,
// failed request and refused answer of `page` goes to `problems`, except the answers a journey asks
// for on purpose (`expected`, as `METHOD path status`).
import type { Page } from 'playwright-core';

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
