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
  'GET /api/me/membership': {
    operationId: 'getMyMembership',
    summary: "The signed-in member's membership: its status, its term and the latest payment (decision F50)",
    description: `${SESSION_REQUIRED} The status and dates from the membership canister; the payment is the newest the card processor's webhook recorded for the member, whatever became of it.`,
    tag: 'membership',
    security: 'session',
    responses: {
      200: Json(
        'the membership and the latest payment',
        Type.Object({
          status: Type.Union([Type.Literal('Registered'), Type.Literal('Active'), Type.Literal('Expired'), Type.Literal('Revoked'), Type.Null()], {
            description: 'null before the email address is confirmed (no membership token yet)',
          }),
          joined_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
          active_until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
            description: 'the end of the paid term (Dec 31 23:59:59 UTC, spec 2); null while Registered',
          }),
          payment: Type.Union([
            Type.Object({
              amount_minor: Type.String({ description: 'in the currency’s minor unit, as a decimal string' }),
              currency: Type.String(),
              received_at: Type.String({ format: 'date-time' }),
              state: Type.Union([Type.Literal('processing'), Type.Literal('applied'), Type.Literal('held')], {
                description: 'processing: the upgrade is under way; applied: it made the membership Active; held: in escrow for an administrator to review',
              }),
            }),
            Type.Null(),
          ]),
        }),
      ),
      401: err('UNAUTHORIZED or SESSION_REQUIRED'),
      403: err('CSRF_REJECTED'),
      503: err('MEMBERSHIP_UNAVAILABLE (the membership canister did not answer) or SESSION_STORE_UNAVAILABLE; try again'),
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
