// Admin view of a user's sessions (decision B35): GET lists the live sessions (times
// and cached roles; never ids or sealed data), DELETE ends them all at once, in whichever store holds
// them. Admin session only; the DELETE passes the cross-site guard like every cookie mutation.
import { Type } from '@sinclair/typebox';
import { signedIn, type Guards } from '../../core/auth/guards.ts';
import type { SessionManager } from '../../core/auth/sessions.ts';
import type { Db } from '../../core/db/schema.ts';
import { USER_ID_PATTERN } from '../../core/identity/user-id.ts';
import { HttpError } from '../../core/http/errors.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import type { AuditRecorder } from '../../core/audit/log.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import { listUserSessionsDoc, endUserSessionsDoc } from './route-docs.ts';

export interface AdminSessionsOptions {
  db: Db;
  sessions: SessionManager;
  /** `admin`: the cross-site rule, the session and the admin role, once for the scope. */
  guards: Pick<Guards, 'admin'>;
  audit: AuditRecorder;
}

const params = Type.Object({ user_id: Type.String({ pattern: USER_ID_PATTERN }) });

export default async function adminSessions(app: BridgeApp, opts: AdminSessionsOptions): Promise<void> {
  app.addHook('preHandler', opts.guards.admin);
  const known = async (userId: string) => {
    const u = await opts.db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
    if (!u) throw new HttpError(404, 'NOT_FOUND', 'no such user');
  };

  app.get(
    '/api/admin/users/:user_id/sessions',
    { schema: { ...routeSchema(listUserSessionsDoc), params } },
    async (req) => {
      const { user_id } = req.params;
      await known(user_id);
      return { user_id, sessions: await opts.sessions.listFor(user_id) };
    },
  );

  app.delete(
    '/api/admin/users/:user_id/sessions',
    { schema: { ...routeSchema(endUserSessionsDoc), params } },
    async (req) => {
      const admin = signedIn(req);
      const { user_id } = req.params;
      await known(user_id);
      const ended = await opts.sessions.destroyAllFor(user_id);
      await opts.audit.record(req, {
        event: 'sessions.ended',
        actor: admin.user_id,
        subject: user_id,
        outcome: 'success',
        detail: { scope: 'admin', sessions_ended: ended },
      });
      return { user_id, sessions_ended: ended };
    },
  );
}
