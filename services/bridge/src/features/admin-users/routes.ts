// GET /api/admin/users (decision B39): an admin finds users by exact email (through the blind index: the address is
// never stored in clear), by name (part of the display name, or whole words of the name given at registration through
// its keyed word index, decision B106), by role, and by membership status (asked of the membership canister). Ordered
// by user id, paged with an opaque cursor. A status filter cannot be pushed into the database, so such a page scans at
// most SCAN_BUDGET users and may hold fewer than `limit` (even none) while `next_cursor` says more remain: follow it
// until it is null.
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { CanisterClients } from '@domdao/canisters';
import type { Guards } from '../../core/auth/guards.ts';
import type { Db } from '../../core/db/schema.ts';
import { USER_ID_PATTERN } from '../../core/identity/user-id.ts';
import { HttpError } from '../../core/http/errors.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import { listUsersDoc } from './route-docs.ts';

export interface AdminUsersOptions {
  db: Db;
  membership: Pick<CanisterClients['membership'], 'get_membership_status'>;
  blindIndex(email: string): Uint8Array;
  guards: Pick<Guards, 'admin'>;
  /** The address from its sealed copy (decision F28: admins see users' emails; other members never do). */
  openEmail(sealed: string): Promise<string>;
  /** The registration name from its sealed copy (decision F48: admins only). */
  openName(sealed: string): Promise<string>;
  /** The keyed word index of a name (decision B106), for a search's words and for accounts made before it. */
  nameIndex(name: string): Uint8Array[];
}

export const SCAN_BUDGET = 500;
export const STATUSES = ['none', 'Registered', 'Active', 'Expired', 'Revoked'] as const;
const ROLE_FILTERS = ['user', 'member', 'admin', 'moderator', 'developer'] as const;

const Query = Type.Object(
  {
    email: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 254,
        description: 'exact address (case, spacing and Unicode form ignored)',
      }),
    ),
    name: Type.Optional(
      Type.String({
        minLength: 2,
        maxLength: 64,
        description:
          'part of the display name, chosen or default (case ignored; decision F28), or whole words of the name given at registration (case and accents ignored; decision B106)',
      }),
    ),
    role: Type.Optional(
      Type.Union(
        ROLE_FILTERS.map((r) => Type.Literal(r)),
        { description: '`user` = no explicit role' },
      ),
    ),
    status: Type.Optional(
      Type.Union(
        STATUSES.map((s) => Type.Literal(s)),
        { description: 'membership status now; `none` = no membership token' },
      ),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(
      Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'next_cursor of the previous page' }),
    ),
  },
  { additionalProperties: false },
);

const encodeCursor = (id: string) => Buffer.from(id).toString('base64url');
function decodeCursor(c: string): string {
  const id = Buffer.from(c, 'base64url').toString('utf8');
  if (!new RegExp(USER_ID_PATTERN).test(id))
    throw new HttpError(400, 'VALIDATION_ERROR', 'cursor is not a next_cursor of this endpoint');
  return id;
}

