// The digest job (spec 3 "User digest preference", decisions N9–N12). One run at a reference instant
// `at` (the scheduled slot's start, so a long run or a retry sees the same cut-off):
// - eligible: digest_frequency not `none`, a verified address, and last_digest_sent_at null or at
//   least the interval (1 day, 7 days) before `at` (exactly at the interval is due);
// - pending items: visible to the member, created after max(last_digest_sent_at, opted_in_at) and at
//   or before `at`; none → skipped before the service is called;
// - the newest 50 items, total_count the true number, unsubscribe_url as spec 3;
// - Idempotency-Key `digest:<user>:<last_digest_sent_at | never>`: the same key until the member's
//   digest is recorded, so a crash between the send and the update never mails twice (the service
//   replays its first answer, or answers 422 when the retry's body differs, which also means sent);
// - last_digest_sent_at = `at`, only after the service accepted the send, compare-and-set.
// Users are read in pages and sent DIGEST_CONCURRENCY at a time; progress is logged per page.
import { sql } from 'kysely';
import type { Db } from '../../core/db/schema.ts';
import type { DigestFrequency } from '../../core/db/schema.ts';
import type { InboxOptions } from './options.ts';
import { closesSentence } from '../../core/email/when.ts';
import { ballotsCastBy, clip, countFeed, feedPage, isActive, type FeedQuery } from './activity.ts';
import { unsubscribeUrl } from './unsubscribe.ts';

export const DIGEST_INTERVAL_MS: Record<Exclude<DigestFrequency, 'none'>, number> = {
  daily: 86_400_000,
  weekly: 7 * 86_400_000,
};
export const DIGEST_MAX_ITEMS = 50;
const PAGE = 500;

export interface DigestLog {
  info(o: object, m: string): void;
  warn(o: object, m: string): void;
}

export interface DigestRunReport {
  at: string;
  eligible: number;
  sent: number;
  /** Replayed by the notification service: sent by an earlier, interrupted attempt. */
  already_sent: number;
  skipped_no_items: number;
  skipped_unsubscribed: number;
  /** Another instance is sending this member's digest right now (409 on the key): it records it. */
  in_flight_elsewhere: number;
  /** The service refused the request (a bug or bad data): logged, retried at the next slot. */
  rejected: number;
  /** The service or the network failed: the run fails and its slot is retried. */
  unavailable: number;
}

interface Candidate {
  user_id: string;
  principal: string;
  digest_frequency: 'daily' | 'weekly';
  last_digest_sent_at: Date | null;
  opted_in_at: Date | null;
  email_encrypted: string;
  name_encrypted: string;
}

/** Members due at `at`, a page after `afterUserId` (keyset on user_id). */
export async function dueMembers(
  db: Db,
  at: Date,
  afterUserId: string | undefined,
  limit: number,
): Promise<Candidate[]> {
  const daily = new Date(at.getTime() - DIGEST_INTERVAL_MS.daily);
  const weekly = new Date(at.getTime() - DIGEST_INTERVAL_MS.weekly);
  const r = await sql<Candidate>`
    select p.user_id, u.principal, p.digest_frequency, p.last_digest_sent_at, p.opted_in_at, u.email_encrypted, u.name_encrypted
    from digest_preferences p join users u on u.id = p.user_id
    where p.digest_frequency <> 'none' and u.email_verified_at is not null
      and (p.last_digest_sent_at is null
        or (p.digest_frequency = 'daily' and p.last_digest_sent_at <= ${daily}::timestamptz)
        or (p.digest_frequency = 'weekly' and p.last_digest_sent_at <= ${weekly}::timestamptz))
      ${afterUserId === undefined ? sql`` : sql`and p.user_id > ${afterUserId}`}
    order by p.user_id
    limit ${limit}`.execute(db);
  return r.rows.map((c) => ({
    ...c,
    last_digest_sent_at: c.last_digest_sent_at && new Date(c.last_digest_sent_at),
    opted_in_at: c.opted_in_at && new Date(c.opted_in_at),
  }));
}

