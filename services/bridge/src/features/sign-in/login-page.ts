// The minimal login page (spec 2 Authentication rule 7): GET /login?returnUrl=<URL-encoded>. The page
// posts to /auth/login and then goes to returnUrl only when it is an http(s) URL on a configured
// front-end origin (decision B9); anything else (another host, //host, javascript:, userinfo tricks,
// backslashes) falls back to the first front-end origin. The check runs on the server; the page only
// receives the already-safe target.
import { firstOrigin, type BridgeConfig } from '../../config.ts';
import { escapeHtml, page, PAGE_CSP } from '../../core/http/page.ts';
import type { BridgeApp } from '../../core/http/typed.ts';

export interface LoginPageOptions {
  config: BridgeConfig;
  /** Where returnUrl may point (decision B9). */
  frontendOrigins: ReadonlySet<string>;
}

export function safeReturnUrl(raw: unknown, allowed: ReadonlySet<string>, fallback: string): string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 2048) return fallback;
  if (/[\\\u0000-\u001f\u007f]/.test(raw)) return fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fallback;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) return fallback;
  return allowed.has(url.origin) ? url.href : fallback;
}

export default async function loginPage(app: BridgeApp, opts: LoginPageOptions): Promise<void> {
  const fallback = firstOrigin(opts.config);
  app.get('/login', async (req, reply) => {
    const target = safeReturnUrl((req.query as { returnUrl?: unknown }).returnUrl, opts.frontendOrigins, fallback);
    // Decision F23: every way on from here: forgot password, join, and a new link for an unconfirmed address.
    const form = `<form id="login" data-return="${escapeHtml(target)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<p id="error" class="error" role="alert"></p><button type="submit">Sign in</button>
<p id="resend-box" hidden><button id="resend" type="button" class="secondary">Send the confirmation link again</button></p></form>
<details><summary>Forgot password?</summary><form id="forgot"><label for="forgot-email">Your email</label><input id="forgot-email" name="email" type="email" autocomplete="email" required>
<button type="submit" class="secondary">Email me a link</button><p id="forgot-status" role="status"></p></form></details>
<p class="muted">New to DOM DAO? <a href="/join">Join</a>.</p>`;
    return reply.type('text/html; charset=utf-8').header('content-security-policy', PAGE_CSP).header('x-frame-options', 'DENY').send(page('Sign in', form));
  });
}
