// What the OpenAPI document adds to each route (openapi.ts): summary, tag, security, responses with the
// error codes, keyed by `METHOD /path` with `{param}`s. One file per feature area beside this one.
import { Type } from '@sinclair/typebox';
import { AI_DOCS } from './ai.ts';
import { ADMIN_DOCS } from './admin.ts';
import { CAMPAIGN_DOCS } from './campaigns.ts';
import { DELEGATION_DOCS } from './delegation.ts';
import { GOVERNANCE_DOCS } from './governance.ts';
import { MEMBER_DOCS } from './members.ts';
import { CSRF, err, Html, Json, NoSession, SessionBody, STORE, type RouteDoc } from './common.ts';

export type { RouteDoc } from './common.ts';

export const ROUTE_DOCS: Record<string, RouteDoc> = {
  ...AI_DOCS,
  ...CAMPAIGN_DOCS,
  ...GOVERNANCE_DOCS,
  ...DELEGATION_DOCS,
  ...ADMIN_DOCS,
  ...MEMBER_DOCS,
  'GET /health': {
    operationId: 'getHealth',
    description: 'Answers without credentials: 200 while the bridge is up, 503 once the embedded database has failed a sync.',
    security: 'public',
    summary: 'Liveness',
    tag: 'health',
    responses: {
      200: Json('up', Type.Object({ status: Type.Literal('ok') })),
      503: Json(
        'the embedded database failed a sync and refuses every statement until a restart (decision P16)',
        Type.Object({ status: Type.Literal('unavailable'), error: Type.Literal('DATABASE_FAILED'), message: Type.String(), request_id: Type.String() }),
      ),
    },
  },
  'GET /health/ready': {
    operationId: 'getReadiness',
    description:
      'Answers without credentials: 200 when everything the bridge needs answers (database, canisters, the session store, notification and inference when configured), 503 naming what is down (decision B72).',
    security: 'public',
    summary: 'Readiness',
    tag: 'health',
    responses: {
      200: Json(
        'ready',
        Type.Object({
          status: Type.Literal('ready'),
          checks: Type.Record(Type.String(), Type.String()),
          down: Type.Array(Type.String()),
          request_id: Type.String(),
        }),
      ),
      503: Json(
        'something the bridge needs is down',
        Type.Object({
          status: Type.Literal('unavailable'),
          checks: Type.Record(Type.String(), Type.String()),
          down: Type.Array(Type.String()),
          request_id: Type.String(),
        }),
      ),
    },
  },
  'GET /api/openapi.json': {
    operationId: 'getOpenApiDocument',
    description: 'This document, generated from the routes themselves (decision B47); no credential needed.',
    security: 'public',
    summary: 'This OpenAPI document',
    tag: 'health',
    responses: { 200: { description: 'the OpenAPI 3 document', content: { 'application/json': { schema: { type: 'object' } } } } },
  },
  'POST /auth/login': {
    operationId: 'login',
    description:
      'Checks the email and password and opens a session: sets the `session` cookie shared by every suite. Cross-site rule (decision B8) and the brute-force limits (decision B30) apply.',
    security: 'public',
    summary: 'Sign in: sets the `session` cookie (spec 2 Authentication)',
    tag: 'sessions',
    responses: {
      200: Json('signed in; Set-Cookie: session=…; Domain=COOKIE_DOMAIN; Path=/; HttpOnly; Secure; SameSite=Lax', SessionBody),
      400: err('VALIDATION_ERROR'),
      401: err('INVALID_CREDENTIALS: the same answer for an unknown email and a wrong password'),
      403: err(
        'EMAIL_NOT_VERIFIED: the right password of an account whose email is not verified yet; no session (decision B32). Or CSRF_REJECTED (decision B8)',
      ),
      429: err('TOO_MANY_ATTEMPTS, with Retry-After: 5 guesses per (account, client address), 50 per address, 100 per account in 15 minutes (decision B30)'),
      ...STORE,
    },
  },
  'GET /auth/session': {
    operationId: 'getSession',
    description: 'Reads the `session` cookie when one is sent; without it (or with an ended session) the answer is `{authenticated: false}`, never 401.',
    security: 'optionalSession',
    summary: 'The current session (cookie), without membership',
    tag: 'sessions',
    responses: { 200: Json('signed in, or `{authenticated: false}`', Type.Union([SessionBody, NoSession])), ...STORE },
  },
  'GET /api/auth/session': {
    operationId: 'getSessionWithMembership',
    description: 'As GET /auth/session, plus the membership status read from the membership canister; `{authenticated: false}` without a live session.',
    security: 'optionalSession',
    summary: 'The current session with the membership status from the membership canister',
    tag: 'sessions',
    responses: {
      200: Json(
        'signed in (membership_status when a membership token exists), or `{authenticated: false}`',
        Type.Union([
          Type.Composite([SessionBody, Type.Object({ membership_status: Type.Optional(Type.String({ description: 'Registered, Active, Expired, …' })) })]),
          NoSession,
        ]),
      ),
      503: err('MEMBERSHIP_UNAVAILABLE (the canister did not answer) or SESSION_STORE_UNAVAILABLE'),
    },
  },
  'POST /auth/logout': {
    operationId: 'logout',
    description: 'Ends the session on every suite and clears the cookie; changes nothing without a session.',
    summary: 'Sign out: ends the session on every suite and clears the cookie',
    tag: 'sessions',
    security: 'session',
    responses: { 200: Json('signed out', NoSession), 403: CSRF, 415: err('UNSUPPORTED_MEDIA_TYPE: a form body'), ...STORE },
  },
  'GET /api/auth/registration-key': {
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
  },
  'POST /api/auth/register': {
    operationId: 'register',
    description: 'Creates an unverified account from sealed fields and sends the verification email; nothing is stored on refusal.',
    security: 'public',
    summary:
      'Register: sealed email, name and date of birth, the password, ToS accepted (spec 2 Registration); optionally `display_name`, the name other members see (decision F47), held to the profile rules (F22, B89–B91)',
    tag: 'registration',
    responses: {
      201: Json(
        'account created; a verification email was sent (or not: verification_email_sent)',
        Type.Object({ user_id: Type.String({ format: 'uuid' }), status: Type.Literal('verification_pending'), verification_email_sent: Type.Boolean() }),
      ),
      400: err(
        'VALIDATION_ERROR (a `display_name` message starts `display_name:`: characters, length, invisible characters, combining marks, a reserved name), UNDECRYPTABLE (tampered or sealed to another key) or WEAK_PASSWORD',
      ),
      403: err('COPPA_BLOCK: under 13; nothing is stored'),
      409: err(
        'EMAIL_EXISTS: a verified account holds the address (an unverified registration of it is replaced, decision B51); NAME_TAKEN: another account chose this display_name or one that looks the same (decision F47)',
      ),
      429: err('TOO_MANY_ATTEMPTS, with Retry-After: too many registrations from this client address, or emails to this address, this hour (decision B33)'),
      502: err('ACCOUNT_NOT_CREATED: the user canister refused'),
      503: err('REGISTRATION_UNAVAILABLE: nothing was stored'),
    },
  },
  'POST /api/auth/resend-verification': {
    operationId: 'resendVerification',
    description: 'Sends a new verification link to an unverified account; the answer does not reveal whether the address exists.',
    security: 'public',
    summary: 'A new verification link for an unverified account (decision B38); the same answer whether or not the address exists',
    tag: 'registration',
    responses: {
      202: Json(
        'accepted; an email follows only for an existing, unverified account',
        Type.Object({ status: Type.Literal('accepted'), message: Type.String() }),
      ),
      400: err('VALIDATION_ERROR'),
      403: CSRF,
      429: err('TOO_MANY_ATTEMPTS, with Retry-After: too many requests from this client, or emails to this address, this hour (decision B33)'),
      ...STORE,
    },
  },
  'POST /api/auth/password-reset/request': {
    operationId: 'requestPasswordReset',
    description: 'Emails a single-use reset link valid one hour; the answer does not reveal whether the address exists.',
    security: 'public',
    summary: 'Email a single-use password reset link, valid one hour (decision B37); the same answer whether or not the address exists',
    tag: 'registration',
    responses: {
      202: Json('accepted; an email follows only for an existing account', Type.Object({ status: Type.Literal('accepted'), message: Type.String() })),
      400: err('VALIDATION_ERROR'),
      403: CSRF,
      429: err('TOO_MANY_ATTEMPTS, with Retry-After (decision B33)'),
      ...STORE,
    },
  },
  'POST /api/auth/password-reset/confirm': {
    operationId: 'confirmPasswordReset',
    description: 'The emailed token is the credential: sets the new password and ends every session of the user.',
    security: 'public',
    summary: 'Set a new password with the emailed token; ends every session of the user and sends password-changed (decision B37)',
    tag: 'registration',
    responses: {
      200: Json('changed', Type.Object({ status: Type.Literal('password_changed'), sessions_ended: Type.Integer() })),
      400: err('RESET_TOKEN_INVALID (unknown, used, replaced or expired), WEAK_PASSWORD (the token stays usable) or VALIDATION_ERROR'),
      403: CSRF,
      ...STORE,
    },
  },
  'GET /reset-password': {
    operationId: 'getResetPasswordPage',
    description: 'The HTML page the reset email links to; opening it changes nothing.',
    security: 'public',
    summary: 'The page of the reset link: a form that posts to /api/auth/password-reset/confirm',
    tag: 'pages',
    responses: {
      200: Html('the new-password form'),
      400: Html('a token that is not one the bridge mails (43 characters of base64url): the way to a new link'),
    },
  },
  'GET /verify-email': {
    operationId: 'getVerifyEmailPage',
    description: 'The HTML page the verification email links to; the token in the query is the credential and opening the page changes nothing.',
    security: 'public',
    summary:
      'The link of the verification email: a page that asks for the password chosen at registration, or (`choose=1`) lets the mailbox owner start the account afresh, date of birth first (decisions B51, B86, B87); opening it changes nothing',
    tag: 'pages',
    responses: {
      200: Html('the confirmation form (no script)'),
      400: Html('not valid, already used (with a sign-in link) or expired (with the way to a new link)'),
    },
  },
  'POST /verify-email': {
    operationId: 'confirmVerificationForm',
    description: "The verification page's form: the token and the password confirm the address; no cookie needed.",
    security: 'public',
    summary:
      "The link page's form (application/x-www-form-urlencoded): token and password verifies the address, grants `member` (and `admin` for a bootstrap address), ends every earlier session of the account (decision B51) and signs the confirmer in (decision B105); token and dob (YYYY-MM-DD) alone is the first step of starting afresh and answers the second; token, dob, name, display_name (empty: the name, decision F47), tos_accepted=true and new_password replaces the registration by an account of the owner's answers and verifies it (decisions B86, B87)",
    tag: 'pages',
    responses: {
      200: Html(
        'verified and signed in (the `session` cookie, decision B105; only when the form was posted from the bridge or a configured front end), with a Continue link to the first front end (else a sign-in link); or, after a date of birth alone, the second step (name, terms, new password)',
      ),
      400: Html(
        'the link is not valid, used or expired; or an answer is missing or refused, or the new password is too weak (the step again, with the reason)',
      ),
      401: Html('not the password of the registration (the form again, offering to choose a new one)'),
      403: Html('COPPA_BLOCK: the date of birth is under 13; the block screen, nothing stored (decision B86)'),
      409: Html(
        'CONFLICT: the registration has a payment on record and cannot be started afresh; NAME_TAKEN: the name other members see is taken (the step again, with the reason, decision F47)',
      ),
      429: Html('too many wrong passwords on this link (LOGIN_MAX_FAILURES per LOGIN_WINDOW_MINUTES)'),
      502: Html('ACCOUNT_NOT_CREATED: the user canister refused the new account'),
      503: Html('the user canister did not answer (an account started afresh keeps the answers and finishes by itself); open the link again later'),
    },
  },
  'POST /api/auth/verify-email': {
    operationId: 'confirmVerification',
    description: "The JSON form of the verification page for a front end's own page: the emailed token with the password confirms the address.",
    security: 'public',
    summary:
      "Confirm a verification link from a front end's own page (decision B51): the token with the password chosen at registration, or with new_password and the mailbox owner's own name_encrypted, dob_encrypted and tos_accepted, which replace everything the registration said by a new account (decision B86); ends every earlier session of the account and signs the confirmer in (decision B105)",
    tag: 'registration',
    responses: {
      200: Json(
        'verified',
        Type.Object({
          status: Type.Literal('verified'),
          membership_token_pending: Type.Boolean({ description: 'true while the Registered membership token is being minted' }),
          password: Type.Union([Type.Literal('confirmed'), Type.Literal('chosen')]),
          signed_in: Type.Boolean({
            description:
              'decision B105: true when the answer set the `session` cookie (the confirmation came from a configured front end or the bridge itself); false otherwise: sign in with POST /auth/login',
          }),
        }),
      ),
      400: err(
        "VALIDATION_ERROR (exactly one of password and new_password; new_password needs the owner's name_encrypted, dob_encrypted and tos_accepted, password takes none of them; a date of birth that is not a date, a name the registration rules refuse), UNDECRYPTABLE, WEAK_PASSWORD, VERIFICATION_LINK_INVALID, VERIFICATION_LINK_USED or VERIFICATION_LINK_EXPIRED",
      ),
      401: err('INVALID_CREDENTIALS: not the password of the registration; send new_password (with your own answers) to start afresh'),
      403: err("COPPA_BLOCK: the owner's date of birth is under 13; nothing is created or changed (decision B86)"),
      409: err(
        'CONFLICT: the registration has a payment on record and cannot be started afresh; NAME_TAKEN: another account chose display_name or one that looks the same (decision F47)',
      ),
      429: err('TOO_MANY_ATTEMPTS, with Retry-After: too many wrong passwords on this link'),
      502: err('ACCOUNT_NOT_CREATED: the user canister refused the account started afresh'),
      503: err(
        'VERIFICATION_UNAVAILABLE: the user canister did not answer (an account started afresh keeps the answers and finishes by itself), or a confirmation of the link is still being finished; SESSION_STORE_UNAVAILABLE: the session store is down; try again',
      ),
    },
  },
  'GET /login': {
    operationId: 'getLoginPage',
    description: "The bridge's own HTML sign-in page; it posts to POST /auth/login.",
    security: 'public',
    summary: 'The minimal login page; `returnUrl` must be on a configured front end (decision B9)',
    tag: 'pages',
    responses: { 200: Html('the sign-in form'), 400: Html('a returnUrl that is not one text of at most 2048 characters') },
  },
};
