// The HTML pages the bridge serves itself (sign-in, verification, password reset, activity, email
// preferences, unsubscribe) in the member web app's look and words (decision F23): the app's header and
// navigation, its colours and cards, from one stylesheet and one script served by the bridge
// (page-assets.ts), so the Content-Security-Policy allows no inline script or style at all.
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Content-Security-Policy of the bridge's own pages: its own stylesheet and script only, fetches to itself (decision F23). */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** A page without script (decision B51): the stylesheet only. */
export const PAGE_CSP_NO_SCRIPT =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const PAGE_CSS_PATH = '/pages/page.css';
export const PAGE_JS_PATH = '/pages/page.js';
export const FAVICON_PATH = '/favicon.svg';

const NAV: Array<[string, string]> = [
  ['/govern', 'Govern'],
  ['/price', 'Price'],
  ['/campaigns', 'Campaigns'],
  ['/me', 'Me'],
];

/**
 * A page: the app's header and navigation, the title, the body (already escaped HTML) in a card.
 * `script: false` for a page that must carry none (a verification link's form, decision B51).
 */
export function page(title: string, body: string, o: { script?: boolean } = {}): string {
  const nav = NAV.map(([href, label]) => `<li><a href="${href}">${label}</a></li>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)} · DOM DAO</title>
<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml"><link rel="stylesheet" href="${PAGE_CSS_PATH}">${o.script === false ? '' : `<script src="${PAGE_JS_PATH}" defer></script>`}</head>
<body><header class="top"><a class="brand" href="/">DOM DAO</a><nav aria-label="Main"><ul>${nav}</ul></nav></header><main id="main"><div class="card narrow"><h1>${escapeHtml(title)}</h1>${body}</div></main>
<footer class="foot"><a href="/activity">Activity</a> · <a href="/preferences">Email preferences</a></footer></body></html>`;
}
