// What the OpenAPI document adds to each route (openapi.ts): summary, tag, security, responses with the
// error codes, keyed by `METHOD /path` with `{param}`s. One file per feature area beside this one.
import { Type } from '@sinclair/typebox';
import { AI_DOCS } from './ai.ts';
import { CAMPAIGN_DOCS } from './campaigns.ts';
import { ADMIN_ERRORS, CSRF, err, Html, Json, NoSession, SessionBody, STORE, type RouteDoc } from './common.ts';

export type { RouteDoc } from './common.ts';

export const ROUTE_DOCS: Record<string, RouteDoc> = {
  ...AI_DOCS,
  ...CAMPAIGN_DOCS,
  'POST /api/governance/propose': {
    summary: 'Create a proposal as the signed-in member; payload per category (spec 1 bridge endpoints; decision V13)',
    tag: 'governance',
    security: 'session',
    responses: {
      201: Json('created', Type.Object({ proposal_id: Type.String(), status: Type.String(), voting_opens: Type.String(), voting_closes: Type.String() })),
      400: err('VALIDATION_ERROR (payload.<field>: …) or InvalidPayload (the canister’s reason, naming the field; decision G22)'),
      401: err('UNAUTHORIZED or SESSION_REQUIRED (bearer token without the session cookie; spec 1 Authentication 6)'),
      403: err('NotAMember, NotAuthorized or CSRF_REJECTED'),
      413: err('PAYLOAD_TOO_LARGE (64 KiB)'),
    },
  },
  'POST /api/governance/vote': {
    summary: 'Cast a vote as the signed-in member (their own principal; decisions V5, V8)',
    tag: 'governance',
    security: 'session',
    responses: {
      200: Json('vote recorded', Type.Object({ proposal_id: Type.String(), vote: Type.String() })),
      400: err('VALIDATION_ERROR (per field)'),
      401: err(
        'UNAUTHORIZED (no session) or SESSION_REQUIRED (bearer token without the session cookie: sign in again at the URL in the message and X-Login-URL; spec 1 Authentication 6)',
      ),
      403: err(
        'NotAMember (no Active membership now), NotActiveWhenVotingOpened (Active now but not when voting opened on this proposal: only members Active then vote on it; the message names the instant; decision G23) or CSRF_REJECTED',
      ),
      404: err('ProposalNotFound'),
      409: err('ProposalNotOpen, AlreadyVoted or VotingWindowClosed (decision V9)'),
      413: err('PAYLOAD_TOO_LARGE (16 KiB)'),
      503: err('MembershipUnavailable, with Retry-After'),
    },
  },
  'POST /api/governance/execute': {
    summary: 'Execute an approved proposal (permissionless on the canister; decision V8)',
    tag: 'governance',
    security: 'session',
    responses: {
      200: Json('executed', Type.Object({ proposal_id: Type.String(), status: Type.String() })),
      400: err('VALIDATION_ERROR'),
      401: err('UNAUTHORIZED or SESSION_REQUIRED'),
      403: err('CSRF_REJECTED'),
      404: err('ProposalNotFound'),
      409: err('ExecutionFailed (not Approved, or the action failed), PriceStale, QuorumNotMet'),
      413: err('PAYLOAD_TOO_LARGE'),
    },
  },
  'GET /api/governance/proposals': {
    summary: 'Proposals, filtered by status and category, paged by from_id and limit (decision V14)',
    tag: 'governance',
    responses: {
      200: Json(
        'proposals; Cache-Control: public, max-age=5',
        Type.Object({ items: Type.Array(Type.Object({}, { additionalProperties: true })), limit: Type.Integer() }),
      ),
      400: err('VALIDATION_ERROR'),
    },
  },
  'GET /api/governance/price': {
    summary: 'The ratified DOM/USD price in force (get_dom_price; decision V14)',
    tag: 'governance',
    responses: {
      200: Json(
        'the ratified price; Cache-Control: public, max-age=30',
        Type.Object({ price_usd: Type.Number(), proposal_id: Type.String(), set_by: Type.String(), effective_at: Type.String() }),
      ),
      404: err('NO_RATIFIED_PRICE'),
    },
  },
  'GET /api/governance/price/history': {
    summary: 'Ratified prices, newest first (decision V14)',
    tag: 'governance',
    responses: {
      200: Json('ratified prices', Type.Object({ items: Type.Array(Type.Object({}, { additionalProperties: true })) })),
      400: err('VALIDATION_ERROR'),
    },
  },
  'GET /api/governance/settings': {
    summary: 'Category settings: quorum, threshold, voting window; voting delay, execution window (decision V14)',
    tag: 'governance',
    responses: { 200: Json('settings; Cache-Control: public, max-age=60', Type.Object({}, { additionalProperties: true })) },
  },
  'GET /api/governance/proposals/{id}/my-vote': {
    summary: "The signed-in member's vote on a proposal (decision V15)",
    tag: 'governance',
    security: 'session',
    responses: {
      200: Json('the vote or null', Type.Object({ proposal_id: Type.String(), vote: Type.Union([Type.String(), Type.Null()]) })),
      400: err('VALIDATION_ERROR'),
      401: err('UNAUTHORIZED or SESSION_REQUIRED'),
    },
  },
  'GET /api/governance/my-receipts': {
    summary: "The signed-in member's vote-pass receipts (ICRC-7; spec 1 Events rule 2)",
    tag: 'governance',
    security: 'session',
    responses: {
      200: Json(
        'receipts, oldest token first',
        Type.Object({
          principal: Type.String(),
          items: Type.Array(Type.Object({ token_id: Type.String(), proposal_id: Type.String(), minted_at: Type.Union([Type.String(), Type.Null()]) })),
          next_prev: Type.Union([Type.String(), Type.Null()]),
        }),
      ),
      400: err('VALIDATION_ERROR'),
      401: err('UNAUTHORIZED or SESSION_REQUIRED'),
    },
  },
  'GET /api/governance/proposals/{id}/votes': {
    summary: 'Every vote on a proposal (admin; spec 1 Authentication 2; decision V22)',
    tag: 'governance',
    security: 'admin',
    responses: {
      200: Json(
        'the votes',
        Type.Object({
          proposal_id: Type.String(),
          items: Type.Array(Type.Object({ voter: Type.String(), vote: Type.String(), voted_at: Type.String(), receipt_token_id: Type.String() })),
        }),
      ),
      400: err('VALIDATION_ERROR'),
      401: err('UNAUTHORIZED'),
      403: err('FORBIDDEN'),
      404: err('ProposalNotFound'),
      503: err('NOT_CONFIGURED: the bridge is not a governance admin'),
    },
  },
  'GET /api/governance/admin/events': {
    summary: 'The governance admin event log as the follower stored it (decisions V3, V15)',
    tag: 'governance',
    security: 'admin',
    responses: {
      200: Json(
        'events oldest first',
        Type.Object({ items: Type.Array(Type.Object({}, { additionalProperties: true })), next_after_seq: Type.Union([Type.String(), Type.Null()]) }),
      ),
      400: err('VALIDATION_ERROR'),
      401: err('UNAUTHORIZED'),
      403: err('FORBIDDEN'),
    },
  },
  'GET /api/governance/proposals/{id}': {
    summary: 'One proposal with its tally (decision V12)',
    tag: 'governance',
    responses: {
      200: Json('the proposal; Cache-Control: public, max-age=5', Type.Object({ id: Type.String(), status: Type.String() }, { additionalProperties: true })),
      400: err('VALIDATION_ERROR'),
      404: err('ProposalNotFound'),
    },
  },
  'GET /health': {
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
  'GET /api/openapi.json': {
    summary: 'This OpenAPI document',
    tag: 'health',
    responses: { 200: { description: 'the OpenAPI 3 document', content: { 'application/json': { schema: { type: 'object' } } } } },
  },
  'POST /auth/login': {
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
    summary: 'The current session (cookie), without membership',
    tag: 'sessions',
    responses: { 200: Json('signed in, or `{authenticated: false}`', Type.Union([SessionBody, NoSession])), ...STORE },
  },
  'GET /api/auth/session': {
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
    summary: 'Sign out: ends the session on every suite and clears the cookie',
    tag: 'sessions',
    security: 'session',
    responses: { 200: Json('signed out', NoSession), 403: CSRF, 415: err('UNSUPPORTED_MEDIA_TYPE: a form body'), ...STORE },
  },
  'GET /api/auth/registration-key': {
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
    summary: 'Register: sealed email, name and date of birth, the password, ToS accepted (spec 2 Registration)',
    tag: 'registration',
    responses: {
      201: Json(
        'account created; a verification email was sent (or not: verification_email_sent)',
        Type.Object({ user_id: Type.String({ format: 'uuid' }), status: Type.Literal('verification_pending'), verification_email_sent: Type.Boolean() }),
      ),
      400: err('VALIDATION_ERROR, UNDECRYPTABLE (tampered or sealed to another key) or WEAK_PASSWORD'),
      403: err('COPPA_BLOCK: under 13; nothing is stored'),
      409: err('EMAIL_EXISTS: a verified account holds the address (an unverified registration of it is replaced, decision B51)'),
      429: err('TOO_MANY_ATTEMPTS, with Retry-After: too many registrations from this client address, or emails to this address, this hour (decision B33)'),
      502: err('ACCOUNT_NOT_CREATED: the user canister refused'),
      503: err('REGISTRATION_UNAVAILABLE: nothing was stored'),
    },
  },
  'POST /api/auth/resend-verification': {
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
    summary: 'The page of the reset link: a form that posts to /api/auth/password-reset/confirm',
    tag: 'pages',
    query: Type.Object({ token: Type.Optional(Type.String({ description: 'the token of the reset email' })) }),
    responses: { 200: Html('the new-password form') },
  },
  'GET /verify-email': {
    summary:
      'The link of the verification email: a page that asks for the password chosen at registration, or (`choose=1`) lets the mailbox owner choose one (decision B51); opening it changes nothing',
    tag: 'pages',
    query: Type.Object({
      token: Type.String({ description: 'the verification token of the email link' }),
      choose: Type.Optional(Type.Literal('1', { description: 'show the form that chooses a new password' })),
    }),
    responses: {
      200: Html('the confirmation form (no script)'),
      400: Html('not valid, already used (with a sign-in link) or expired (with the way to a new link)'),
    },
  },
  'POST /verify-email': {
    summary:
      "The link page's form (application/x-www-form-urlencoded: token and password, or token and new_password): verifies the address, grants `member` (and `admin` for a bootstrap address), ends every session of the account (decision B51)",
    tag: 'pages',
    responses: {
      200: Html('verified; a Continue link to the first front end'),
      400: Html('the link is not valid, used or expired; or the new password is too weak (the form again, with the reason)'),
      401: Html('not the password of the registration (the form again, offering to choose a new one)'),
      429: Html('too many wrong passwords on this link (LOGIN_MAX_FAILURES per LOGIN_WINDOW_MINUTES)'),
      503: Html('the user canister did not answer; open the link again later'),
    },
  },
  'POST /api/auth/verify-email': {
    summary:
      "Confirm a verification link from a front end's own page (decision B51): the token with the password chosen at registration, or with new_password (the mailbox owner chooses the password); ends every session of the account",
    tag: 'registration',
    responses: {
      200: Json(
        'verified',
        Type.Object({
          status: Type.Literal('verified'),
          membership_token_pending: Type.Boolean({ description: 'true while the Registered membership token is being minted' }),
          password: Type.Union([Type.Literal('confirmed'), Type.Literal('chosen')]),
        }),
      ),
      400: err(
        'VALIDATION_ERROR (exactly one of password and new_password), WEAK_PASSWORD, VERIFICATION_LINK_INVALID, VERIFICATION_LINK_USED or VERIFICATION_LINK_EXPIRED',
      ),
      401: err('INVALID_CREDENTIALS: not the password of the registration; send new_password to choose one'),
      429: err('TOO_MANY_ATTEMPTS, with Retry-After: too many wrong passwords on this link'),
      503: err('VERIFICATION_UNAVAILABLE: the user canister did not answer; SESSION_STORE_UNAVAILABLE: the session store is down; try again'),
    },
  },
  'GET /login': {
    summary: 'The minimal login page; `returnUrl` must be on a configured front end (decision B9)',
    tag: 'pages',
    query: Type.Object({ returnUrl: Type.Optional(Type.String({ description: 'where to go after sign-in; elsewhere = the first front-end origin' })) }),
    responses: { 200: Html('the sign-in form') },
  },
  'GET /': {
    summary: 'Home page: signed-in state, links to sign in, sign out and the session (decision B46)',
    tag: 'pages',
    responses: { 200: Html('the page (Cache-Control: no-store)') },
  },
  'GET /api/admin/users/{user_id}/roles': {
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
    summary: 'Find users: exact email (blind index), role, membership status; paged by cursor (decision B39)',
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
              roles: Type.Array(Type.String()),
              email_verified: Type.Boolean(),
              kyc_status: Type.String(),
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
    summary: 'Payments, newest first (`?status=pending|escrow|applied`), 100 at most',
    tag: 'admin',
    security: 'admin',
    query: Type.Object({ status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('escrow'), Type.Literal('applied')])) }),
    responses: { 200: Json('payments', Type.Object({ payments: Type.Array(Type.Object({}, { additionalProperties: true })) })), ...ADMIN_ERRORS },
  },
  'GET /api/admin/outbox': {
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
    summary: 'Admin notifications raised by the user canister (membership_mint_failed), `?after_id=`',
    tag: 'admin',
    security: 'admin',
    query: Type.Object({ after_id: Type.Optional(Type.String({ pattern: '^\\d{1,19}$', description: 'only notifications after this id' })) }),
    responses: { 200: Json('notifications', Type.Object({ notifications: Type.Array(Type.Object({}, { additionalProperties: true })) })), ...ADMIN_ERRORS },
  },
  'POST /api/webhooks/payments': {
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
