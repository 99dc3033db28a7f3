// What the OpenAPI document says of this feature's routes (decision B124): each route's schema spreads its
// doc through routeSchema() beside the handler.
import { Type } from '@sinclair/typebox';
import {
  err,
  Json,
  STORE,
  CSRF,
  Html,
  NoSession,
  SessionBody,
  SessionSummary,
  type RouteDoc,
} from '../../core/http/route-doc.ts';

export const loginDoc: RouteDoc = {
  operationId: 'login',
  description:
    'Checks the email and password and opens a session: sets the `session` cookie shared by every suite. Cross-site rule (decision B8) and the brute-force limits (decision B30) apply.',
  security: 'public',
  summary: 'Sign in: sets the `session` cookie (spec 2 Authentication)',
  tag: 'sessions',
  responses: {
    200: Json(
      'signed in; Set-Cookie: session=…; Domain=COOKIE_DOMAIN; Path=/; HttpOnly; Secure; SameSite=Lax',
      SessionBody,
    ),
    400: err('VALIDATION_ERROR'),
    401: err('INVALID_CREDENTIALS: the same answer for an unknown email and a wrong password'),
    403: err(
      'EMAIL_NOT_VERIFIED: the right password of an account whose email is not verified yet; no session (decision B32). Or CSRF_REJECTED (decision B8)',
    ),
    429: err(
      'TOO_MANY_ATTEMPTS, with Retry-After: 5 guesses per (account, client address), 50 per address, 100 per account in 15 minutes (decision B30)',
    ),
    ...STORE,
  },
};

export const getSessionDoc: RouteDoc = {
  operationId: 'getSession',
  description:
    'Reads the `session` cookie when one is sent; without it (or with an ended session) the answer is `{authenticated: false}`, never 401.',
  security: 'optionalSession',
  summary: 'The current session (cookie), without membership',
  tag: 'sessions',
  responses: { 200: Json('signed in, or `{authenticated: false}`', Type.Union([SessionBody, NoSession])), ...STORE },
};

export const getSessionWithMembershipDoc: RouteDoc = {
  operationId: 'getSessionWithMembership',
  description:
    'As GET /auth/session, plus the membership status read from the membership canister; `{authenticated: false}` without a live session.',
  security: 'optionalSession',
  summary: 'The current session with the membership status from the membership canister',
  tag: 'sessions',
  responses: {
    200: Json(
      'signed in (membership_status when a membership token exists), or `{authenticated: false}`',
      Type.Union([
        Type.Composite([
          SessionBody,
          Type.Object({
            membership_status: Type.Optional(Type.String({ description: 'Registered, Active, Expired, …' })),
          }),
        ]),
        NoSession,
      ]),
    ),
    503: err('MEMBERSHIP_UNAVAILABLE (the canister did not answer) or SESSION_STORE_UNAVAILABLE'),
  },
};

export const logoutDoc: RouteDoc = {
  operationId: 'logout',
  description: 'Ends the session on every suite and clears the cookie; changes nothing without a session.',
  summary: 'Sign out: ends the session on every suite and clears the cookie',
  tag: 'sessions',
  security: 'session',
  responses: {
    200: Json('signed out', NoSession),
    403: CSRF,
    415: err('UNSUPPORTED_MEDIA_TYPE: a form body'),
    ...STORE,
  },
};

export const getLoginPageDoc: RouteDoc = {
  operationId: 'getLoginPage',
  description: "The bridge's own HTML sign-in page; it posts to POST /auth/login.",
  security: 'public',
  summary: 'The minimal login page; `returnUrl` must be on a configured front end (decision B9)',
  tag: 'pages',
  responses: {
    200: Html('the sign-in form'),
    400: Html('a returnUrl that is not one text of at most 2048 characters'),
  },
};

export const listMySessionsDoc: RouteDoc = {
  operationId: 'listMySessions',
  summary: "The signed-in member's live sessions, oldest first (decision F9)",
  description: 'Session required; times and cached roles only, never the session ids.',
  tag: 'sessions',
  security: 'session',
  responses: {
    200: Json(
      'the live sessions (Cache-Control: private, no-store)',
      Type.Object({
        sessions: Type.Array(SessionSummary),
      }),
    ),
    401: err('UNAUTHORIZED: sign in first'),
    ...STORE,
  },
};

export const endMySessionsDoc: RouteDoc = {
  operationId: 'endMySessions',
  summary: 'Signs the member out everywhere: every session of theirs ends, this one included (decision F9)',
  description: 'Session required (cross-site rule, decision B8); clears the cookie.',
  tag: 'sessions',
  security: 'session',
  responses: {
    200: Json(
      'signed out everywhere',
      Type.Object({ authenticated: Type.Literal(false), sessions_ended: Type.Integer() }),
    ),
    401: err('UNAUTHORIZED: sign in first'),
    403: err('CSRF_REJECTED (decision B8)'),
    ...STORE,
  },
};
