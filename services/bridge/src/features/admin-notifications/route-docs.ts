// What the OpenAPI document says of this feature's routes (decision B124): each route's schema spreads its
// doc through routeSchema() beside the handler.
import { Type } from '@sinclair/typebox';
import { ADMIN_ERRORS, err, Json, type RouteDoc } from '../../core/http/route-doc.ts';

export const listAdminNotificationsDoc: RouteDoc = {
  operationId: 'listAdminNotifications',
  description: 'Admin session required; what the user canister raised for an operator.',
  summary: 'Admin notifications raised by the user canister (membership_mint_failed), `?after_id=`',
  tag: 'admin',
  security: 'admin',
  responses: {
    200: Json(
      'notifications, oldest first',
      Type.Object({
        notifications: Type.Array(
          Type.Object({
            id: Type.String(),
            type: Type.String({ description: 'membership_mint_failed' }),
            user_principal: Type.String(),
            user_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
            email_encrypted: Type.String(),
            attempts: Type.Integer(),
            last_error: Type.String(),
            at: Type.String({ format: 'date-time' }),
          }),
        ),
      }),
    ),
    400: err('VALIDATION_ERROR (after_id is not an id of 1 to 19 digits)'),
    ...ADMIN_ERRORS,
  },
};
