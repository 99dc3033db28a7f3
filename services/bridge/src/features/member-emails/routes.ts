// Every email at its moment (decisions N13–N24): the member emails the bridge owes beyond
// registration and password reset: welcome, membership-confirm + payment-receipt, renewal-receipt
// (from member events), refund-confirmation and treasury-milestone (from the campaign and treasury
// events, N22), event-reminder (a job), invitation (a member's request). Each send is a row
// in email_deliveries: failures are listed for admins and retried. A Fastify plugin; it imports no
// other feature.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { Type } from '@sinclair/typebox';
import type { BridgeEvent, EventType } from '../../core/events/bus.ts';
import { HttpError } from '../../core/http/errors.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { deliver, MAX_ATTEMPTS } from '../../core/email/deliveries.ts';
import { lifecycleEmails, recipient } from './lifecycle.ts';
import type { MemberEmailsOptions } from './options.ts';
import { sendVoteReminders } from './vote-reminders.ts';
import { appLinks } from '../../core/http/app-links.ts';
import { StrictErrorBody } from '../../core/http/route-doc.ts';

const LIFECYCLE = [
  'MemberVerified',
  'MembershipActivated',
  'ContributionRefunded',
  'CampaignSettled',
  'TreasuryPayoutPaid',
] as const satisfies readonly EventType[];
/** Invitations a member may send per 24 hours (decision N18). */
export const INVITATIONS_PER_DAY = 10;
const e = (description: string) => ({ description, ...StrictErrorBody });

