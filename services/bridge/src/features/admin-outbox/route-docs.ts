// What the OpenAPI document says of this feature's routes (decision B124): each route's schema spreads its
// doc through routeSchema() beside the handler.
import { Type } from '@sinclair/typebox';
import { ADMIN_ERRORS, err, Json, type RouteDoc } from '../../core/http/route-doc.ts';

export const listOutboxDoc: RouteDoc = {
  operationId: 'listOutbox',
  description: 'Admin session required; the outbox operations with their state, never their payloads (decision B29).',
  summary:
    'Cross-system operations of the outbox, newest first (`?state=pending|done|compensated`, `limit` ≤ 500; decision B29); never their payloads',
  tag: 'admin',
  security: 'admin',
  responses: {
    200: Json(
      'operations',
      Type.Object({
        operations: Type.Array(
          Type.Object({
            id: Type.String(),
            operation: Type.String(),
            op_id: Type.String(),
            aggregate: Type.String(),
            state: Type.String(),
            attempts: Type.Integer(),
            last_error: Type.Union([Type.String(), Type.Null()]),
            next_attempt_at: Type.String({ format: 'date-time' }),
            created_at: Type.String({ format: 'date-time' }),
            updated_at: Type.String({ format: 'date-time' }),
            canister_set: Type.String({
              description: 'the canister set the operation was written for and runs on (decision B103)',
            }),
          }),
        ),
      }),
    ),
    400: err('VALIDATION_ERROR (state or limit)'),
    ...ADMIN_ERRORS,
  },
};
