// The member's own account: live sessions (decision F9), what membership still needs and the
// development checkout (decision F8).
import { Type } from '@sinclair/typebox';
import { err, Json, STORE, type RouteDoc } from './common.ts';

const SESSION_REQUIRED = 'Session required; a bearer token without the cookie answers 401 SESSION_REQUIRED (decision V10).';

export const MEMBER_DOCS: Record<string, RouteDoc> = {
  'GET /api/me/sessions': {
    operationId: 'listMySessions',
    summary: "The signed-in member's live sessions, oldest first (decision F9)",
    description: 'Session required; times and cached roles only, never the session ids.',
    tag: 'sessions',
    security: 'session',
    responses: {
      200: Json(
        'the live sessions (Cache-Control: private, no-store)',
        Type.Object({
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
      401: err('UNAUTHORIZED: sign in first'),
      ...STORE,
    },
  },
  'DELETE /api/me/sessions': {
    operationId: 'endMySessions',
    summary: 'Signs the member out everywhere: every session of theirs ends, this one included (decision F9)',
    description: 'Session required (cross-site rule, decision B8); clears the cookie.',
    tag: 'sessions',
    security: 'session',
    responses: {
      200: Json('signed out everywhere', Type.Object({ authenticated: Type.Literal(false), sessions_ended: Type.Integer() })),
      401: err('UNAUTHORIZED: sign in first'),
      403: err('CSRF_REJECTED (decision B8)'),
      ...STORE,
    },
  },
  'GET /api/me/membership-upgrade': {
    operationId: 'getMembershipUpgrade',
    summary: 'What the signed-in member still needs to become Active (decision F8)',
    description: SESSION_REQUIRED,
    tag: 'membership',
    security: 'session',
    responses: {
      200: Json(
        'KYC, age and the price of the membership',
        Type.Object({
          kyc_status: Type.Union([Type.Literal('none'), Type.Literal('approved'), Type.Literal('rejected')]),
          adult: Type.Boolean(),
          price_minor: Type.String({ description: 'MEMBERSHIP_PRICE_MINOR, in the currency’s minor unit, as a decimal string' }),
          currency: Type.String({ description: 'MEMBERSHIP_PRICE_CURRENCY' }),
          simulated_checkout: Type.Boolean({ description: 'POST /api/dev/checkout is on (DEV_CHECKOUT with a webhook secret)' }),
        }),
      ),
      401: err('UNAUTHORIZED or SESSION_REQUIRED'),
      403: err('CSRF_REJECTED'),
      ...STORE,
    },
  },
  'POST /api/dev/checkout': {
    operationId: 'simulateCheckout',
    summary: 'Development only: a simulated card payment of the membership price through the signed webhook (decision F8)',
    description: `${SESSION_REQUIRED} Answers 404 unless DEV_CHECKOUT is on; the webhook's own status and answer are passed on.`,
    tag: 'membership',
    security: 'session',
    responses: {
      200: Json(
        "the simulated event and the webhook's answer",
        Type.Object({
          simulated: Type.Literal(true),
          event_id: Type.String(),
          webhook: Type.Object(
            { status: Type.Optional(Type.String()), reason: Type.Optional(Type.String()) },
            { additionalProperties: true, description: 'the answer of POST /api/webhooks/payments' },
          ),
        }),
      ),
      401: err('UNAUTHORIZED or SESSION_REQUIRED'),
      403: err('CSRF_REJECTED'),
      404: err('NOT_FOUND: the simulated checkout is off'),
      ...STORE,
    },
  },
};
