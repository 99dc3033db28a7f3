// The minimal login page (spec 2 Authentication rule 7): GET /login?returnUrl=<URL-encoded>. The page
// posts to /auth/login and then goes to returnUrl only when it is an http(s) URL on a configured
// front-end origin (decision B9); anything else (another host, //host, javascript:, userinfo tricks,
// backslashes) falls back to the first front-end origin. The check runs on the server; the page only
// receives the already-safe target.
import { Type } from '@sinclair/typebox';
import { firstOrigin, type BridgeConfig } from '../../config.ts';
import { escapeHtml, page, PAGE_CSP } from '../../core/http/page.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import type { FastifyReply } from 'fastify';
import { routeSchema } from '../../core/http/route-doc.ts';
import { getLoginPageDoc } from './route-docs.ts';

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

const LoginQuery = Type.Object(
  {
    returnUrl: Type.Optional(
      Type.String({
        maxLength: 2048,
        description:
          'where to go after sign-in: an http(s) URL on a configured front end, elsewhere = the first front-end origin',
      }),
    ),
  },
  { additionalProperties: false },
);

const html = (reply: FastifyReply, status: number, title: string, body: string) =>
  reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', PAGE_CSP)
    .header('x-frame-options', 'DENY')
    .send(page(title, body));

export default async function loginPage(app: BridgeApp, opts: LoginPageOptions): Promise<void> {
  const fallback = firstOrigin(opts.config);
  // Decision S28: the query is typed by its schema; a page answers bad input with a page (400), not JSON.
  app.get(
    '/login',
    { schema: { ...routeSchema(getLoginPageDoc), querystring: LoginQuery }, attachValidation: true },
    async (req, reply) => {
      if (req.validationError)
        return html(
          reply,
          400,
          'Sign in',
          '<p class="error">This sign-in link is not valid (returnUrl: one address of at most 2048 characters).</p><p><a href="/login">Sign in</a></p>',
        );
      const target = safeReturnUrl(req.query.returnUrl, opts.frontendOrigins, fallback);
      // Decision F23: every way on from here: forgot password, join, and a new link for an unconfirmed address.
      const form = `<form id="login" data-return="${escapeHtml(target)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<p id="error" class="error" role="alert"></p><button type="submit">Sign in</button>
<p id="resend-box" hidden><button id="resend" type="button" class="secondary">Send the confirmation link again</button></p></form>
<details><summary>Forgot password?</summary><form id="forgot"><label for="forgot-email">Your email</label><input id="forgot-email" name="email" type="email" autocomplete="email" required>
<button type="submit" class="secondary">Email me a link</button><p id="forgot-status" role="status"></p></form></details>
<p class="muted">New to DOM DAO? <a href="/join">Join</a>.</p>`;
      return html(reply, 200, 'Sign in', form);
    },
  );
}
