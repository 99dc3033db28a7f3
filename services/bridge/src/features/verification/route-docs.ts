// What the OpenAPI document says of this feature's routes (decision B124): each route's schema spreads its
// doc through routeSchema() beside the handler.
import { Type } from '@sinclair/typebox';
import { err, Json, Html, type RouteDoc } from '../../core/http/route-doc.ts';

export const getVerifyEmailPageDoc: RouteDoc = {
  operationId: 'getVerifyEmailPage',
  description:
    'The HTML page the verification email links to; the token in the query is the credential and opening the page changes nothing.',
  security: 'public',
  summary:
    'The link of the verification email: a page that asks for the password chosen at registration, or (`choose=1`) lets the mailbox owner start the account afresh, date of birth first (decisions B51, B86, B87); opening it changes nothing',
  tag: 'pages',
  responses: {
    200: Html('the confirmation form (no script)'),
    400: Html('not valid, already used (with a sign-in link) or expired (with the way to a new link)'),
  },
};

export const confirmVerificationFormDoc: RouteDoc = {
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
    503: Html(
      'the user canister did not answer (an account started afresh keeps the answers and finishes by itself); open the link again later',
    ),
  },
};

export const confirmVerificationDoc: RouteDoc = {
  operationId: 'confirmVerification',
  description:
    "The JSON form of the verification page for a front end's own page: the emailed token with the password confirms the address.",
  security: 'public',
  summary:
    "Confirm a verification link from a front end's own page (decision B51): the token with the password chosen at registration, or with new_password and the mailbox owner's own name_encrypted, dob_encrypted and tos_accepted, which replace everything the registration said by a new account (decision B86); ends every earlier session of the account and signs the confirmer in (decision B105)",
  tag: 'registration',
  responses: {
    200: Json(
      'verified',
      Type.Object({
        status: Type.Literal('verified'),
        membership_token_pending: Type.Boolean({
          description: 'true while the Registered membership token is being minted',
        }),
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
    401: err(
      'INVALID_CREDENTIALS: not the password of the registration; send new_password (with your own answers) to start afresh',
    ),
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
};
