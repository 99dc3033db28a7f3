// What the OpenAPI document says of this feature's routes (decision B124): each route's schema spreads its
// doc through routeSchema() beside the handler.
import { Type } from '@sinclair/typebox';
import { ADMIN_ERRORS, err, Json, type RouteDoc } from '../../core/http/route-doc.ts';

export const getUserRolesDoc: RouteDoc = {
  operationId: 'getUserRoles',
  description: 'Admin session required (decision B10).',
  summary: "A user's roles",
  tag: 'admin',
  security: 'admin',
  responses: {
    200: Json('roles', Type.Object({ user_id: Type.String(), roles: Type.Array(Type.String()) })),
    400: err('VALIDATION_ERROR'),
    ...ADMIN_ERRORS,
    404: err('NOT_FOUND'),
  },
};

export const grantUserRoleDoc: RouteDoc = {
  operationId: 'grantUserRole',
  description:
    "Admin session required; the role is stored now and lands in the user's session at their next login (decision B10).",
  summary: 'Grant admin, moderator or developer (effective at the next login; decision B10)',
  tag: 'admin',
  security: 'admin',
  responses: {
    200: Json(
      'granted',
      Type.Object({ user_id: Type.String(), roles: Type.Array(Type.String()), effective: Type.String() }),
    ),
    400: err('VALIDATION_ERROR: not an assignable role'),
    ...ADMIN_ERRORS,
    404: err('NOT_FOUND'),
  },
};

export const revokeUserRoleDoc: RouteDoc = {
  operationId: 'revokeUserRole',
  description:
    "Admin session required; the user's sessions end at once so the revocation takes effect immediately (decision B34).",
  summary: "Revoke admin, moderator or developer; ends the user's sessions at once (decisions B10, B34)",
  tag: 'admin',
  security: 'admin',
  responses: {
    200: Json(
      'revoked; every session of the user ended',
      Type.Object({
        user_id: Type.String(),
        roles: Type.Array(Type.String()),
        effective: Type.String(),
        sessions_ended: Type.Integer(),
      }),
    ),
    400: err('VALIDATION_ERROR'),
    ...ADMIN_ERRORS,
    404: err('NOT_FOUND'),
    409: err('CONFLICT: an admin cannot revoke their own admin role'),
  },
};
