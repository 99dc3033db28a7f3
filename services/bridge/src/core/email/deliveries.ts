// One email to a member under its idempotency key (decisions N13, N14, N21): sent once (a sent key is
// never sent again, and the notification service replays a repeated key), a failure recorded with its
// reason and visible to admins at GET /api/admin/emails. Rows that answer an event are retried with
// backoff by `member-emails:retry`; the others (verification, password reset) are re-requested by the
// member. A send never throws into the business flow that caused it (spec 3 caller contract rule 1).
import { withoutBidiControlsDeep } from '@domdao/canister-kit/bidi';
import type { SendOutcome, SendRequest } from '@domdao/notification-client';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

export const MAX_ATTEMPTS = 6;
const BACKOFF_MS = 5 * 60_000;

export interface Delivery {
  key: string;
  userId: string | null;
  /** The event it answers: the retry rebuilds the email from it. */
  eventSeq?: string;
  request: SendRequest;
  /** The HTTP request that caused it, for the notification service's logs. */
  requestId?: string;
  /** False when a failure is not retried by the bridge (the member asks again, with a new link). */
  retry?: boolean;
}

export type DeliveryResult = 'sent' | 'already_sent' | 'failed';

export async function deliver(
  o: {
    db: Kysely<Database>;
    notifier: {
      send: (r: SendRequest, opts?: { idempotencyKey?: string; requestId?: string }) => Promise<SendOutcome>;
    };
    now(): number;
  },
  d: Delivery,
): Promise<DeliveryResult> {
  const prior = await o.db
    .selectFrom('email_deliveries')
    .select(['status', 'attempts'])
    .where('key', '=', d.key)
    .executeTakeFirst();
  if (prior?.status === 'sent') return 'already_sent';
  // Decision F41: what an email shows (subjects and texts quoting titles, names, reasons) carries no bidi control.
  const request = { ...d.request, data: withoutBidiControlsDeep(d.request.data) };
  const r = await o.notifier.send(request, {
    idempotencyKey: d.key,
    ...(d.requestId !== undefined && { requestId: d.requestId }),
  });
  const now = new Date(o.now());
  const attempts = (prior?.attempts ?? 0) + 1;
  const error = r.ok
    ? null
    : `${String(r.reason)}${r.status ? ` ${String(r.status)}` : ''}${r.error ? ` ${String(r.error)}` : ''}${Array.isArray(r.details) ? `: ${JSON.stringify(r.details).slice(0, 500)}` : ''}`;
  // A refused request (4xx) will be refused again: not retried, left for an admin to see.
  const retry =
    !r.ok && d.retry !== false && r.reason !== 'rejected' && attempts < MAX_ATTEMPTS
      ? new Date(now.getTime() + BACKOFF_MS * 2 ** (attempts - 1))
      : null;
  const row = {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- it keeps the column's literal type
    status: (r.ok ? 'sent' : 'failed') as 'sent' | 'failed',
    attempts,
    last_error: error,
    next_attempt_at: retry,
    updated_at: now,
  };
  await o.db
    .insertInto('email_deliveries')
    .values({
      key: d.key,
      template: d.request.type,
      user_id: d.userId,
      event_seq: d.eventSeq ?? null,
      created_at: now,
      ...row,
    })
    .onConflict((oc) => oc.column('key').doUpdateSet(row))
    .execute();
  return r.ok ? 'sent' : 'failed';
}
