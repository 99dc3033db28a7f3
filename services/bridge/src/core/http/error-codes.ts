// The one registry of the bridge's error codes (decision B125): code → the statuses it comes with →
// what it means. HttpError takes only a code registered here, with one of its statuses; the OpenAPI
// error answers name these codes and docs/reference/errors.md is generated from this file
// (`npm run errors:bridge`; a test fails when the page is stale). Spec 2's own codes keep the spec's
// spelling (VALIDATION_ERROR, UNAUTHORIZED, COPPA_BLOCK, EMAIL_EXISTS, CIRCUIT_OPEN); a refusal a
// canister names passes through under its Candid variant name (decision B118): CANISTER_REFUSALS.

export interface ErrorCodeEntry {
  /** The statuses the code is answered with; the first is the usual one. */
  readonly status: readonly number[];
  readonly meaning: string;
}

export const ERROR_CODES = {
  // ---- any route (decision B55) ----
  VALIDATION_ERROR: {
    status: [400, 422],
    meaning:
      'The request does not match the route’s schema or rules; the message names the field. 422 in the AI scope (spec 2). A URL the router cannot read starts the message with `URL: `, a body sent as JSON that is not JSON with `body: `.',
  },
  NOT_FOUND: { status: [404], meaning: 'No route, or no such thing at this path.' },
  PAYLOAD_TOO_LARGE: { status: [413], meaning: 'The request body is over the route’s limit; nothing was read.' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: [415],
    meaning: 'The body is not JSON (Content-Type: application/json), or not the form a page route takes.',
  },
  INTERNAL: {
    status: [500],
    meaning: 'An error the bridge did not expect; logged with the request id. No input should cause it (decision B55).',
  },
  // ---- sessions and credentials (spec 2 Authentication, decisions B8, B30, V10) ----
  UNAUTHORIZED: {
    status: [401],
    meaning: 'Sign in first: no live session cookie, or a wrong bearer token or API token.',
  },
  SESSION_REQUIRED: {
    status: [401],
    meaning: 'A bearer token without the session cookie, on a route that acts as the member (decision V10).',
  },
  INVALID_CREDENTIALS: {
    status: [401],
    meaning: 'Wrong email or password; the same answer for an unknown email (spec 2).',
  },
  FORBIDDEN: { status: [403], meaning: 'Signed in, but the route needs a role the session does not hold (admin).' },
  CSRF_REJECTED: {
    status: [403],
    meaning:
      'A cookie-authenticated mutation whose Origin (or, without Origin, Referer) is not a configured front end, or is `null` (decision B8).',
  },
  TOO_MANY_ATTEMPTS: {
    status: [429],
    meaning: 'Too many sign-in, registration or email requests; comes with Retry-After (decisions B30, B33).',
  },
  RATE_LIMITED: {
    status: [429],
    meaning: 'A per-member rate limit (AI, proposals, delegation changes); comes with Retry-After.',
  },
  SESSION_STORE_UNAVAILABLE: { status: [503], meaning: 'The session store is down; nothing changed; try again.' },
  // ---- registration, verification, password reset (spec 2 Registration, decisions B16, B37, B51, B86) ----
  COPPA_BLOCK: { status: [403], meaning: 'The date of birth is under 13; nothing is stored (spec 2).' },
  EMAIL_EXISTS: { status: [409], meaning: 'A verified account holds this address (spec 2).' },
  NAME_TAKEN: {
    status: [409],
    meaning: 'Another account chose this display name, or one that looks the same (decision F47).',
  },
  UNDECRYPTABLE: {
    status: [400],
    meaning: 'A sealed field could not be opened: tampered, or sealed to another key (decision B16).',
  },
  WEAK_PASSWORD: { status: [400], meaning: 'The password breaks the password policy; the message says which rule.' },
  RESET_TOKEN_INVALID: {
    status: [400],
    meaning: 'A password-reset token that is unknown, used, replaced or expired (decision B37).',
  },
  VERIFICATION_LINK_INVALID: { status: [400], meaning: 'A verification token the bridge never issued.' },
  VERIFICATION_LINK_USED: { status: [400], meaning: 'A verification link already used; sign in instead.' },
  VERIFICATION_LINK_EXPIRED: { status: [400], meaning: 'A verification link past its lifetime; ask for a new one.' },
  EMAIL_NOT_VERIFIED: {
    status: [403],
    meaning: 'The right password of an account whose email is not verified yet; no session (decision B32).',
  },
  CONFLICT: {
    status: [409],
    meaning: 'The registration has a payment on record and cannot be started afresh (decision B86).',
  },
  ACCOUNT_NOT_CREATED: { status: [502], meaning: 'The user canister refused the new account.' },
  REGISTRATION_UNAVAILABLE: { status: [503], meaning: 'The user canister did not answer; nothing was stored.' },
  VERIFICATION_UNAVAILABLE: {
    status: [503],
    meaning: 'The user canister did not answer, or a confirmation of the link is still being finished.',
  },
  MEMBERSHIP_UNAVAILABLE: { status: [503], meaning: 'The membership canister did not answer.' },
  // ---- payments and membership (decisions B11, B27, F8) ----
  SIGNATURE_INVALID: {
    status: [400],
    meaning: 'The payment webhook’s Payment-Signature is missing, malformed, wrong or stale (decision B11).',
  },
  WEBHOOK_NOT_CONFIGURED: { status: [503], meaning: 'PAYMENT_WEBHOOK_SECRET is not set.' },
  KYC_NOT_RECORDED: { status: [409], meaning: 'The KYC result could not be recorded for this user in its state.' },
  // ---- wallet, campaigns, price (decisions B75, L21, spec 1 Oracle) ----
  SELF_TRANSFER: { status: [400], meaning: 'A transfer to the member’s own principal.' },
  RECIPIENT_NOT_FOUND: { status: [404], meaning: 'No verified member has this principal.' },
  IDEMPOTENCY_KEY_REUSED: { status: [422], meaning: 'The Idempotency-Key was used with another body.' },
  CANCELLED: { status: [409], meaning: 'A pending transfer an operator cancelled; nothing was sent.' },
  CONCURRENT_APPROVAL: { status: [409], meaning: 'Another approval of the member’s account is under way; try again.' },
  LEDGER_UNAVAILABLE: { status: [503], meaning: 'The DOM ledger did not answer; try again.' },
  NO_RATIFIED_PRICE: { status: [404], meaning: 'No DOM/USD price has been ratified by governance yet.' },
  PRICE_UNAVAILABLE: { status: [503], meaning: 'No price source answered, or none is configured.' },
  PRICE_RECORD_NOT_FOUND: { status: [404], meaning: 'No price record with this id.' },
  PRICE_STALE: { status: [409], meaning: 'The price aggregate is stale; a stale price is never proposed.' },
  PROPOSAL_PENDING: { status: [409], meaning: 'A SetDomPrice proposal is still pending.' },
  NO_AGGREGATE: { status: [409], meaning: 'The price oracle has no aggregate yet.' },
  PROPOSAL_NOT_SUBMITTED: { status: [502], meaning: 'The price-proposal run failed; the message names the run.' },
  // ---- governance live stream (decisions V32, V37) ----
  LIVE_STREAMS_FULL: { status: [503], meaning: 'Too many live streams open on this bridge; comes with Retry-After.' },
  TOO_MANY_STREAMS: {
    status: [429],
    meaning: 'Too many live streams of one member or visitor address; comes with Retry-After.',
  },
  // ---- AI (spec 2 AI endpoints, decisions A1–A18): the body is `{error: <message>, code}` ----
  CIRCUIT_OPEN: {
    status: [503],
    meaning: 'Exactly `{"error": "AI service temporarily unavailable", "code": "CIRCUIT_OPEN"}` (spec 2).',
  },
  AI_BUSY: { status: [503], meaning: 'The AI queue is full; comes with Retry-After.' },
  INFERENCE_ERROR: { status: [502], meaning: 'The model gave an unusable answer.' },
  EMBEDDING_DIMENSIONS: { status: [502], meaning: 'The embedding model returned another size than 4096.' },
  DRAFT_MALFORMED: { status: [502], meaning: 'The model did not return a valid draft twice.' },
  REINDEX_RUNNING: { status: [409], meaning: 'A reindex is already running.' },
  // ---- operations ----
  NOT_CONFIGURED: {
    status: [503],
    meaning: 'The route’s credential or dependency is not configured (ACCESS_TOKEN, API_TOKEN, …).',
  },
  EMAIL_NOT_SENT: { status: [502], meaning: 'The notification service did not send the email.' },
  TOO_MANY_INVITATIONS: { status: [429], meaning: 'Too many invitations sent; comes with Retry-After.' },
  JOB_NOT_FOUND: { status: [404], meaning: 'No background job of this name.' },
  JOB_BUSY: { status: [409], meaning: 'The job is running already.' },
  DATABASE_FAILED: {
    status: [503],
    meaning: 'The embedded database failed a sync and refuses every statement until a restart (decision P16).',
  },
  DATABASE_UNAVAILABLE: { status: [503], meaning: 'The database did not answer; comes with Retry-After.' },
} as const satisfies Record<string, ErrorCodeEntry>;

