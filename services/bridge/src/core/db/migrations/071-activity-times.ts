// Activity items carry the instants they speak of (decisions N27–N29, F55): the proposal an item is
// about, its voting deadline, and whether it is a reminder to vote (hidden from a member whose ballot is
// in). Texts no longer embed a time: readers word it relative and in their zone. Rows written before
// are rewritten: the deadline moves from the body into `closes_at`, "Voting closes in an hour" becomes
// a reminder, and a delegate's principal gives way to their display name.
import { sql, type Kysely } from 'kysely';

const ISO = String.raw`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table activity_items add column proposal_id bigint, add column closes_at timestamptz, add column reminder boolean not null default false`.execute(
    db,
  );
  const link = String.raw`/proposals/(\d+)$`;
  await sql`update activity_items set proposal_id = substring(deep_link from ${link})::bigint where deep_link ~ ${link}`.execute(
    db,
  );
  await sql`update activity_items
    set closes_at = substring(body from ${`closes (${ISO})\\.`})::timestamptz,
        body = nullif(regexp_replace(regexp_replace(body, ${` ?Voting closes ${ISO}\\.`}, ''), ${` before voting closes ${ISO}\\.`}, ' before voting closes.'), '')
    where body ~ ${`closes ${ISO}\\.`}`.execute(db);
  await sql`update activity_items
    set reminder = true, title = regexp_replace(title, '^Voting closes in (an hour|24 hours): ', 'Voting closes soon: ')
    where category = 'Vote' and title ~ '^Voting closes in (an hour|24 hours): '`.execute(db);
  await sql`update activity_items a
    set body = replace(a.body, '(' || u.principal || ')', coalesce(u.display_name, u.default_name))
    from users u
    where a.title like 'Your delegate voted %' and strpos(a.body, '(' || u.principal || ')') > 0`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table activity_items drop column proposal_id, drop column closes_at, drop column reminder`.execute(
    db,
  );
}
