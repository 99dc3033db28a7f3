// What the OpenAPI document says of this feature's routes (decision B124): each route's schema spreads its
// doc through routeSchema() beside the handler.
import { Type } from '@sinclair/typebox';
import { err, Json, type RouteDoc } from '../../core/http/route-doc.ts';

export const getRegistrationKeyDoc: RouteDoc = {
  operationId: 'getRegistrationKey',
  description: 'The public HPKE key a front end seals the registration fields to; no credential needed.',
  security: 'public',
  summary: "The bridge's HPKE public key for sealing registration fields (decision B16)",
  tag: 'registration',
  responses: {
    200: Json(
      'the key and the suite',
      Type.Object({
        public_key: Type.String({ description: 'base64url, uncompressed P-256 point' }),
        kem: Type.String(),
        kdf: Type.String(),
        aead: Type.String(),
        info: Type.String(),
        aad: Type.String(),
      }),
    ),
  },
};

export const registerDoc: RouteDoc = {
  operationId: 'register',
  description:
    'Creates an unverified account from sealed fields and sends the verification email; nothing is stored on refusal.',
  security: 'public',
  summary:
    'Register: sealed email, name and date of birth, the password, ToS accepted (spec 2 Registration); optionally `display_name`, the name other members see (decision F47), held to the profile rules (F22, B89–B91)',
  tag: 'registration',
  responses: {
    201: Json(
      'account created; a verification email was sent (or not: verification_email_sent)',
      Type.Object({
        user_id: Type.String({ format: 'uuid' }),
        status: Type.Literal('verification_pending'),
        verification_email_sent: Type.Boolean(),
      }),
    ),
    400: err(
      'VALIDATION_ERROR (a `display_name` message starts `display_name:`: characters, length, invisible characters, combining marks, a reserved name), UNDECRYPTABLE (tampered or sealed to another key) or WEAK_PASSWORD',
    ),
    403: err('COPPA_BLOCK: under 13; nothing is stored'),
    409: err(
      'EMAIL_EXISTS: a verified account holds the address (an unverified registration of it is replaced, decision B51); NAME_TAKEN: another account chose this display_name or one that looks the same (decision F47)',
    ),
    429: err(
      'TOO_MANY_ATTEMPTS, with Retry-After: too many registrations from this client address, or emails to this address, this hour (decision B33)',
    ),
    502: err('ACCOUNT_NOT_CREATED: the user canister refused'),
    503: err('REGISTRATION_UNAVAILABLE: nothing was stored'),
  },
};
