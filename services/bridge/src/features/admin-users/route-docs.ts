// What the OpenAPI document says of this feature's routes (decision B124): each route's schema spreads its
// doc through routeSchema() beside the handler.
import { Type } from '@sinclair/typebox';
import { ADMIN_ERRORS, err, Json, type RouteDoc } from '../../core/http/route-doc.ts';

export const listUsersDoc: RouteDoc = {
  operationId: 'listUsers',
  description:
    'Admin session required; the email filter is matched through the blind index, never decrypted in bulk (decision B39).',
  summary:
    'Find users: exact email (blind index), part of the display name or whole words of the registration name (keyed word index, decision B106), role, membership status; paged by cursor (decision B39)',
  tag: 'admin',
  security: 'admin',
  responses: {
    200: Json(
      'a page in user-id order; with a status filter a page may hold fewer than `limit` (even none) while next_cursor is set: follow it until null',
      Type.Object({
        users: Type.Array(
          Type.Object({
            user_id: Type.String({ format: 'uuid' }),
            principal: Type.String(),
            email: Type.Union([Type.String(), Type.Null()], {
              description: 'the account email, opened for admins only (decision F28); null when it cannot be opened',
            }),
            display_name: Type.String({ description: 'decision F22' }),
            registration_name: Type.Union([Type.String(), Type.Null()], {
              description:
                'the name given at registration, opened for admins only (decisions F48, B106); null when it cannot be opened',
            }),
            roles: Type.Array(Type.String()),
            email_verified: Type.Boolean(),
            kyc_status: Type.String(),
            kyc_reference: Type.Union([Type.String(), Type.Null()], {
              description:
                'the KYC decision’s reference (POST /api/admin/users/{user_id}/kyc): a provider’s case, `rejected: <reason>` from the console, or `admin:<id>:<time>`; null before a decision (decision F35)',
            }),
            membership_status: Type.String({ description: 'none, Registered, Active, Expired or Revoked' }),
            created_at: Type.String({ format: 'date-time' }),
          }),
        ),
        next_cursor: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
    400: err('VALIDATION_ERROR (limit, role, status or cursor)'),
    ...ADMIN_ERRORS,
    503: err('MEMBERSHIP_UNAVAILABLE or SESSION_STORE_UNAVAILABLE'),
  },
};
