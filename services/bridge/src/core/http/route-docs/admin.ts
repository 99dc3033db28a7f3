// The admin routes (decisions B10, B34, B35, B39, B47) and the signed payment webhook, the test email.
import { Type } from '@sinclair/typebox';
import { ADMIN_ERRORS, err, Json, STORE, type RouteDoc } from './common.ts';

export const ADMIN_DOCS: Record<string, RouteDoc> = {
  'GET /api/admin/users/{user_id}/roles': {
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
  },
  'POST /api/admin/users/{user_id}/roles': {
    operationId: 'grantUserRole',
    description: "Admin session required; the role is stored now and lands in the user's session at their next login (decision B10).",
    summary: 'Grant admin, moderator or developer (effective at the next login; decision B10)',
    tag: 'admin',
    security: 'admin',
    responses: {
      200: Json('granted', Type.Object({ user_id: Type.String(), roles: Type.Array(Type.String()), effective: Type.String() })),
      400: err('VALIDATION_ERROR: not an assignable role'),
      ...ADMIN_ERRORS,
      404: err('NOT_FOUND'),
    },
  },
  'DELETE /api/admin/users/{user_id}/roles/{role}': {
    operationId: 'revokeUserRole',
    description: "Admin session required; the user's sessions end at once so the revocation takes effect immediately (decision B34).",
    summary: "Revoke admin, moderator or developer; ends the user's sessions at once (decisions B10, B34)",
    tag: 'admin',
    security: 'admin',
    responses: {
      200: Json(
        'revoked; every session of the user ended',
        Type.Object({ user_id: Type.String(), roles: Type.Array(Type.String()), effective: Type.String(), sessions_ended: Type.Integer() }),
      ),
      400: err('VALIDATION_ERROR'),
      ...ADMIN_ERRORS,
      404: err('NOT_FOUND'),
      409: err('CONFLICT: an admin cannot revoke their own admin role'),
    },
  },
  'GET /api/admin/users': {
    operationId: 'listUsers',
    description: 'Admin session required; the email filter is matched through the blind index, never decrypted in bulk (decision B39).',
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
                description: 'the name given at registration, opened for admins only (decisions F48, B106); null when it cannot be opened',
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
  },
  'GET /api/admin/users/{user_id}/sessions': {
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
          sessions: Type.Array(
            Type.Object({
              created_at: Type.String({ format: 'date-time' }),
              last_seen_at: Type.String({ format: 'date-time' }),
              expires_at: Type.String({ format: 'date-time' }),
              roles: Type.Array(Type.String()),
            }),
          ),
        }),
      ),
      400: err('VALIDATION_ERROR'),
      ...ADMIN_ERRORS,
      404: err('NOT_FOUND'),
      ...STORE,
    },
  },
  'DELETE /api/admin/users/{user_id}/sessions': {
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
  },
  'POST /api/admin/users/{user_id}/kyc': {
    operationId: 'recordKycDecision',
    description: 'Admin session required; records the decision on the user canister (decision B12).',
    summary: 'Record the KYC decision for a user (decision B12)',
    tag: 'admin',
    security: 'admin',
    responses: {
      200: Json('recorded', Type.Object({ user_id: Type.String(), kyc_status: Type.Union([Type.Literal('approved'), Type.Literal('rejected')]) })),
      202: Json(
        'saved; the user canister did not answer yet and gets it through the outbox (decision B27)',
        Type.Object({ user_id: Type.String(), kyc_status: Type.Literal('pending'), message: Type.String() }),
      ),
      400: err('VALIDATION_ERROR'),
      ...ADMIN_ERRORS,
      404: err('NOT_FOUND'),
      409: err('KYC_NOT_RECORDED: the user canister refused'),
    },
  },
  'GET /api/admin/payments': {
    operationId: 'listPayments',
    description: 'Admin session required; the payments the webhook received, newest first.',
    summary: 'Payments, newest first (`?status=pending|escrow|applied`), 100 at most',
    tag: 'admin',
    security: 'admin',
    responses: {
      200: Json(
        'payments',
        Type.Object({
          payments: Type.Array(
            Type.Object({
              id: Type.String(),
              event_id: Type.String(),
              user_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
              payment_id: Type.String(),
              amount_minor: Type.String({ description: 'in the currency’s minor unit, as a decimal string' }),
              currency: Type.String(),
              status: Type.Union([Type.Literal('pending'), Type.Literal('applied'), Type.Literal('escrow')]),
              reason: Type.Union([Type.String(), Type.Null()]),
              created_at: Type.String({ format: 'date-time' }),
            }),
          ),
        }),
      ),
      400: err('VALIDATION_ERROR (status is not pending, escrow or applied)'),
      ...ADMIN_ERRORS,
    },
  },
  'GET /api/admin/outbox': {
    operationId: 'listOutbox',
    description: 'Admin session required; the outbox operations with their state, never their payloads (decision B29).',
    summary: 'Cross-system operations of the outbox, newest first (`?state=pending|done|compensated`, `limit` ≤ 500; decision B29); never their payloads',
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
            }),
          ),
        }),
      ),
      400: err('VALIDATION_ERROR (state or limit)'),
      ...ADMIN_ERRORS,
    },
  },
  'GET /api/admin/notifications': {
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
  },
  'POST /api/webhooks/payments': {
    operationId: 'receivePaymentWebhook',
    description: 'No session: the Payment-Signature HMAC is the credential; a replayed event changes nothing (decision B11).',
    summary: "The card processor's signed payment webhook (decision B11)",
    tag: 'payments',
    security: 'signature',
    body: Type.Object(
      {
        id: Type.String(),
        type: Type.String(),
        data: Type.Object({
          object: Type.Object({
            id: Type.String(),
            amount: Type.Integer({ minimum: 1 }),
            currency: Type.String(),
            metadata: Type.Object({ user_id: Type.String({ format: 'uuid' }) }),
          }),
        }),
      },
      { description: 'signed over the raw body: Payment-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret, "t.body")>' },
    ),
    responses: {
      200: Json(
        'acknowledged: applied, escrow (with reason), pending (the upgrade is finished through the outbox, decision B27), a duplicate, or an event type the bridge does not handle',
        Type.Object({ received: Type.Literal(true) }, { additionalProperties: true }),
      ),
      400: err('SIGNATURE_INVALID (missing, malformed, mismatch, stale) or VALIDATION_ERROR'),
      503: err('WEBHOOK_NOT_CONFIGURED: PAYMENT_WEBHOOK_SECRET is not set'),
    },
  },
  'POST /test-email': {
    operationId: 'sendTestEmail',
    description: 'Bearer ACCESS_TOKEN required (spec 2 Authentication rule 4); unset, the route answers 503.',
    summary: 'Send the welcome email to an address through the notification service (decision B13)',
    tag: 'operations',
    security: 'bearer',
    responses: {
      200: Json('sent', Type.Object({ sent: Type.Literal(true), id: Type.Optional(Type.String()), stubbed: Type.Optional(Type.Boolean()) })),
      400: err('VALIDATION_ERROR'),
      401: err('UNAUTHORIZED: a valid bearer token (ACCESS_TOKEN) is required'),
      502: err('EMAIL_NOT_SENT'),
      503: err('NOT_CONFIGURED: ACCESS_TOKEN is not set'),
    },
  },
};
