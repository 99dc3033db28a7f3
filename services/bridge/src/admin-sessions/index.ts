// Admin view of a user's sessions (issue 8 item 7, decision B35): GET lists the live sessions (times
// and cached roles; never ids or sealed data), DELETE ends them all at once, in whichever store holds
// them. Admin session only; the DELETE passes the cross-site guard like every cookie mutation.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { SessionManager } from '../auth/sessions.ts';
import type { Session } from '../auth/sessions.ts';
import type { Db } from '../db/index.ts';
import { USER_ID_PATTERN } from '../db/errors.ts';
import { HttpError } from '../http/errors.ts';

export interface AdminSessionsOptions {
  db: Db;
  sessions: SessionManager;
  /** Checks the cross-site rule, the session and the admin role (roles/routes.ts). */
  requireAdmin(req: FastifyRequest): Promise<Session>;
}

const params = Type.Object({ user_id: Type.String({ pattern: USER_ID_PATTERN }) });

export default async function adminSessions(app: FastifyInstance, opts: AdminSessionsOptions): Promise<void> {
  const known = async (userId: string) => {
    const u = await opts.db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
    if (!u) throw new HttpError(404, 'NOT_FOUND', 'no such user');
  };

  app.get('/api/admin/users/:user_id/sessions', { schema: { params } }, async (req) => {
    await opts.requireAdmin(req);
    const { user_id } = req.params as { user_id: string };
    await known(user_id);
    return { user_id, sessions: await opts.sessions.listFor(user_id) };
  });

  app.delete('/api/admin/users/:user_id/sessions', { schema: { params } }, async (req) => {
    const admin = await opts.requireAdmin(req);
    const { user_id } = req.params as { user_id: string };
    await known(user_id);
    const ended = await opts.sessions.destroyAllFor(user_id);
    req.log.info({ event: 'sessions.ended_by_admin', user_id, by: admin.user_id, sessions_ended: ended }, 'sessions ended by an admin');
    return { user_id, sessions_ended: ended };
  });
}