/**
 * A canister's refusal, answered under its Candid variant name (decisions V9, L21, B75, B118): the
 * governance canister's, the campaign and treasury canisters', and ICRC-1's TransferError.
 */
export const CANISTER_REFUSALS = {
  InvalidPayload: {
    status: [400],
    meaning: 'The proposal payload is invalid for its category; the message names the field (governance).',
  },
  InvalidArgument: {
    status: [400],
    meaning: 'The campaign or treasury canister refused an argument (an amount below the ledger’s minimum burn, say).',
  },
  NotAuthorized: { status: [403], meaning: 'The caller may not do this (governance, campaign, treasury).' },
  NotAMember: { status: [403], meaning: 'An Active membership is required.' },
  NotActiveWhenVotingOpened: {
    status: [403],
    meaning: 'Active now, but not when the proposal’s vote opened (decision G23).',
  },
  ProposalNotFound: { status: [404], meaning: 'No such proposal.' },
  ProposalNotOpen: { status: [409], meaning: 'The proposal is not open for this.' },
  AlreadyVoted: { status: [409], meaning: 'The member has voted on this proposal already.' },
  VotingWindowClosed: { status: [409], meaning: 'The voting window has closed.' },
  QuorumNotMet: { status: [409], meaning: 'The proposal did not reach quorum.' },
  PriceStale: { status: [409], meaning: 'The ratified price is stale.' },
  ExecutionFailed: { status: [409], meaning: 'Not Approved, or the action failed; retry later.' },
  MembershipUnavailable: { status: [503], meaning: 'Membership cannot be checked right now; comes with Retry-After.' },
  SelfDelegation: { status: [400], meaning: 'A member cannot delegate to themselves.' },
  DelegateNotAMember: { status: [400], meaning: 'The delegate must be an Active member.' },
  NotDelegating: { status: [404], meaning: 'No delegation for that category.' },
  ReasonTooLong: { status: [400], meaning: 'The vote reason is too long.' },
  CampaignNotFound: { status: [404], meaning: 'No such campaign.' },
  CampaignClosed: { status: [409], meaning: 'The campaign is closed.' },
  PriceUnavailable: { status: [409], meaning: 'No usable DOM/USD price: give a DOM amount.' },
  InsufficientFunds: {
    status: [409],
    meaning: 'Not enough DOM: the amount, the ledger fee and the member’s pending transfers.',
  },
  InsufficientAllowance: { status: [409], meaning: 'The approval does not cover the amount plus the ledger fee.' },
  BadFee: { status: [409], meaning: 'The fee is not the ledger’s fee; the message names it (ICRC-1).' },
  TooOld: {
    status: [409],
    meaning: 'The ledger was unreachable for 24 hours and no longer accepts the transfer; nothing was sent (ICRC-1).',
  },
  LedgerError: { status: [502], meaning: 'The DOM ledger refused or could not be reached; try again.' },
} as const satisfies Record<string, ErrorCodeEntry>;

export type BridgeErrorCode = keyof typeof ERROR_CODES;
export type CanisterRefusal = keyof typeof CANISTER_REFUSALS;
export type ErrorCode = BridgeErrorCode | CanisterRefusal;
const ALL: Record<ErrorCode, ErrorCodeEntry> = { ...ERROR_CODES, ...CANISTER_REFUSALS };
/** The statuses `C` is registered with. */
export type StatusOf<C extends ErrorCode> = (typeof ERROR_CODES & typeof CANISTER_REFUSALS)[C]['status'][number];

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ALL, code);
/** The registry's entry of a code, for the document and the docs page. */
export const errorCode = (code: ErrorCode): ErrorCodeEntry => ALL[code];
