// What the OpenAPI document says of this feature's routes (decision B124): each route's schema spreads its
// doc through routeSchema() beside the handler.
import { Type } from '@sinclair/typebox';
import { ADMIN_ERRORS, err, Json, STORE, type RouteDoc } from '../../core/http/route-doc.ts';

const SESSION_REQUIRED =
  'Session required; a bearer token without the cookie answers 401 SESSION_REQUIRED (decision V10).';

export const recordKycDecisionDoc: RouteDoc = {
  operationId: 'recordKycDecision',
  description: 'Admin session required; records the decision on the user canister (decision B12).',
  summary: 'Record the KYC decision for a user (decision B12)',
  tag: 'admin',
  security: 'admin',
  responses: {
    200: Json(
      'recorded',
      Type.Object({
        user_id: Type.String(),
        kyc_status: Type.Union([Type.Literal('approved'), Type.Literal('rejected')]),
      }),
    ),
    202: Json(
      'saved; the user canister did not answer yet and gets it through the outbox (decision B27)',
      Type.Object({ user_id: Type.String(), kyc_status: Type.Literal('pending'), message: Type.String() }),
    ),
    400: err('VALIDATION_ERROR'),
    ...ADMIN_ERRORS,
    404: err('NOT_FOUND'),
    409: err('KYC_NOT_RECORDED: the user canister refused'),
  },
};

export const listPaymentsDoc: RouteDoc = {
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
};

export const receivePaymentWebhookDoc: RouteDoc = {
  operationId: 'receivePaymentWebhook',
  description:
    'No session: the Payment-Signature HMAC is the credential; a replayed event changes nothing (decision B11).',
  summary: "The card processor's signed payment webhook (decision B11)",
  tag: 'payments',
  security: 'signature',
  rawBody: Type.Object(
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
};

export const getMembershipUpgradeDoc: RouteDoc = {
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
        price_minor: Type.String({
          description: 'MEMBERSHIP_PRICE_MINOR, in the currency’s minor unit, as a decimal string',
        }),
        currency: Type.String({ description: 'MEMBERSHIP_PRICE_CURRENCY' }),
        simulated_checkout: Type.Boolean({
          description: 'POST /api/dev/checkout is on (DEV_CHECKOUT with a webhook secret)',
        }),
      }),
    ),
    401: err('UNAUTHORIZED or SESSION_REQUIRED'),
    403: err('CSRF_REJECTED'),
    ...STORE,
  },
};

export const getMyMembershipDoc: RouteDoc = {
  operationId: 'getMyMembership',
  summary: "The signed-in member's membership: its status, its term and the latest payment (decision F50)",
  description: `${SESSION_REQUIRED} The status and dates from the membership canister; the payment is the newest the card processor's webhook recorded for the member, whatever became of it.`,
  tag: 'membership',
  security: 'session',
  responses: {
    200: Json(
      'the membership and the latest payment',
      Type.Object({
        status: Type.Union(
          [
            Type.Literal('Registered'),
            Type.Literal('Active'),
            Type.Literal('Expired'),
            Type.Literal('Revoked'),
            Type.Null(),
          ],
          {
            description: 'null before the email address is confirmed (no membership token yet)',
          },
        ),
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
              description:
                'processing: the upgrade is under way; applied: it made the membership Active; held: in escrow for an administrator to review',
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
};

export const simulateCheckoutDoc: RouteDoc = {
  operationId: 'simulateCheckout',
  summary:
    'Development only: a simulated card payment of the membership price through the signed webhook (decision F8)',
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
};
