// The activity feed (decisions N7–N8): items members care about, each with what the digest
// needs (title ≤ 200, body ≤ 500, https deep_link, created_at, category ≤ 32) and an audience:
// everyone, Active members, or one user. Producers add items under a unique key (a replayed event adds
// nothing); GET /api/me/activity pages through what the signed-in member may see, newest first.
import { sql, type Kysely, type Transaction } from 'kysely';
import { Type } from '@sinclair/typebox';
import { withoutBidiControls } from '@domdao/canister-kit/bidi';
import type { Database, Db } from '../../core/db/schema.ts';
import { Int8Text } from '../../core/http/decimal.ts';
import type { InboxOptions } from './options.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { StrictErrorBody } from '../../core/http/route-doc.ts';

export type Audience = { kind: 'all' } | { kind: 'active' } | { kind: 'user'; user_id: string };

export interface NewActivity {
  category: string;
  title: string;
  body?: string;
  deep_link?: string;
  audience: Audience;
  /** The proposal the item is about. */
  proposal_id?: string;
  /** The voting deadline the item speaks of; the text never embeds it (decision N29). */
  closes_at?: Date;
  /** A call to vote: hidden from a member whose ballot is in (decision N27); needs proposal_id. */
  reminder?: boolean;
}

export interface ActivityView {
  id: string;
  category: string;
  title: string;
  body: string | null;
  deep_link: string | null;
  created_at: string;
  proposal_id: string | null;
  closes_at: string | null;
  reminder: boolean;
}

