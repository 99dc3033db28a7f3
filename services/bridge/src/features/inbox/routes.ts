// The member's inbox (decisions N1–N12; spec 3 "Unsubscribe token", "User digest preference", the digest):
// the activity feed and where its items come from, the digest preference, the digest job, the
// unsubscribe endpoints and the pages they link to. A Fastify plugin; it imports no other feature.
import { Type } from '@sinclair/typebox';
import { Int8Text } from '../../core/http/decimal.ts';
import { escapeHtml, page, PAGE_CSP } from '../../core/http/page.ts';
import { bothTimes, closesSentence } from '../../core/email/when.ts';
import { activityRoutes, ballotsCastBy, feedPage, isActive } from './activity.ts';
import { followActivity } from './activity-producers.ts';
import { followDelegateVotes } from './delegate-votes.ts';
import { runDigest } from './digest-job.ts';
import { announceExpiringMemberships } from './membership-expiry.ts';
import type { InboxOptions } from './options.ts';
import { preferenceRoutes } from './preferences.ts';
import { unsubscribeRoutes } from './unsubscribe.ts';
import type { BridgeApp } from '../../core/http/typed.ts';

/** The digest job looks for due members every hour, on the hour (decision N9). */
export const DIGEST_EVERY_MS = 3_600_000;

export default async function inbox(app: BridgeApp, o: InboxOptions): Promise<void> {
  await preferenceRoutes(app, o);
  await unsubscribeRoutes(app, o);
  await activityRoutes(app, o);
  followActivity(o);
  followDelegateVotes(o);
  o.jobs.define({
    name: 'inbox:digest',
    everyMs: DIGEST_EVERY_MS,
    run: async (ctx) => {
      // A scheduled run's instant is its slot (a retry sees the same cut-off and sends the same
      // bodies); a manual run's is now.
      const at = new Date(ctx.trigger === 'schedule' ? Date.parse(ctx.slot) : ctx.now());
      const report = await runDigest(o, at, { signal: ctx.signal, log: app.log });
      app.log.info({ event: 'inbox.digest_done', ...report }, 'digest job finished');
      if (report.unavailable > 0)
        throw new Error(
          `${report.unavailable} digest(s) not sent: the notification service was unavailable (report: ${JSON.stringify(report)})`,
        );
      return { outcome: report.sent + report.already_sent > 0 ? 'succeeded' : 'skipped', detail: { ...report } };
    },
  });

  o.jobs.define({
    name: 'inbox:membership-expiry',
    everyMs: 3_600_000,
    run: async () => {
      const report = await announceExpiringMemberships(o);
      return { outcome: report.announced > 0 ? 'succeeded' : 'skipped', detail: { ...report } };
    },
  });

  // The page the digest's inbox_url opens: the signed-in member's feed, 50 at a time.
  app.get(
    '/activity',
    {
      schema: {
        summary: "The signed-in member's activity feed as a page (the digest's inbox_url)",
        operationId: 'getActivityPage',
        description: 'An HTML page: the feed with a session cookie, a sign-in link without one.',
        security: [{}, { sessionCookie: [] }],
        tags: ['pages'],
        querystring: Type.Object({ before_id: Type.Optional(Int8Text('cursor: items older than this id')) }),
        response: {
          200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } },
          400: {
            description: 'VALIDATION_ERROR: before_id is not a bigint id (JSON error body)',
            type: 'object',
            properties: { error: { type: 'string' }, message: { type: 'string' }, request_id: { type: 'string' } },
          },
        },
      },
    },
    async (req, reply) => {
      const s = await o.currentSession(req);
      reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', PAGE_CSP)
        .header('x-frame-options', 'DENY')
        .header('cache-control', 'no-store');
      if (!s) {
        const login = `/login?returnUrl=${encodeURIComponent(`${o.publicUrl.replace(/\/+$/, '')}/activity`)}`;
        return reply.send(
          page('Activity', `<p>Sign in to see what happened.</p><p><a href="${escapeHtml(login)}">Sign in</a></p>`),
        );
      }
      const before = req.query.before_id;
      const { items, next_before_id } = await feedPage(
        o.db,
        {
          userId: s.user_id,
          active: await isActive(o, s.principal),
          limit: 50,
          ...(before !== undefined && { beforeId: before }),
        },
        ballotsCastBy(o, s),
      );
      // Decision N29: a page the server writes has no browser zone: relative, and the instant in UTC, said so.
      const now = o.now();
      const time = (iso: string) =>
        `<time datetime="${escapeHtml(iso)}">${escapeHtml(bothTimes(Date.parse(iso), now))}</time>`;
      const list = items.length
        ? `<ul class="feed">${items
            .map((i) => {
              const title = i.deep_link
                ? `<a href="${escapeHtml(i.deep_link)}">${escapeHtml(i.title)}</a>`
                : escapeHtml(i.title);
              const text = [i.body, i.closes_at && closesSentence(Date.parse(i.closes_at), now)]
                .filter(Boolean)
                .join(' ');
              const body = text ? `<br>${escapeHtml(text)}` : '';
              return `<li><strong>${title}</strong><br><small class="muted">${escapeHtml(i.category)} · ${time(i.created_at)}</small>${body}</li>`;
            })
            .join('')}</ul>`
        : '<p>Nothing yet. Proposals, votes and campaigns that concern you will show here.</p>';
      const more = next_before_id ? `<p><a href="/activity?before_id=${next_before_id}">Older</a></p>` : '';
      return reply.send(page('Activity', `${list}${more}<p><a href="/preferences">Email preferences</a></p>`));
    },
  );
}
