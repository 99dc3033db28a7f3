// The activity feed (decisions N7–N8): items members care about, each with what the digest
// needs (title ≤ 200, body ≤ 500, https deep_link, created_at, category ≤ 32) and an audience:
// everyone, Active members, or one user. Producers add items under a unique key (a replayed event adds
// nothing); GET /api/me/activity pages through what the signed-in member may see, newest first.
import { sql, type Kysely, type Transaction } from 'kysely';
import { Type } from '@sinclair/typebox';
import { withoutBidiControls } from '@domdao/canister-kit/bidi';
import type { Database, Db } from '../../core/db/index.ts';
import { Int8Text } from '../../core/http/decimal.ts';
import type { InboxOptions } from './options.ts';
import type { BridgeApp } from '../../core/http/typed.ts';

export type Audience = { kind: 'all' } | { kind: 'active' } | { kind: 'user'; user_id: string };

export interface NewActivity {
  category: string;
  title: string;
  body?: string;
  deep_link?: string;
  audience: Audience;
}

export interface ActivityView {
  id: string;
  category: string;
  title: string;
  body: string | null;
  deep_link: string | null;
  created_at: string;
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
export async function addActivity(db: Kysely<Database> | Transaction<Database>, key: string, item: NewActivity, now: Date): Promise<boolean> {
  if (item.deep_link !== undefined && !item.deep_link.startsWith('https://')) throw new Error(`activity deep_link must be https: ${item.deep_link}`);
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
  let query = db.selectFrom('activity_items').select(['id', 'category', 'title', 'body', 'deep_link', 'created_at', 'audience']).where(visible(q));
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
    ...(q.withAudience && { audience: r.audience }),
  }));
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
  created_at: Type.String({ format: 'date-time' }),
});
const ErrorBody = Type.Object({ error: Type.String(), message: Type.String(), request_id: Type.String() });

export async function activityRoutes(app: BridgeApp, o: InboxOptions): Promise<void> {
  app.get(
    '/api/me/activity',
    {
      schema: {
        summary: "The signed-in member's activity feed, newest first, keyset-paged by before_id (decisions N7–N8)",
        operationId: 'listMyActivity',
        description: 'Session required; items for everyone, for Active members while the member is Active, and for the member alone (decision N7).',
        tags: ['inbox'],
        security: [{ sessionCookie: [] }],
        querystring: Type.Object(
          {
            before_id: Type.Optional(Int8Text('cursor: items older than this id (next_before_id of the previous page)')),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ items: Type.Array(ActivityItemBody), next_before_id: Type.Union([Type.String(), Type.Null()]) }),
          400: { description: 'VALIDATION_ERROR', ...ErrorBody },
          401: { description: 'UNAUTHORIZED', ...ErrorBody },
        },
      },
    },
    async (req, reply) => {
      const s = await o.requireSession(req);
      const q = req.query;
      const limit = q.limit ?? 20;
      const active = await isActive(o, s.principal);
      const items = await feed(o.db, { userId: s.user_id, active, limit, ...(q.before_id !== undefined && { beforeId: q.before_id }) });
      reply.header('cache-control', 'private, no-store');
      return { items, next_before_id: items.length === limit ? items[items.length - 1]!.id : null };
    },
  );
}

/** Active now; an unreachable membership canister counts as not Active (the feed still answers). */
export async function isActive(o: Pick<InboxOptions, 'membership'>, principal: string): Promise<boolean> {
  try {
    return (await o.membership.get_membership_status(principal))?.is_active === true;
  } catch {
    return false;
  }
}