/** Clips to the digest's limits by code point, with an ellipsis, so an item is never refused for length. */
export function clip(s: string, max: number): string {
  const cps = [...s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, ' ').trim()];
  return cps.length <= max
    ? cps.join('')
    : `${cps
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}

const oneLine = (s: string) => s.replace(/[\r\n\t]+/g, ' ');

/** Adds an item once per key; created_at is the bridge's clock at insertion (decision N8). */
export async function addActivity(
  db: Kysely<Database> | Transaction<Database>,
  key: string,
  item: NewActivity,
  now: Date,
): Promise<boolean> {
  if (item.deep_link !== undefined && !item.deep_link.startsWith('https://'))
    throw new Error(`activity deep_link must be https: ${item.deep_link}`);
  const r = await db
    .insertInto('activity_items')
    .values({
      source_key: key,
      audience: item.audience.kind,
      user_id: item.audience.kind === 'user' ? item.audience.user_id : null,
      category: clip(oneLine(item.category), 32),
      title: clip(oneLine(item.title), 200),
      body: item.body === undefined ? null : clip(item.body, 500),
      deep_link: item.deep_link ?? null,
      created_at: now,
      proposal_id: item.proposal_id ?? null,
      closes_at: item.closes_at ?? null,
      reminder: item.reminder === true && item.proposal_id !== undefined,
    })
    .onConflict((oc) => oc.column('source_key').doNothing())
    .returning('id')
    .executeTakeFirst();
  return r !== undefined;
}

export interface FeedQuery {
  userId: string;
  /** Whether items for Active members are visible to this user. */
  active: boolean;
  /** Only items created after this instant (exclusive) … */
  after?: Date;
  /** … and at or before this one (inclusive). */
  until?: Date;
  /** Keyset cursor: items older than this id. */
  beforeId?: string;
  limit: number;
  /** Also return each item's audience (the digest needs it). */
  withAudience?: boolean;
}

const visible = (q: FeedQuery) =>
  sql<boolean>`(audience = 'all' or (audience = 'user' and user_id = ${q.userId})${q.active ? sql` or audience = 'active'` : sql``})`;

/**
 * Newest first (ids follow insertion, as created_at does). Titles and bodies quote proposals and
 * campaigns, so bidi controls are dropped as they are read (decision F41): the feed, the /activity page
 * and the digest show them as typed, rows stored before included.
 */
export async function feed(db: Db, q: FeedQuery): Promise<Array<ActivityView & { audience?: string }>> {
  let query = db
    .selectFrom('activity_items')
    .select([
      'id',
      'category',
      'title',
      'body',
      'deep_link',
      'created_at',
      'audience',
      'proposal_id',
      'closes_at',
      'reminder',
    ])
    .where(visible(q));
  if (q.after) query = query.where('created_at', '>', q.after);
  if (q.until) query = query.where('created_at', '<=', q.until);
  if (q.beforeId !== undefined) query = query.where('id', '<', q.beforeId);
  const rows = await query.orderBy('id', 'desc').limit(q.limit).execute();
  return rows.map((r) => ({
    id: String(r.id),
    category: r.category,
    title: withoutBidiControls(r.title),
    body: r.body === null ? null : withoutBidiControls(r.body),
    deep_link: r.deep_link,
    created_at: new Date(r.created_at).toISOString(),
    proposal_id: r.proposal_id === null ? null : String(r.proposal_id),
    closes_at: r.closes_at === null ? null : new Date(r.closes_at).toISOString(),
    reminder: r.reminder,
    ...(q.withAudience && { audience: r.audience }),
  }));
}

/** The proposals among `ids` on which the member's ballot is in (decision N27). */
export type BallotsCast = (proposalIds: string[]) => Promise<Set<string>>;

/**
 * Decision N27: a ballot that counts for the member, their own or a delegate's (the canister's
 * get_my_ballot, asked as the member), means no reminder. A read that fails shows the reminder: a
 * needless reminder costs less than a missing one.
 */
export function ballotsCastBy(
  o: Pick<InboxOptions, 'governanceAs'>,
  member: { user_id: string; principal: string },
): BallotsCast {
  return async (ids) => {
    if (ids.length === 0) return new Set();
    const g = await o.governanceAs(member);
    const cast = await Promise.all(
      ids.map((id) =>
        g.get_my_ballot(BigInt(id)).then(
          (b) => b !== undefined,
          () => false,
        ),
      ),
    );
    return new Set(ids.filter((_, i) => cast[i]));
  };
}

export interface FeedPage<T> {
  items: T[];
  /** The cursor of the next page, null exactly when no older item is visible (decision N30). */
  next_before_id: string | null;
}

/**
 * One page of what the member sees (decision N30): reminders for proposals they have voted on are
 * skipped without making the page short, and one row past the limit says whether there is more.
 */
export async function feedPage(
  db: Db,
  q: FeedQuery,
  cast: BallotsCast,
): Promise<FeedPage<ActivityView & { audience?: string }>> {
  const shown: Array<ActivityView & { audience?: string }> = [];
  let beforeId = q.beforeId;
  for (;;) {
    const rows = await feed(db, { ...q, limit: q.limit + 1, ...(beforeId !== undefined && { beforeId }) });
    const asked = [...new Set(rows.flatMap((r) => (r.reminder && r.proposal_id !== null ? [r.proposal_id] : [])))];
    const voted = await cast(asked);
    for (const r of rows) if (!(r.reminder && r.proposal_id !== null && voted.has(r.proposal_id))) shown.push(r);
    if (shown.length > q.limit || rows.length <= q.limit) break;
    beforeId = rows[rows.length - 1]!.id;
  }
  const items = shown.slice(0, q.limit);
  return { items, next_before_id: shown.length > q.limit ? items[items.length - 1]!.id : null };
}

export async function countFeed(db: Db, q: Omit<FeedQuery, 'limit' | 'beforeId' | 'withAudience'>): Promise<number> {
  let query = db
    .selectFrom('activity_items')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where(visible({ ...q, limit: 0 }));
  if (q.after) query = query.where('created_at', '>', q.after);
  if (q.until) query = query.where('created_at', '<=', q.until);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

export const ActivityItemBody = Type.Object({
  id: Type.String(),
  category: Type.String({ maxLength: 32 }),
  title: Type.String({ maxLength: 200 }),
  body: Type.Union([Type.String({ maxLength: 500 }), Type.Null()]),
  deep_link: Type.Union([Type.String(), Type.Null()], { description: 'https link to the thing itself' }),
  created_at: Type.String({
    format: 'date-time',
    description: 'when it happened; show it relative and in the reader’s zone (decision N29)',
  }),
  proposal_id: Type.Union([Type.String(), Type.Null()], { description: 'the proposal the item is about, if any' }),
  closes_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      'the voting deadline the item speaks of ("Voting closes in 2 minutes"); texts never embed it (decision N29)',
  }),
});

export async function activityRoutes(app: BridgeApp, o: InboxOptions): Promise<void> {
  app.get(
    '/api/me/activity',
    {
      schema: {
        summary:
          "The signed-in member's activity feed, newest first, keyset-paged by before_id (decisions N7–N8, N27, N30)",
        operationId: 'listMyActivity',
        description:
          'Session required; items for everyone, for Active members while the member is Active, and for the member alone (decision N7). ' +
          'A reminder to vote is left out once the member’s ballot (their own or a delegate’s) is in (decision N27). ' +
          'Paging (decision N30): at most `limit` items (1–100, default 20), newest first; `next_before_id` is the cursor of the next, older page ' +
          '(pass it as `before_id`), null exactly when there is nothing older.',
        tags: ['inbox'],
        security: [{ sessionCookie: [] }],
        querystring: Type.Object(
          {
            before_id: Type.Optional(
              Int8Text('cursor: items older than this id (next_before_id of the previous page)'),
            ),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            items: Type.Array(ActivityItemBody),
            next_before_id: Type.Union([Type.String(), Type.Null()], {
              description: 'before_id of the next, older page; null: this is the last page',
            }),
          }),
          400: { description: 'VALIDATION_ERROR', ...StrictErrorBody },
          401: { description: 'UNAUTHORIZED', ...StrictErrorBody },
        },
      },
    },
    async (req, reply) => {
      const s = await o.requireSession(req);
      const q = req.query;
      const limit = q.limit ?? 20;
      const active = await isActive(o, s.principal);
      const page = await feedPage(
        o.db,
        { userId: s.user_id, active, limit, ...(q.before_id !== undefined && { beforeId: q.before_id }) },
        ballotsCastBy(o, s),
      );
      reply.header('cache-control', 'private, no-store');
      return { items: page.items.map(itemBody), next_before_id: page.next_before_id };
    },
  );
}

/** What the API shows of an item (its reminder flag is the bridge's). */
export const itemBody = (i: ActivityView) => ({
  id: i.id,
  category: i.category,
  title: i.title,
  body: i.body,
  deep_link: i.deep_link,
  created_at: i.created_at,
  proposal_id: i.proposal_id,
  closes_at: i.closes_at,
});

/** Active now; an unreachable membership canister counts as not Active (the feed still answers). */
export async function isActive(o: Pick<InboxOptions, 'membership'>, principal: string): Promise<boolean> {
  try {
    return (await o.membership.get_membership_status(principal))?.is_active === true;
  } catch {
    return false;
  }
}
