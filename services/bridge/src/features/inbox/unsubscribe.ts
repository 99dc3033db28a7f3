// Spec 3 GET /unsubscribe (the digest's body link) and RFC 8058 one-click POST /unsubscribe (the
// mailbox provider's List-Unsubscribe-Post request: no cookie, no Origin, a form body
// `List-Unsubscribe=One-Click`). Both verify the token (signature, then expiry) and set the member's
// digest_frequency to `none` in one statement; both are idempotent. The token is the credential, so
// the cross-site rule of cookie mutations (B8) does not apply here (decision N2).
import { sql } from 'kysely';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Db } from '../../core/db/schema.ts';
import { escapeHtml, page, PAGE_CSP } from '../../core/http/page.ts';
import type { InboxOptions } from './options.ts';
import { signUnsubscribeToken, verifyUnsubscribeToken } from './unsubscribe-token.ts';
import type { BridgeApp } from '../../core/http/typed.ts';

/** Spec 3: `https://<domain>/unsubscribe?token=<signed_token>` (decision N3 for the base). */
export function unsubscribeUrl(
  o: Pick<InboxOptions, 'linkBase' | 'signingSecrets' | 'tokenLifetimeMs'>,
  userId: string,
  nowMs: number,
): string {
  return `${o.linkBase}/unsubscribe?token=${signUnsubscribeToken(o.signingSecrets[0]!, userId, nowMs + o.tokenLifetimeMs)}`;
}

/** Sets `none` in one atomic statement; false when the user no longer exists. */
export async function unsubscribe(db: Db, userId: string, now: Date): Promise<boolean> {
  const r = await sql<{ user_id: string }>`
    insert into digest_preferences (user_id, digest_frequency, updated_at)
    select id, 'none', ${now}::timestamptz from users where id = ${userId}
    on conflict (user_id) do update set digest_frequency = 'none', updated_at = excluded.updated_at
    returning user_id`.execute(db);
  return r.rows.length > 0;
}

const html = { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } };
const Query = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 200, description: 'v1.<user_id>.<expires_at>.<mac> (decision N2)' })),
});

/** RFC 8058 §3.1: the body is `List-Unsubscribe=One-Click`, form-urlencoded or multipart. */
function isOneClick(body: string, contentType: string): boolean {
  if (/^application\/x-www-form-urlencoded\b/i.test(contentType))
    return new URLSearchParams(body).get('List-Unsubscribe') === 'One-Click';
  if (/^multipart\/form-data\b/i.test(contentType)) return /name="List-Unsubscribe"\r?\n\r?\nOne-Click\r?\n/.test(body);
  return false;
}

export async function unsubscribeRoutes(app: BridgeApp, o: InboxOptions): Promise<void> {
  const prefs = `${o.publicUrl.replace(/\/+$/, '')}/preferences`;
  const send = (reply: FastifyReply, status: number, title: string, text: string) =>
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header('content-security-policy', PAGE_CSP)
      .header('x-frame-options', 'DENY')
      .header('cache-control', 'no-store')
      // The token is a credential: never leak it to a linked page.
      .header('referrer-policy', 'no-referrer')
      .send(
        page(
          title,
          `<p>${escapeHtml(text)}</p><p><a href="${escapeHtml(prefs)}">Manage your email preferences</a></p>`,
        ),
      );

  const handle = async (token: unknown, reply: FastifyReply, req: FastifyRequest, oneClick: boolean) => {
    const check = verifyUnsubscribeToken(o.signingSecrets, token, o.now());
    if (!check.ok) {
      req.log.warn({ event: 'inbox.unsubscribe_refused', reason: check.reason }, 'unsubscribe link refused');
      return check.reason === 'expired'
        ? send(
            reply,
            400,
            'Link expired',
            'This unsubscribe link has expired, so nothing was changed. Sign in to turn the digest off in your email preferences.',
          )
        : send(
            reply,
            400,
            'Link not valid',
            'This unsubscribe link is not valid, so nothing was changed. Sign in to turn the digest off in your email preferences.',
          );
    }
    const done = await unsubscribe(o.db, check.userId, new Date(o.now()));
    // The signed token names the member: they are the actor (decision B61).
    await o.audit.record(req, {
      event: 'inbox.unsubscribed',
      actor: check.userId,
      outcome: 'success',
      detail: { found: done, one_click: oneClick },
    });
    return send(
      reply,
      200,
      'You are unsubscribed',
      'You will not receive the activity digest any more. You can turn it back on at any time in your email preferences.',
    );
  };

  app.get(
    '/unsubscribe',
    {
      schema: {
        summary:
          'Unsubscribe from the digest with the emailed token: digest_frequency becomes none (spec 3; decisions N1–N3)',
        operationId: 'unsubscribeByLink',
        description:
          'No session: the signed token in the query is the credential; repeating it changes nothing more (decision N2).',
        security: [],
        tags: ['inbox'],
        querystring: Query,
        response: { 200: html, 400: html },
      },
    },
    async (req, reply) => handle(req.query.token, reply, req, false),
  );

  // Its own scope: the mailbox provider's form body is parsed here only, as text.
  await app.register(async (scope: BridgeApp) => {
    scope.addContentTypeParser(
      ['application/x-www-form-urlencoded', 'multipart/form-data'],
      { parseAs: 'string', bodyLimit: 4096 },
      (_req, body, done) => done(null, body),
    );
    scope.post(
      '/unsubscribe',
      {
        schema: {
          summary:
            'RFC 8058 one-click unsubscribe: body List-Unsubscribe=One-Click, token in the query; no cookie or Origin needed (decision N2)',
          operationId: 'unsubscribeOneClick',
          description:
            "No session: the signed token in the query is the credential; the mailbox provider's request carries no cookie or Origin (decision N2).",
          security: [],
          tags: ['inbox'],
          querystring: Query,
          response: { 200: html, 400: html },
        },
      },
      async (req, reply) => {
        const type = String(req.headers['content-type'] ?? '');
        if (typeof req.body !== 'string' || !isOneClick(req.body, type)) {
          return send(
            reply,
            400,
            'Not a one-click request',
            'A one-click unsubscribe must send List-Unsubscribe=One-Click as a form body. Nothing was changed.',
          );
        }
        return handle(req.query.token, reply, req, true);
      },
    );
  });
}
