// Spec 2 Roles, decision B10: admin-only endpoints to grant and revoke `moderator`, `admin` and
// `developer`. Roles are read at login and cached in the session: a grant applies at the next login;
// a revocation ends the user's sessions at once (decision B34).
import { Type } from '@sinclair/typebox';
import { signedIn, type Guards } from '../../core/auth/guards.ts';
import type { SessionManager } from '../../core/auth/sessions.ts';
import type { Db } from '../../core/db/schema.ts';
import { HttpError } from '../../core/http/errors.ts';
import { USER_ID_PATTERN as UUID } from '../../core/identity/user-id.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import type { AuditRecorder } from '../../core/audit/log.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import { getUserRolesDoc, grantUserRoleDoc, revokeUserRoleDoc } from './route-docs.ts';

export const ASSIGNABLE = ['admin', 'moderator', 'developer'] as const;

export interface RolesOptions {
  db: Db;
  /** A revocation ends the user's sessions (decision B34). */
  sessions: Pick<SessionManager, 'destroyAllFor'>;
  guards: Pick<Guards, 'admin'>;
  /** Grants and revocations are audited in the transaction that makes them (decision B61). */
  audit: AuditRecorder;
}

export default async function roles(app: BridgeApp, { db, sessions, guards, audit }: RolesOptions): Promise<void> {
  app.addHook('preHandler', guards.admin);
  const params = Type.Object({ user_id: Type.String({ pattern: UUID }) });

  app.get('/api/admin/users/:user_id/roles', { schema: { ...routeSchema(getUserRolesDoc), params } }, async (req) => {
    const { user_id } = req.params;
    const u = await db.selectFrom('users').select('roles').where('id', '=', user_id).executeTakeFirst();
    if (!u) throw new HttpError(404, 'NOT_FOUND', 'no such user');
    return { user_id, roles: u.roles.length ? u.roles : ['user'] };
  });

  app.post(
    '/api/admin/users/:user_id/roles',
    { schema: { ...routeSchema(grantUserRoleDoc), params, body: Type.Object({ role: Type.String() }) } },
    async (req) => {
      const admin = signedIn(req);
      const { user_id } = req.params;
      const { role } = req.body;
      // Case-sensitive and lowercase (spec 2): `Admin` is not a role.
      if (!(ASSIGNABLE as readonly string[]).includes(role))
        throw new HttpError(400, 'VALIDATION_ERROR', `role must be one of ${ASSIGNABLE.join(', ')} (lowercase)`);
      const roles = await db.transaction().execute(async (tx) => {
        const u = await tx.selectFrom('users').select('roles').where('id', '=', user_id).forUpdate().executeTakeFirst();
        if (!u) throw new HttpError(404, 'NOT_FOUND', 'no such user');
        const next = [...new Set([...u.roles, role])];
        await tx.updateTable('users').set({ roles: next }).where('id', '=', user_id).execute();
        await audit.record(
          req,
          { event: 'roles.granted', actor: admin.user_id, subject: user_id, outcome: 'success', detail: { role } },
          tx,
        );
        return next;
      });
      return { user_id, roles, effective: 'at the next login' };
    },
  );

  app.delete(
    '/api/admin/users/:user_id/roles/:role',
    {
      schema: {
        ...routeSchema(revokeUserRoleDoc),
        params: Type.Object({ user_id: Type.String({ pattern: UUID }), role: Type.String() }),
      },
    },
    async (req) => {
      const admin = signedIn(req);
      const { user_id, role } = req.params;
      if (!(ASSIGNABLE as readonly string[]).includes(role))
        throw new HttpError(400, 'VALIDATION_ERROR', `only ${ASSIGNABLE.join(', ')} can be revoked here`);
      if (role === 'admin' && user_id === admin.user_id)
        throw new HttpError(409, 'CONFLICT', 'an admin cannot revoke their own admin role');
      const roles = await db.transaction().execute(async (tx) => {
        const u = await tx.selectFrom('users').select('roles').where('id', '=', user_id).forUpdate().executeTakeFirst();
        if (!u) throw new HttpError(404, 'NOT_FOUND', 'no such user');
        const next = u.roles.filter((r) => r !== role);
        await tx.updateTable('users').set({ roles: next }).where('id', '=', user_id).execute();
        await audit.record(
          req,
          { event: 'roles.revoked', actor: admin.user_id, subject: user_id, outcome: 'success', detail: { role } },
          tx,
        );
        return next;
      });
      // Decision B34: a revocation is a security event: the user's sessions (which cache the old roles)
      // end now, in whichever store holds them; the next login reads the new roles.
      const ended = await sessions.destroyAllFor(user_id);
      req.log.info(
        { event: 'roles.sessions_ended', user_id, sessions_ended: ended },
        "the revoked user's sessions ended",
      );
      return { user_id, roles, effective: "now: the user's sessions ended", sessions_ended: ended };
    },
  );
}
