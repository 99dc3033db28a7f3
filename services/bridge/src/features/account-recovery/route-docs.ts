// What the OpenAPI document says of this feature's routes (decision B124): each route's schema spreads its
// doc through routeSchema() beside the handler.
import { Type } from '@sinclair/typebox';
import { err, Json, STORE, CSRF, Html, type RouteDoc } from '../../core/http/route-doc.ts';

export const resendVerificationDoc: RouteDoc = {
  operationId: 'resendVerification',
  description:
    'Sends a new verification link to an unverified account; the answer does not reveal whether the address exists.',
  security: 'public',
  summary:
    'A new verification link for an unverified account (decision B38); the same answer whether or not the address exists',
  tag: 'registration',
  responses: {
    202: Json(
      'accepted; an email follows only for an existing, unverified account',
      Type.Object({ status: Type.Literal('accepted'), message: Type.String() }),
    ),
    400: err('VALIDATION_ERROR'),
    403: CSRF,
    429: err(
      'TOO_MANY_ATTEMPTS, with Retry-After: too many requests from this client, or emails to this address, this hour (decision B33)',
    ),
    ...STORE,
  },
};

export const requestPasswordResetDoc: RouteDoc = {
  operationId: 'requestPasswordReset',
  description: 'Emails a single-use reset link valid one hour; the answer does not reveal whether the address exists.',
  security: 'public',
  summary:
    'Email a single-use password reset link, valid one hour (decision B37); the same answer whether or not the address exists',
  tag: 'registration',
  responses: {
    202: Json(
      'accepted; an email follows only for an existing account',
      Type.Object({ status: Type.Literal('accepted'), message: Type.String() }),
    ),
    400: err('VALIDATION_ERROR'),
    403: CSRF,
    429: err('TOO_MANY_ATTEMPTS, with Retry-After (decision B33)'),
    ...STORE,
  },
};

export const confirmPasswordResetDoc: RouteDoc = {
  operationId: 'confirmPasswordReset',
  description: 'The emailed token is the credential: sets the new password and ends every session of the user.',
  security: 'public',
  summary:
    'Set a new password with the emailed token; ends every session of the user and sends password-changed (decision B37)',
  tag: 'registration',
  responses: {
    200: Json('changed', Type.Object({ status: Type.Literal('password_changed'), sessions_ended: Type.Integer() })),
    400: err(
      'RESET_TOKEN_INVALID (unknown, used, replaced or expired), WEAK_PASSWORD (the token stays usable) or VALIDATION_ERROR',
    ),
    403: CSRF,
    ...STORE,
  },
};

export const getResetPasswordPageDoc: RouteDoc = {
  operationId: 'getResetPasswordPage',
  description: 'The HTML page the reset email links to; opening it changes nothing.',
  security: 'public',
  summary: 'The page of the reset link: a form that posts to /api/auth/password-reset/confirm',
  tag: 'pages',
  responses: {
    200: Html('the new-password form'),
    400: Html('a token that is not one the bridge mails (43 characters of base64url): the way to a new link'),
  },
};