/** Runs `work` over `items` with at most `limit` in flight. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export async function runDigest(
  o: InboxOptions,
  at: Date,
  opts: { signal?: AbortSignal; log?: DigestLog } = {},
): Promise<DigestRunReport> {
  const report: DigestRunReport = {
    at: at.toISOString(),
    eligible: 0,
    sent: 0,
    already_sent: 0,
    skipped_no_items: 0,
    skipped_unsubscribed: 0,
    in_flight_elsewhere: 0,
    rejected: 0,
    unavailable: 0,
  };
  const started = Date.now();
  let after: string | undefined;
  for (;;) {
    if (opts.signal?.aborted) throw new Error(`digest run interrupted: ${String(opts.signal.reason ?? 'aborted')}`);
    const page = await dueMembers(o.db, at, after, PAGE);
    if (page.length === 0) break;
    after = page[page.length - 1]!.user_id;
    report.eligible += page.length;
    await pool(page, o.digestConcurrency, async (c) => {
      if (opts.signal?.aborted) return;
      const outcome = await digestFor(o, c, at);
      report[outcome]++;
      if (outcome === 'rejected' || outcome === 'unavailable')
        opts.log?.warn(
          { event: 'inbox.digest_failed', user_id: c.user_id, outcome },
          'digest not sent; the member stays due',
        );
    });
    opts.log?.info(
      { event: 'inbox.digest_progress', ...report, elapsed_ms: Date.now() - started },
      'digest job progress',
    );
  }
  return report;
}

type Outcome =
  | 'sent'
  | 'already_sent'
  | 'skipped_no_items'
  | 'skipped_unsubscribed'
  | 'in_flight_elsewhere'
  | 'rejected'
  | 'unavailable';

async function digestFor(o: InboxOptions, c: Candidate, at: Date): Promise<Outcome> {
  const since = [c.last_digest_sent_at, c.opted_in_at]
    .filter((d): d is Date => d !== null)
    .reduce<Date | undefined>((a, d) => (a === undefined || d > a ? d : a), undefined);
  const window: Omit<FeedQuery, 'limit' | 'active'> = { userId: c.user_id, until: at, ...(since && { after: since }) };
  // Items for Active members count only if this member is Active: ask the canister only when such
  // items are pending (most runs never need it).
  // Decision N27: no reminder for a vote the member's ballot is already in.
  const cast = ballotsCastBy(o, { user_id: c.user_id, principal: c.principal });
  let active = true;
  let page = await feedPage(o.db, { ...window, active, limit: DIGEST_MAX_ITEMS, withAudience: true }, cast);
  if (page.items.some((i) => i.audience === 'active') && !(await isActive(o, c.principal))) {
    active = false;
    page = await feedPage(o.db, { ...window, active, limit: DIGEST_MAX_ITEMS, withAudience: true }, cast);
  }
  const { items } = page;
  if (items.length === 0) return 'skipped_no_items';
  // Past the first 50 the count includes reminders the member no longer needs: "+N more" may say a few too many.
  const total = page.next_before_id === null ? items.length : await countFeed(o.db, { ...window, active });
  const [email, name] = await Promise.all([
    o.openField('email', c.email_encrypted),
    o.openField('name', c.name_encrypted),
  ]);
  // An unsubscribe that arrived while this run was going on wins (spec 3: `none` excludes the user):
  // checked again right before the send.
  const still = await o.db
    .selectFrom('digest_preferences')
    .select('digest_frequency')
    .where('user_id', '=', c.user_id)
    .executeTakeFirst();
  if (!still || still.digest_frequency === 'none') return 'skipped_unsubscribed';
  const r = await o.notifier.send(
    {
      type: 'notification-digest',
      to: email.trim(),
      domain: o.brandDomain,
      data: {
        recipient_name: name,
        digest_frequency: c.digest_frequency,
        items: items.map((i) => {
          // Decision N29: the deadline worded at the run's instant, in UTC (the bridge knows no member's zone).
          const body = [i.body, i.closes_at && closesSentence(Date.parse(i.closes_at), at.getTime())]
            .filter(Boolean)
            .join(' ');
          return {
            title: i.title,
            created_at: i.created_at,
            category: i.category,
            ...(body !== '' && { body: clip(body, 500) }),
            ...(i.deep_link !== null && { deep_link: i.deep_link }),
          };
        }),
        total_count: total,
        unsubscribe_url: unsubscribeUrl(o, c.user_id, at.getTime()),
        inbox_url: `${o.linkBase}/activity`,
      },
    },
    { idempotencyKey: digestKey(c.user_id, c.last_digest_sent_at) },
  );
  let outcome: Outcome;
  if (r.ok) outcome = 'sent';
  // Decision N11: the key was already used for a successful send whose body differed (a retry at a
  // later slot): that digest went out; record it instead of mailing again.
  else if (r.reason === 'rejected' && r.error === 'idempotency_key_reused') outcome = 'already_sent';
  // The same key in flight elsewhere (a second instance without the job's lease): that send decides.
  else if (r.reason === 'rejected' && r.error === 'idempotency_conflict') return 'in_flight_elsewhere';
  else return r.reason === 'rejected' ? 'rejected' : 'unavailable';
  let stamp = o.db.updateTable('digest_preferences').set({ last_digest_sent_at: at }).where('user_id', '=', c.user_id);
  stamp =
    c.last_digest_sent_at === null
      ? stamp.where('last_digest_sent_at', 'is', null)
      : stamp.where('last_digest_sent_at', '=', c.last_digest_sent_at);
  await stamp.execute();
  return outcome;
}

export function digestKey(userId: string, lastSent: Date | null): string {
  return `digest:${userId}:${lastSent ? lastSent.toISOString() : 'never'}`;
}
