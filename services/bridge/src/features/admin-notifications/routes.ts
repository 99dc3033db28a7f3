// Spec 2 admin notifications: GET /api/admin/notifications lists what the user canister raised
// (`membership_mint_failed` after 10 failed mints), with the bridge user id beside each principal.
import { Type } from '@sinclair/typebox';
import type { Guards } from '../../core/auth/guards.ts';
import type { CanisterClients } from '@domdao/canisters';
import type { Db } from '../../core/db/schema.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import { listAdminNotificationsDoc } from './route-docs.ts';

export interface AdminNotificationsOptions {
  db: Db;
  /** The user canister, which raises the notifications. */
  user: Pick<CanisterClients['user'], 'list_admin_notifications'>;
  guards: Pick<Guards, 'admin'>;
}

/** Decision S28: the cursor typed by the route's schema; a bad one is 400 VALIDATION_ERROR, no longer ignored. */
const Query = Type.Object(
  { after_id: Type.Optional(Type.String({ pattern: '^\\d{1,19}$', description: 'only notifications after this id' })) },
  { additionalProperties: false },
);

export default async function adminNotifications(
  app: BridgeApp,
  { db, user, guards }: AdminNotificationsOptions,
): Promise<void> {
  app.addHook('preHandler', guards.admin);
  app.get(
    '/api/admin/notifications',
    { schema: { ...routeSchema(listAdminNotificationsDoc), querystring: Query } },
    async (req) => {
      const after = req.query.after_id;
      const afterId = after === undefined ? undefined : BigInt(after);
      const list = await user.list_admin_notifications(afterId, 100);
      const users = await Promise.all(
        list.map((n) =>
          db.selectFrom('users').select('id').where('principal', '=', n.user_principal).executeTakeFirst(),
        ),
      );
      return {
        notifications: list.map((n, i) => ({
          id: String(n.id),
          type: n.type,
          user_principal: n.user_principal,
          user_id: users[i]?.id ?? null,
          email_encrypted: n.email_encrypted,
          attempts: n.attempts,
          last_error: n.last_error,
          at: new Date(Number(n.at / 1_000_000n)).toISOString(),
        })),
      };
    },
  );
}