export default async function memberEmails(app: BridgeApp, o: MemberEmailsOptions): Promise<void> {
  // The send happens inside the subscriber's turn (at-least-once, keyed per event); a failure is
  // recorded, never thrown, so later events are not held up (decision N14).
  o.events.subscribe('member-emails:lifecycle', LIFECYCLE, async (ev, trx) => {
    // Everything through the subscriber's transaction: PGlite has a single connection.
    for (const d of await lifecycleEmails(o, ev, trx)) {
      const r = await deliver({ ...o, db: trx }, d);
      if (r === 'failed')
        app.log.warn(
          { event: 'member_emails.failed', template: d.request.type, user_id: d.userId, key: d.key },
          'member email not sent; recorded for retry',
        );
    }
  });

  o.jobs.define({
    name: 'member-emails:retry',
    everyMs: 5 * 60_000,
    run: async () => {
      const due = await o.db
        .selectFrom('email_deliveries')
        .select(['key', 'event_seq'])
        .where('status', '=', 'failed')
        .where('event_seq', 'is not', null)
        .where('next_attempt_at', '<=', new Date(o.now()))
        .orderBy('next_attempt_at')
        .limit(500)
        .execute();
      let sent = 0;
      for (const row of due) {
        const stored = await o.db
          .selectFrom('bridge_events')
          .selectAll()
          .where('seq', '=', String(row.event_seq))
          .executeTakeFirst();
        if (!stored) continue;
        const ev: BridgeEvent = {
          seq: String(stored.seq),
          id: `${stored.source}:${stored.source_id}`,
          type: stored.type as EventType,
          data: stored.data as never,
          source: stored.source,
          occurredAt: new Date(stored.occurred_at),
        };
        for (const d of (await lifecycleEmails(o, ev)).filter((x) => x.key === row.key))
          if ((await deliver(o, d)) === 'sent') sent++;
      }
      return { outcome: due.length ? 'succeeded' : 'skipped', detail: { due: due.length, sent } };
    },
  });

  o.jobs.define({
    name: 'member-emails:vote-reminders',
    everyMs: 5 * 60_000,
    run: async () => {
      const report = await sendVoteReminders(o, app.log);
      return { outcome: report.proposals ? 'succeeded' : 'skipped', detail: { ...report } };
    },
  });

  app.post(
    '/api/me/invitations',
    {
      schema: {
        summary: 'Invite someone to join: sends the invitation email in the member’s name (decision N18)',
        operationId: 'inviteSomeone',
        description: 'Session required (cross-site rule); the notification service sends the invitation email.',
        tags: ['inbox'],
        security: [{ sessionCookie: [] }],
        body: Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }) }, { additionalProperties: false }),
        response: {
          202: Type.Object({
            status: Type.Union([Type.Literal('sent'), Type.Literal('not_sent')]),
            message: Type.String(),
          }),
          400: e('VALIDATION_ERROR (the notification service refused the address)'),
          401: e('UNAUTHORIZED'),
          403: e('CSRF_REJECTED'),
          429: e('TOO_MANY_INVITATIONS: 10 per 24 hours'),
        },
      },
    },
    async (req, reply) => {
      const s = await o.requireSession(req);
      const email = req.body.email.trim();
      const since = new Date(o.now() - 86_400_000);
      const sentToday = await o.db
        .selectFrom('email_deliveries')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('user_id', '=', s.user_id)
        .where('template', '=', 'invitation')
        .where('created_at', '>', since)
        .executeTakeFirstOrThrow();
      if (Number(sentToday.n) >= INVITATIONS_PER_DAY)
        throw new HttpError(429, 'TOO_MANY_INVITATIONS', `at most ${INVITATIONS_PER_DAY} invitations per 24 hours`, {
          'retry-after': '3600',
        });
      const me = await recipient(o, s.user_id);
      if (!me) throw new HttpError(401, 'UNAUTHORIZED', 'sign in first');
      // One invitation per (member, address, day): a double click sends one email.
      const digest = createHash('sha256').update(email.toLowerCase()).digest('hex').slice(0, 32);
      const key = `invitation:${s.user_id}:${digest}:${new Date(o.now()).toISOString().slice(0, 10)}`;
      const r = await deliver(o, {
        key,
        userId: s.user_id,
        request: {
          type: 'invitation',
          to: email,
          domain: o.brandDomain,
          data: {
            inviter_name: me.name,
            workspace_name: 'DOM DAO',
            invitation_link: appLinks.join(o.linkBase),
            expires_days: 14,
          },
        },
      });
      if (r === 'failed') {
        const row = await o.db
          .selectFrom('email_deliveries')
          .select('last_error')
          .where('key', '=', key)
          .executeTakeFirst();
        if (row?.last_error?.startsWith('rejected 400 invalid_request')) {
          // The address itself was refused: say so, and do not count it against the member's limit.
          await o.db.deleteFrom('email_deliveries').where('key', '=', key).execute();
          throw new HttpError(400, 'VALIDATION_ERROR', 'email is not a valid email address');
        }
        return reply
          .code(202)
          .send({ status: 'not_sent', message: 'the invitation could not be sent right now; try again later' });
      }
      req.log.info({ event: 'member_emails.invitation', user_id: s.user_id }, 'invitation sent');
      return reply.code(202).send({ status: 'sent', message: `invitation sent to ${email}` });
    },
  );

  app.get(
    '/api/admin/emails',
    {
      preHandler: o.admin,
      schema: {
        summary:
          'Member emails the bridge sent or failed to send, newest first; failures with their reason and next retry (admin; decision N14)',
        operationId: 'listMemberEmails',
        description: 'Admin session required; the member-email outbox with the reason of each failure.',
        tags: ['admin'],
        security: [{ sessionCookie: [] }],
        querystring: Type.Object(
          {
            status: Type.Optional(Type.Union([Type.Literal('sent'), Type.Literal('failed')])),
            template: Type.Optional(Type.String({ maxLength: 64 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object({
                key: Type.String(),
                template: Type.String(),
                user_id: Type.Union([Type.String(), Type.Null()]),
                status: Type.String(),
                attempts: Type.Integer(),
                last_error: Type.Union([Type.String(), Type.Null()]),
                next_attempt_at: Type.Union([Type.String(), Type.Null()], {
                  description: `when a failure is retried (at most ${MAX_ATTEMPTS} attempts); null: not retried`,
                }),
                updated_at: Type.String(),
              }),
            ),
          }),
          400: e('VALIDATION_ERROR'),
          401: e('UNAUTHORIZED'),
          403: e('FORBIDDEN'),
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      let query = o.db
        .selectFrom('email_deliveries')
        .select(['key', 'template', 'user_id', 'status', 'attempts', 'last_error', 'next_attempt_at', 'updated_at']);
      if (q.status) query = query.where('status', '=', q.status);
      if (q.template) query = query.where('template', '=', q.template);
      const rows = await query
        .orderBy(sql`updated_at desc, key`)
        .limit(q.limit ?? 50)
        .execute();
      reply.header('cache-control', 'private, no-store');
      return {
        items: rows.map((r) => ({
          ...r,
          next_attempt_at: r.next_attempt_at ? new Date(r.next_attempt_at).toISOString() : null,
          updated_at: new Date(r.updated_at).toISOString(),
        })),
      };
    },
  );
}
