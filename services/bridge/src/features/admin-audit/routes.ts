// GET /api/admin/audit (decision B67): the audit log for admins, newest first, filtered by event,
// actor and time range, paged by cursor. The admin guard's refusals are audited like any other
// admin route's (admin.access_denied).
import { Type } from '@sinclair/typebox';
import type { Guards } from '../../core/auth/guards.ts';
import { AUDIT_EVENT_NAMES } from '../../core/audit/events.ts';
import type { AuditLog } from '../../core/audit/log.ts';
import { Int8Text } from '../../core/http/decimal.ts';
import { HttpError } from '../../core/http/errors.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { StrictErrorBody } from '../../core/http/route-doc.ts';

export interface AdminAuditOptions {
  audit: Pick<AuditLog, 'list'>;
  guards: Pick<Guards, 'admin'>;
}

/** The largest page (decision B67). */
export const AUDIT_PAGE_MAX = 200;

const Query = Type.Object(
  {
    event: Type.Optional(
      Type.Union(
        AUDIT_EVENT_NAMES.map((e) => Type.Literal(e)),
        { description: 'only this event' },
      ),
    ),
    actor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'only this actor: a user id, `anonymous` or `system`' }),
    ),
    from: Type.Optional(
      Type.String({ format: 'date-time', description: 'events at or after this instant (ISO-8601)' }),
    ),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'events before this instant (ISO-8601)' })),
    cursor: Type.Optional(Int8Text('the previous page’s next_cursor: older events', 1n)),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: AUDIT_PAGE_MAX,
        default: 50,
        description: `events per page (1 to ${AUDIT_PAGE_MAX})`,
      }),
    ),
  },
  { additionalProperties: false },
);

const Entry = Type.Object({
  id: Type.String(),
  at: Type.String({ format: 'date-time' }),
  event: Type.String(),
  actor: Type.String({ description: 'a user id, `anonymous` (no session) or `system` (start-up, jobs, the outbox)' }),
  subject: Type.Union([Type.String(), Type.Null()], {
    description: 'the user the event is about, when another than the actor',
  }),
  request_id: Type.Union([Type.String(), Type.Null()]),
  client: Type.String({ description: 'the client address class: loopback, private, public, or internal (no request)' }),
  outcome: Type.Union([Type.Literal('success'), Type.Literal('failure'), Type.Literal('denied')]),
  detail: Type.Object(
    {},
    { additionalProperties: true, description: 'codes, counts, role names; never personal data (decision B63)' },
  ),
});

export default async function adminAudit(app: BridgeApp, { audit, guards }: AdminAuditOptions): Promise<void> {
  app.addHook('preHandler', guards.admin);
  app.get(
    '/api/admin/audit',
    {
      schema: {
        operationId: 'listAuditEvents',
        summary:
          'The audit log: security events, newest first; filters event, actor, from/to; cursor pages (decision B67)',
        description:
          'Every security event of the bridge (sign-ins, CSRF refusals, refusals at admin routes, registration, verification, password resets, sessions ended, roles, KYC, upgrades, escrow, price proposals, AI reindex, unsubscribes, secret rotations) as stored in the append-only audit log. No row carries an email, name, birth date, password, token or session id. Rows older than AUDIT_RETENTION_DAYS are deleted by the job audit:retention.',
        tags: ['admin'],
        security: [{ sessionCookie: [] }],
        querystring: Query,
        response: {
          200: Type.Object({
            items: Type.Array(Entry),
            next_cursor: Type.Union([Type.String(), Type.Null()], {
              description: 'pass as `cursor` for the next (older) page; null on the last page',
            }),
          }),
          400: {
            description:
              'VALIDATION_ERROR: an unknown event, a limit past 200, a malformed cursor or instant, or `from` after `to`',
            ...StrictErrorBody,
          },
          401: { description: 'UNAUTHORIZED: sign in first', ...StrictErrorBody },
          403: { description: 'FORBIDDEN: admin role required', ...StrictErrorBody },
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      if (q.from !== undefined && q.to !== undefined && Date.parse(q.from) > Date.parse(q.to))
        throw new HttpError(400, 'VALIDATION_ERROR', 'querystring: from must not be after to');
      reply.header('cache-control', 'private, no-store');
      return audit.list({
        limit: q.limit ?? 50,
        ...(q.event !== undefined && { event: q.event }),
        ...(q.actor !== undefined && { actor: q.actor }),
        ...(q.from !== undefined && { from: q.from }),
        ...(q.to !== undefined && { to: q.to }),
        ...(q.cursor !== undefined && { cursor: q.cursor }),
      });
    },
  );
}
