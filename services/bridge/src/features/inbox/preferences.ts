// Spec 3 "User digest preference" (decisions N4–N6): GET/PUT /api/me/notification-preferences with the
// session (PUT keeps the cross-site rule of cookie mutations, decision B8), and GET /preferences, the
// page the unsubscribe pages and email footers link to.
import { sql } from 'kysely';
import { Type } from '@sinclair/typebox';
import type { Db } from '../../core/db/schema.ts';
import type { DigestFrequency } from '../../core/db/schema.ts';
import { HttpError } from '../../core/http/errors.ts';
import { escapeHtml, page, PAGE_CSP } from '../../core/http/page.ts';
import type { InboxOptions } from './options.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { StrictErrorBody } from '../../core/http/route-doc.ts';

const Frequency = Type.Union([Type.Literal('daily'), Type.Literal('weekly'), Type.Literal('none')], {
  description: 'spec 3 digest_frequency; new members have `none` (opt-in, decision N4)',
});
export const PreferenceBody = Type.Object({
  digest_frequency: Frequency,
  vote_reminders: Type.Boolean({
    description:
      'event-reminder emails 24 h and 1 h before a vote closes, while Active and not yet voted (decision N16)',
  }),
  last_digest_sent_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
const PutBody = Type.Object(
  { digest_frequency: Type.Optional(Frequency), vote_reminders: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, minProperties: 1 },
);
const e = (description: string) => ({ description, ...StrictErrorBody });

export interface Preference {
  digest_frequency: DigestFrequency;
  vote_reminders: boolean;
  last_digest_sent_at: string | null;
}

export async function readPreference(db: Db, userId: string): Promise<Preference> {
  const row = await db
    .selectFrom('digest_preferences')
    .select(['digest_frequency', 'vote_reminders', 'last_digest_sent_at'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return {
    digest_frequency: row?.digest_frequency ?? 'none',
    vote_reminders: row?.vote_reminders ?? false,
    last_digest_sent_at: row?.last_digest_sent_at ? new Date(row.last_digest_sent_at).toISOString() : null,
  };
}

/**
 * One statement: the row is created on first use; `opted_in_at` moves only when the frequency goes
 * from `none` to daily/weekly (the first digest of a new subscription covers what happens from then).
 */
export async function writePreference(
  db: Db,
  userId: string,
  change: { digest_frequency?: DigestFrequency; vote_reminders?: boolean },
  now: Date,
): Promise<void> {
  const freq = change.digest_frequency ?? null;
  const reminders = change.vote_reminders ?? null;
  await sql`
    insert into digest_preferences (user_id, digest_frequency, vote_reminders, opted_in_at, updated_at)
    values (${userId}, coalesce(${freq}::text, 'none'), coalesce(${reminders}::boolean, false), case when coalesce(${freq}::text, 'none') <> 'none' then ${now}::timestamptz end, ${now})
    on conflict (user_id) do update set
      digest_frequency = coalesce(${freq}::text, digest_preferences.digest_frequency),
      vote_reminders = coalesce(${reminders}::boolean, digest_preferences.vote_reminders),
      opted_in_at = case when digest_preferences.digest_frequency = 'none' and coalesce(${freq}::text, 'none') <> 'none' then ${now}::timestamptz else digest_preferences.opted_in_at end,
      updated_at = ${now}`.execute(db);
}

export async function preferenceRoutes(app: BridgeApp, o: InboxOptions): Promise<void> {
  const security = [{ sessionCookie: [] }];
  app.get(
    '/api/me/notification-preferences',
    {
      schema: {
        summary:
          "The signed-in member's digest frequency and vote reminders (spec 3 User digest preference; decisions N4–N6)",
        operationId: 'getMyNotificationPreferences',
        description: 'Session required; defaults (`none`, no reminders) until the member changes them.',
        tags: ['inbox'],
        security,
        response: { 200: PreferenceBody, 401: e('UNAUTHORIZED') },
      },
    },
    async (req, reply) => {
      const s = await o.requireSession(req);
      reply.header('cache-control', 'private, no-store');
      return readPreference(o.db, s.user_id);
    },
  );
  app.put(
    '/api/me/notification-preferences',
    {
      schema: {
        summary:
          'Change the digest frequency (daily, weekly, none) and/or vote reminders; JSON, from a front-end origin (decision B8)',
        operationId: 'updateMyNotificationPreferences',
        description:
          'Session required (cross-site rule); unknown fields are dropped and a body left with nothing to change is refused.',
        tags: ['inbox'],
        security,
        body: PutBody,
        response: {
          200: PreferenceBody,
          400: e('VALIDATION_ERROR'),
          401: e('UNAUTHORIZED'),
          403: e('CSRF_REJECTED'),
          415: e('UNSUPPORTED_MEDIA_TYPE'),
        },
      },
    },
    async (req, reply) => {
      const s = await o.requireSession(req);
      const change = req.body;
      // Unknown fields are dropped (decision V11): a body left with nothing to change is refused.
      if (change.digest_frequency === undefined && change.vote_reminders === undefined)
        throw new HttpError(400, 'VALIDATION_ERROR', 'body must have digest_frequency and/or vote_reminders');
      await writePreference(o.db, s.user_id, change, new Date(o.now()));
      req.log.info(
        { event: 'inbox.preference_changed', user_id: s.user_id, ...req.body },
        'notification preference changed',
      );
      reply.header('cache-control', 'private, no-store');
      return readPreference(o.db, s.user_id);
    },
  );

  app.get(
    '/preferences',
    {
      schema: {
        summary: 'Email preferences page (digest frequency, vote reminders); sign-in link when signed out',
        operationId: 'getPreferencesPage',
        description: 'An HTML page: the preference form with a session cookie, a sign-in link without one.',
        security: [{}, { sessionCookie: [] }],
        tags: ['pages'],
        response: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } },
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
        const login = `/login?returnUrl=${encodeURIComponent(`${o.publicUrl.replace(/\/+$/, '')}/preferences`)}`;
        return reply.send(
          page(
            'Email preferences',
            `<p>Sign in to choose which emails you receive.</p><p><a href="${escapeHtml(login)}">Sign in</a></p>`,
          ),
        );
      }
      const p = await readPreference(o.db, s.user_id);
      const opt = (v: string, label: string) =>
        `<option value="${v}"${p.digest_frequency === v ? ' selected' : ''}>${label}</option>`;
      const form = `<form id="prefs"><label for="digest_frequency">Activity digest email</label>
<select id="digest_frequency" name="digest_frequency">${opt('none', 'No digest')}${opt('daily', 'Daily')}${opt('weekly', 'Weekly')}</select>
<label class="check"><input type="checkbox" id="vote_reminders" name="vote_reminders"${p.vote_reminders ? ' checked' : ''}> Remind me 24 hours and 1 hour before a vote I have not cast closes</label>
<p id="error" class="error" role="alert"></p><p id="saved" role="status"></p><button type="submit">Save</button></form>`;
      return reply.send(
        page('Email preferences', `<p>Signed in as <strong>${escapeHtml(s.email)}</strong>.</p>${form}`),
      );
    },
  );
}
