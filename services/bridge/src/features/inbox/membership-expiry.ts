// Decision N24: the "membership nearing expiry" feed item. The bridge learns each membership's expiry
// from its own MembershipActivated events (the latest per member wins: a renewal moves it); a member
// whose latest expiry falls within EXPIRY_NOTICE_MS gets one MembershipExpiring event for that expiry
// (keyed on it, so each hourly pass and each instance adds nothing new, and a renewal that is itself
// soon to expire gets its own notice).
import { sql } from 'kysely';
import type { InboxOptions } from './options.ts';

export const EXPIRY_NOTICE_MS = 14 * 86_400_000;

export async function announceExpiringMemberships(
  o: Pick<InboxOptions, 'db' | 'events' | 'now'>,
): Promise<{ expiring: number; announced: number }> {
  const now = o.now();
  const { rows } = await sql<{ user_id: string; expires_at: string }>`
    select distinct on (data->>'user_id') data->>'user_id' as user_id, data->>'expires_at' as expires_at
    from bridge_events where type = 'MembershipActivated'
    order by data->>'user_id', seq desc`.execute(o.db);
  let expiring = 0;
  let announced = 0;
  for (const r of rows) {
    const at = Date.parse(r.expires_at);
    if (!(at > now && at - now <= EXPIRY_NOTICE_MS)) continue;
    expiring += 1;
    if (
      await o.events.publish(
        'MembershipExpiring',
        { user_id: r.user_id, expires_at: r.expires_at },
        { sourceId: `expiring:${r.user_id}:${r.expires_at}` },
      )
    )
      announced += 1;
  }
  return { expiring, announced };
}