export default async function adminUsers(app: BridgeApp, opts: AdminUsersOptions): Promise<void> {
  // Decision B106: accounts made before the index get theirs in the background, a batch at a time.
  let closing = false;
  const filling = fillNameIndex(opts, () => closing).catch((e: unknown) =>
    app.log.warn(
      { event: 'admin_users.name_index_failed', err: e instanceof Error ? e.message : String(e) },
      'filling the registration-name index failed; the next start tries again',
    ),
  );
  app.addHook('onClose', async () => {
    closing = true;
    await filling;
  });
  app.addHook('preHandler', opts.guards.admin);
  app.get('/api/admin/users', { schema: { ...routeSchema(listUsersDoc), querystring: Query } }, async (req) => {
    const q = req.query;
    const limit = q.limit ?? 50;
    const after = q.cursor !== undefined ? decodeCursor(q.cursor) : undefined;
    // Without a status filter the database filters everything and a page is exactly `limit` rows.
    const batch = q.status === undefined ? limit + 1 : Math.min(SCAN_BUDGET, 100) + 1;
    const budget = q.status === undefined ? limit : SCAN_BUDGET;
    const found: Array<Record<string, unknown>> = [];
    let cursor = after;
    let scanned = 0;
    let more = true;
    while (found.length < limit && scanned < budget && more) {
      let query = opts.db
        .selectFrom('users')
        .select([
          'id',
          'principal',
          'roles',
          'email_verified_at',
          'kyc_status',
          'kyc_reference',
          'created_at',
          'email_encrypted',
          'display_name',
          'default_name',
          'name_encrypted',
        ])
        .orderBy('id')
        .limit(Math.min(batch, budget - scanned + 1));
      if (cursor !== undefined) query = query.where('id', '>', cursor);
      if (q.email !== undefined) query = query.where('email_index', '=', opts.blindIndex(q.email));
      if (q.name !== undefined) {
        const like = `%${q.name
          .trim()
          .toLowerCase()
          .replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        const words = opts.nameIndex(q.name);
        query = query.where(({ or }) =>
          or([
            sql<boolean>`lower(coalesce(display_name, default_name)) like ${like} escape '\\'`,
            // Every word of the search among the registration name's (decision B106).
            ...(words.length > 0 ? [sql<boolean>`name_index @> ${words}::bytea[]`] : []),
          ]),
        );
      }
      if (q.role === 'user') query = query.where(sql<boolean>`cardinality(roles) = 0`);
      else if (q.role !== undefined) query = query.where(sql<boolean>`roles @> array[${q.role}]::text[]`);
      const rows = await query.execute();
      const take = Math.min(rows.length, budget - scanned);
      more = rows.length > take;
      for (const row of rows.slice(0, take)) {
        scanned++;
        cursor = row.id;
        let token;
        try {
          token = await opts.membership.get_membership_status(row.principal);
        } catch (e) {
          req.log.warn(
            { event: 'canister.unavailable', canister: 'membership', err: e instanceof Error ? e.message : String(e) },
            'membership status unavailable',
          );
          throw new HttpError(503, 'MEMBERSHIP_UNAVAILABLE', 'the membership canister did not answer; try again');
        }
        const status = token ? token.status : 'none';
        if (q.status !== undefined && status !== q.status) continue;
        found.push({
          user_id: row.id,
          principal: row.principal,
          email: await opts.openEmail(row.email_encrypted).then(
            (e) => e.trim(),
            () => null,
          ),
          display_name: row.display_name ?? row.default_name,
          registration_name: await opts.openName(row.name_encrypted).then(
            (n) => n.trim(),
            () => null,
          ),
          roles: row.roles.length ? row.roles : ['user'],
          email_verified: row.email_verified_at !== null,
          kyc_status: row.kyc_status,
          // Decision F35: the decision's reference, so a rejection's reason can be read later.
          kyc_reference: row.kyc_reference,
          membership_status: status,
          created_at: new Date(row.created_at).toISOString(),
        });
        if (found.length === limit) {
          // A full page: more remain if this batch or the table goes on.
          more = more || rows.indexOf(row) < take - 1;
          break;
        }
      }
    }
    return { users: found, next_cursor: more && cursor !== undefined ? encodeCursor(cursor) : null };
  });
}

/** Decision B106: fills `name_index` of accounts made before it, 100 at a time, until none is left or the bridge closes. */
async function fillNameIndex(opts: AdminUsersOptions, closing: () => boolean): Promise<void> {
  for (;;) {
    if (closing()) return;
    const rows = await opts.db
      .selectFrom('users')
      .select(['id', 'name_encrypted'])
      .where('name_index', 'is', null)
      .orderBy('id')
      .limit(100)
      .execute();
    if (rows.length === 0) return;
    for (const r of rows) {
      if (closing()) return;
      // An unreadable name gets an empty index: it is never found by name, and never tried again.
      const index = await opts.openName(r.name_encrypted).then(opts.nameIndex, () => []);
      await opts.db
        .updateTable('users')
        .set({ name_index: index })
        .where('id', '=', r.id)
        .where('name_index', 'is', null)
        .execute();
    }
  }
}
