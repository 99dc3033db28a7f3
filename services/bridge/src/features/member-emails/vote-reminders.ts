// event-reminder (decisions N15–N16, N27–N29): 24 hours and 1 hour before an open vote closes, to
// Active members who opted in (`vote_reminders`) and whose ballot is not in (their own or a delegate's,
// N27), with the voting window as the calendar event at the deadline (DTSTART = voting_closes). At most
// one per (proposal, member, window); a window is used only while at least half of it is left (N28), so
// "in 1 hour" and "tomorrow" are never said of a vote closing in 2 minutes, and the text says how soon
// from voting_closes at the send (N29).
import type { Delivery } from '../../core/email/deliveries.ts';
import { deliver } from '../../core/email/deliveries.ts';
import { proposalSummary } from '../../core/email/proposal-summary.ts';
import type { MemberEmailsOptions } from './options.ts';
import { appLinks } from '../../core/http/app-links.ts';
import { closesSentence } from '../../core/email/when.ts';

export const REMINDER_WINDOWS = [
  { label: '1h' as const, ms: 3_600_000 },
  { label: '24h' as const, ms: 24 * 3_600_000 },
];

/** The deadline's calendar entry lasts 15 minutes (a calendar needs an end after the start). */
const DEADLINE_EVENT_NS = 15n * 60n * 1_000_000_000n;
const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The window a vote closing in `remainingMs` is in: the smallest one that contains it, while at least
 * half of it is left (decision N28: 1 h from 60 to 30 minutes before, 24 h from 24 to 12 hours before).
 * A shorter vote gets no reminder for that window: its "Voting is open" item already says when it closes.
 */
export function reminderWindow(remainingMs: number): '24h' | '1h' | undefined {
  if (remainingMs <= 0) return undefined;
  const w = REMINDER_WINDOWS.find((x) => remainingMs <= x.ms);
  return w && remainingMs >= w.ms / 2 ? w.label : undefined;
}

export interface ReminderReport {
  proposals: number;
  sent: number;
  already_sent: number;
  skipped_voted: number;
  skipped_not_active: number;
  failed: number;
}

export async function sendVoteReminders(
  o: MemberEmailsOptions,
  log?: { warn(o: object, m: string): void },
): Promise<ReminderReport> {
  const report: ReminderReport = {
    proposals: 0,
    sent: 0,
    already_sent: 0,
    skipped_voted: 0,
    skipped_not_active: 0,
    failed: 0,
  };
  const now = o.now();
  const open = await o.governance.list_proposals({ status: 'Open', limit: 100 });
  const due = open
    .map((p) => ({ p, window: reminderWindow(Number(p.voting_closes / 1_000_000n) - now) }))
    .filter((x) => x.window !== undefined);
  if (due.length === 0) return report;
  const members = await o.db
    .selectFrom('digest_preferences as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .select(['u.id', 'u.principal', 'u.email_encrypted', 'u.name_encrypted'])
    .where('p.vote_reminders', '=', true)
    .where('u.email_verified_at', 'is not', null)
    .execute();
  for (const { p, window } of due) {
    report.proposals++;
    const id = String(p.id);
    await o.events.publish(
      'VoteClosingSoon',
      { proposal_id: id, title: p.title, window: window!, voting_closes: iso(p.voting_closes) },
      { sourceId: `closing:${id}:${window}` },
    );
    // Decision F43: the reminder says what the vote decides, as the proposal's list row does.
    const summary = await proposalSummary(o.db, o.governance, p);
    for (const m of members) {
      const key = `event-reminder:${id}:${m.id}:${window}`;
      if (
        (await o.db.selectFrom('email_deliveries').select('status').where('key', '=', key).executeTakeFirst())
          ?.status === 'sent'
      ) {
        report.already_sent++;
        continue;
      }
      const status = await o.membership.get_membership_status(m.principal).catch(() => undefined);
      if (!status?.is_active) {
        report.skipped_not_active++;
        continue;
      }
      // Decision N27: a delegate's ballot that counts for the member is their vote too.
      const ballot = await (
        await o.governanceAs({ user_id: m.id, principal: m.principal })
      )
        .get_my_ballot(p.id)
        .catch(() => undefined);
      if (ballot !== undefined) {
        report.skipped_voted++;
        continue;
      }
      const [email, name] = await Promise.all([
        o.openField('email', m.email_encrypted),
        o.openField('name', m.name_encrypted),
      ]);
      const link = appLinks.proposal(o.linkBase, String(id));
      const d: Delivery = {
        key,
        userId: m.id,
        request: {
          type: 'event-reminder',
          to: email.trim(),
          domain: o.brandDomain,
          data: {
            recipient_name: name,
            event_id: `proposal-${id}@${o.brandDomain}`,
            // The calendar event is the deadline itself (decision N15): DTSTART = voting_closes.
            event_title: `Vote deadline: ${p.title}`.slice(0, 200),
            start_time: iso(p.voting_closes),
            end_time: iso(p.voting_closes + DEADLINE_EVENT_NS),
            window_label: window!,
            // Decision N29: how soon from the deadline itself, and the instant in UTC, said so; N26: what the proposal
            // does.
            event_description: `${summary}\n${closesSentence(Number(p.voting_closes / 1_000_000n), now)} You have not voted yet.`,
            event_url: link,
            preferences_url: `${o.linkBase}/preferences`,
          },
        },
      };
      const r = await deliver(o, d);
      if (r === 'failed') {
        report.failed++;
        log?.warn({ event: 'member_emails.reminder_failed', user_id: m.id, proposal_id: id }, 'vote reminder not sent');
      } else report[r]++;
    }
  }
  return report;
}
