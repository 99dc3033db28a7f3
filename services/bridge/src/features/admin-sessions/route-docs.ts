// What the OpenAPI document says of this feature's routes (decision B124): each route's schema spreads its
// doc through routeSchema() beside the handler.
import { Type } from '@sinclair/typebox';
import { ADMIN_ERRORS, err, Json, SessionSummary, STORE, type RouteDoc } from '../../core/http/route-doc.ts';

export const listUserSessionsDoc: RouteDoc = {
  operationId: 'listUserSessions',
  description: 'Admin session required; session ids are never shown (decision B35).',
  summary: "A user's live sessions: times and cached roles, never ids (decision B35)",
  tag: 'admin',
  security: 'admin',
  responses: {
    200: Json(
      'oldest first',
      Type.Object({
        user_id: Type.String(),
        sessions: Type.Array(SessionSummary),
      }),
    ),
    400: err('VALIDATION_ERROR'),
    ...ADMIN_ERRORS,
    404: err('NOT_FOUND'),
    ...STORE,
  },
};

export const endUserSessionsDoc: RouteDoc = {
  operationId: 'endUserSessions',
  description: 'Admin session required; ends every session of the user in whichever store holds them (decision B35).',
  summary: 'End every session of a user, in whichever store holds them (decision B35)',
  tag: 'admin',
  security: 'admin',
  responses: {
    200: Json('ended', Type.Object({ user_id: Type.String(), sessions_ended: Type.Integer() })),
    400: err('VALIDATION_ERROR'),
    ...ADMIN_ERRORS,
    404: err('NOT_FOUND'),
    ...STORE,
  },
};
