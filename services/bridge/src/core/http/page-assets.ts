// The stylesheet, script and icon of the bridge's own pages (decision F23), served from memory; their
// controls are 24 × 24 px at least on a phone, as the app's (decision F52). The
// script drives the pages' forms by id (sign-in, forgot password, resend, new password, preferences);
// every form also says what happens without it.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { FAVICON_PATH, PAGE_CSS_PATH, PAGE_JS_PATH } from './page.ts';

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#4338ca"/><path d="M9 8h6.5a8 8 0 0 1 0 16H9z" fill="none" stroke="#fff" stroke-width="3.2" stroke-linejoin="round"/></svg>`;

const CSS = `:root{--brand:#4338ca;--page:#f4f4f7;--ink:#1f2937;--muted:#4b5563;--line:#d1d5db;--card:#fff;--bad:#b91c1c;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--page)}
*{box-sizing:border-box}body{margin:0}a{color:var(--brand)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid var(--brand);outline-offset:2px}
.top{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.5rem;padding:.75rem 1.25rem;background:var(--card);border-bottom:3px solid var(--brand)}
.brand{font-weight:700;font-size:1.15rem;color:var(--ink);text-decoration:none}
.top nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}.top nav a{display:inline-block;min-width:1.5rem;text-align:center;text-decoration:none;color:var(--ink);padding:.35rem .15rem}
main{max-width:60rem;margin:0 auto;padding:1rem 1.25rem 3rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:1rem 1.25rem;margin:1rem auto}.narrow{max-width:30rem}
h1{font-size:1.6rem;margin:.25rem 0 1rem}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}label.check{display:flex;gap:.5rem;align-items:center;font-weight:400}
input,select{width:100%;padding:.5rem .6rem;font:inherit;border:1px solid #9ca3af;border-radius:.3rem;background:#fff}input[type=checkbox],input[type=radio]{width:1.5rem;height:1.5rem;flex:0 0 auto;margin:0}
button,.button{display:inline-block;margin-top:1rem;padding:.6rem 1.2rem;font:inherit;font-weight:600;background:var(--brand);color:#fff;border:0;border-radius:.3rem;cursor:pointer;text-decoration:none}
button.secondary{background:#fff;color:var(--brand);border:1px solid var(--brand)}
.error{color:var(--bad);min-height:1.5rem;margin:.5rem 0 0}.ok{color:#166534}
.muted{color:var(--muted);font-size:.92rem}.feed{padding-left:1.2rem}.feed li{margin-bottom:.75rem}
details{margin-top:1rem}summary{cursor:pointer;color:var(--brand)}
.foot{text-align:center;padding:1rem;color:var(--muted);font-size:.9rem}.foot a{display:inline-block;padding:.35rem .25rem}main p>a:only-child{display:inline-block;padding:.35rem 0}
@media (max-width:480px){main{padding:.5rem .75rem 2rem}.card{margin:.5rem 0}}`;

const JS = `'use strict';
(function () {
  var $ = function (id) { return document.getElementById(id); };
  function post(url, method, body) {
    return fetch(url, { method: method, credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (r) { return r.json().catch(function () { return {}; }).then(function (b) { return { ok: r.ok, status: r.status, body: b }; }); })
      .catch(function () { return { ok: false, status: 0, body: { message: 'The server could not be reached. Check your connection and try again.' } }; });
  }
  function say(id, text, ok) { var el = $(id); if (el) { el.textContent = text; el.className = ok ? 'ok' : 'error'; } }
  var login = $('login');
  if (login) login.addEventListener('submit', function (e) {
    e.preventDefault();
    say('error', ''); $('resend-box').hidden = true;
    post('/auth/login', 'POST', { email: login.email.value, password: login.password.value }).then(function (r) {
      if (r.ok) { window.location.assign(login.dataset.return); return; }
      if (r.body.error === 'EMAIL_NOT_VERIFIED') { $('resend-box').hidden = false; say('error', 'Your email address is not confirmed yet: open the link we sent you, or send it again.'); return; }
      say('error', r.body.message || 'Sign-in failed.');
    });
  });
  var resend = $('resend');
  if (resend) resend.addEventListener('click', function () {
    post('/api/auth/resend-verification', 'POST', { email: login.email.value }).then(function (r) {
      say('error', r.ok ? 'If the address needs confirming, a new link is on its way. It works for 24 hours.' : r.body.message || 'The link could not be sent.', r.ok);
    });
  });
  var forgot = $('forgot');
  if (forgot) forgot.addEventListener('submit', function (e) {
    e.preventDefault();
    post('/api/auth/password-reset/request', 'POST', { email: forgot.email.value }).then(function (r) {
      say('forgot-status', r.ok ? 'If an account uses this address, we sent it a link to choose a new password.' : r.body.message || 'The link could not be sent.', r.ok);
    });
  });
  var again = $('resend-form');
  if (again) again.addEventListener('submit', function (e) {
    e.preventDefault();
    post('/api/auth/resend-verification', 'POST', { email: again.email.value }).then(function (r) {
      say('resend-status', r.ok ? 'If the address needs confirming, a new link is on its way. It works for 24 hours.' : r.body.message || 'The link could not be sent.', r.ok);
    });
  });
  var reset = $('reset');
  if (reset) reset.addEventListener('submit', function (e) {
    e.preventDefault();
    say('error', '');
    post('/api/auth/password-reset/confirm', 'POST', { token: reset.dataset.token, password: reset.password.value }).then(function (r) {
      if (r.ok) { window.location.assign('/login'); return; }
      say('error', r.body.message || 'The password could not be changed.');
    });
  });
  var prefs = $('prefs');
  if (prefs) prefs.addEventListener('submit', function (e) {
    e.preventDefault();
    say('error', ''); say('saved', '', true);
    post('/api/me/notification-preferences', 'PUT', { digest_frequency: prefs.digest_frequency.value, vote_reminders: prefs.vote_reminders.checked }).then(function (r) {
      if (r.ok) { say('saved', 'Saved.', true); return; }
      say('error', r.body.message || 'Your preferences could not be saved.');
    });
  });
  // Spec 2 rule 1: an under-13 answer on a verification link's page keeps the web app's block flag (decision B87).
  if ($('age-block')) { try { localStorage.setItem('age_block_until', String(Date.now() + 864e5)); } catch (e) { /* storage refused: the bridge still refuses */ } }
})();
`;

const ASSETS: Record<string, { type: string; body: string }> = {
  [PAGE_CSS_PATH]: { type: 'text/css; charset=utf-8', body: CSS },
  [PAGE_JS_PATH]: { type: 'text/javascript; charset=utf-8', body: JS },
  [FAVICON_PATH]: { type: 'image/svg+xml', body: FAVICON_SVG },
  // Browsers ask for /favicon.ico on pages without an icon link (JSON answers, the API document).
  '/favicon.ico': { type: 'image/svg+xml', body: FAVICON_SVG },
};

/** GET routes for the pages' assets, revalidated by ETag. */
export function pageAssets(app: FastifyInstance): void {
  for (const [path, a] of Object.entries(ASSETS)) {
    const etag = `"${createHash('sha256').update(a.body).digest('base64url').slice(0, 16)}"`;
    app.get(path, { schema: { hide: true } }, async (req, reply) => {
      reply
        .header('etag', etag)
        .header('cache-control', 'public, max-age=300')
        .header('x-content-type-options', 'nosniff');
      if (req.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.type(a.type).send(a.body);
    });
  }
}
