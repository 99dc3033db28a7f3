// What the OpenAPI document says of this feature's routes (decision B124): each route's schema spreads its
// doc through routeSchema() beside the handler.
import { Type } from '@sinclair/typebox';
import { err, Json, type RouteDoc } from '../../core/http/route-doc.ts';

export const sendTestEmailDoc: RouteDoc = {
  operationId: 'sendTestEmail',
  description: 'Bearer ACCESS_TOKEN required (spec 2 Authentication rule 4); unset, the route answers 503.',
  summary: 'Send the welcome email to an address through the notification service (decision B13)',
  tag: 'operations',
  security: 'bearer',
  responses: {
    200: Json(
      'sent',
      Type.Object({
        sent: Type.Literal(true),
        id: Type.Optional(Type.String()),
        stubbed: Type.Optional(Type.Boolean()),
      }),
    ),
    400: err('VALIDATION_ERROR'),
    401: err('UNAUTHORIZED: a valid bearer token (ACCESS_TOKEN) is required'),
    502: err('EMAIL_NOT_SENT'),
    503: err('NOT_CONFIGURED: ACCESS_TOKEN is not set'),
  },
};
