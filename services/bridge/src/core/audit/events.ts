// The security events the bridge audits (decision B61): each is one JSON log line and one row of the
// append-only audit_log. The meanings are the operators' list (docs/operations/audit.md).
export const AUDIT_EVENTS = {
  'auth.login_succeeded': 'a sign-in succeeded; a new session was made',
  'auth.login_failed':
    'a sign-in was refused: wrong email or password (`reason: invalid_credentials`), or the address is not verified yet',
  'auth.login_locked_out':
    'a sign-in was refused before the password was checked: too many failures for the account or the client address (429)',
  'auth.csrf_refused':
    'a cookie-authenticated mutation or a sign-in came from an origin that is not a configured front end (decision B8)',
  'admin.access_denied':
    'an admin route answered 401 or 403: no session, no admin role, or a missing or wrong X-API-Token',
  'member.rate_limited':
    'a member was refused with 429 RATE_LIMITED before any work: too many proposals, delegation changes or member searches in the window (`limit`: which; `max` per `per`; decisions B92, B93)',
  'registration.created': 'an account was registered (unverified until its link is confirmed)',
  'registration.refused':
    "a registration was refused (`error`: the code; `reason` for VALIDATION_ERROR, e.g. `compatibility_characters` for a look-alike address, and for a display name chosen at join, decision F47: `display_name`, or `display_name_<rule>` for B89–B91's `invisible`, `combining_marks`, `reserved`, `lookalike`; `limit` for TOO_MANY_ATTEMPTS: `client` or `recipient`); an under-13 one leaves nothing (decision B85)",
  'verification.completed':
    'an email address was verified; the account became a member (`signed_in`: whether the confirmer was signed in, else `no_session`: `origin` or `session_store`, decision B105)',
  'verification.refused': 'a verification confirmation was refused (`error`: the code, e.g. VERIFICATION_LINK_EXPIRED)',
  'verification.password_refused':
    'a verification confirmation carried a password other than the one chosen at registration',
  'recovery.limited':
    'a resend-verification or password-reset request was refused with 429 (`kind`: resend or reset; `limit`: `client`, its count of such requests, or `recipient`, its email budget for the address; decision B84)',
  'password_reset.requested':
    'someone asked for a password reset (`known: false` when no account has the address; the answer is the same)',
  'password_reset.completed': "a password was reset with a live link; the account's sessions ended",
  'sessions.ended':
    "sessions ended: `scope` logout (this one), everywhere (the member's own), admin (an admin ended them)",
  'roles.granted': 'an admin granted a role (`role`) to the subject',
  'roles.revoked': "an admin revoked a role (`role`) from the subject; the subject's sessions ended",
  'roles.bootstrap_admin_granted': 'a BOOTSTRAP_ADMIN_EMAILS address was verified and got the admin role',
  'kyc.approved': "an admin recorded the subject's KYC as approved",
  'kyc.rejected': "an admin recorded the subject's KYC as rejected",
  'membership.upgraded': "a paid upgrade was applied: the subject's membership is Active",
  'escrow.resolved':
    "a campaign's escrow was resolved by its deadline (`resolution: released` to the beneficiary, or `refunded`)",
  'price.proposal_triggered':
    "POST /api/admin/price/submit-proposal ran the price-proposal job (`status`: its run); the actor is `api-token` or the admin who pressed the console's button (decision B78)",
  'ai.reindex_triggered': 'POST /api/ai/admin/reindex started the AI reindex',
  'inbox.unsubscribed': 'a member unsubscribed from the digest through the link of an email',
  'secret.rotation_noticed': 'at start, a secret (`variable`: its name) differs from the one the bridge last ran with',
  'members.display_name_refused':
    "a chosen display name was refused as passing for someone else (decisions B89–B91; `reason`: `invisible` characters, `combining_marks` stacked, a `reserved` name, or a `lookalike` of another member's name)",
  'members.display_name_reset':
    "a member's chosen display name went back to their default (`reason`: `reserved` at start-up, or `invisible`, `combining_marks`, `lookalike` when the look-alike rules arrived)",
  'canister_set.refused':
    'a bridge was refused at start, or stopped its embedded canisters, because it would split a canister set (`reason`: another_set, in_use, unreadable or lease_lost; `canister_set`: its own; decisions B100, B101)',
} as const;

export type AuditEvent = keyof typeof AUDIT_EVENTS;
export const AUDIT_EVENT_NAMES = Object.keys(AUDIT_EVENTS) as AuditEvent[];
