// GET / (issue 8 item 18, decision B46): until the member web app exists, the bridge's root answers a
// small HTML page instead of a JSON 404: where login and the verified page's "Continue" land on
// `npm start`. It shows whether the browser is signed in and links to sign in, sign out and the
// session as JSON; same CSP and styling as the login page.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Session } from '../auth/sessions.ts';
import { escapeHtml, page, PAGE_CSP } from '../http/page.ts';

export interface HomeOptions {
  readSession(req: FastifyRequest): Promise<Session | undefined>;
}

const SIGN_OUT = `<script>
document.getElementById('signout')?.addEventListener('click', async () => {
  const r = await fetch('/auth/logout', { method: 'POST', credentials: 'same-origin' });
  if (r.ok) { window.location.reload(); return; }
  const body = await r.json().catch(() => ({}));
  document.getElementById('error').textContent = body.message || 'Sign-out failed.';
});
</script>`;

export default async function homePage(app: FastifyInstance, opts: HomeOptions): Promise<void> {
  app.get('/', async (req, reply) => {
    const s = await opts.readSession(req);
    const links = '<p><a href="/auth/session">Session (JSON)</a> · <a href="/api/auth/session">Session with membership (JSON)</a></p>';
    const body = s
      ? `<p>Signed in as <strong>${escapeHtml(s.email)}</strong> (${escapeHtml(s.roles.join(', '))}).</p>
<button id="signout" type="button">Sign out</button><p id="error" role="alert"></p>${links}
<p><a href="/login">Sign in as someone else</a></p>`
      : `<p>You are not signed in.</p><p><a href="/login">Sign in</a></p>${links}`;
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', PAGE_CSP)
      .header('x-frame-options', 'DENY')
      // The page depends on the cookie: never cached, by the browser or anything in between.
      .header('cache-control', 'no-store')
      .send(page('Home', body, s ? SIGN_OUT : ''));
  });
}
