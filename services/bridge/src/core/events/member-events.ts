// Events the bridge publishes about its members (decision N13): what the activity feed and the member
// emails follow. Published in the transaction of the change they announce (an outbox), so an email
// or a feed item exists iff the change committed.
export interface MemberEventMap {
  /** The member's email address was verified (the `member` role granted). */
  MemberVerified: { user_id: string };
  /** A payment made the membership Active (`renewal`: it was Active or Expired before). */
  MembershipActivated: {
    user_id: string;
    payment_event_id: string;
    payment_id: string;
    amount_minor: string;
    currency: string;
    /** ISO-8601. */
    activated_at: string;
    /** ISO-8601, the membership's new expiry. */
    expires_at: string;
    token_id: string;
    renewal: boolean;
  };
  /** An Active membership ends within 14 days and has not been renewed (the `inbox:membership-expiry` job, decision N24). */
  MembershipExpiring: { user_id: string; expires_at: string };
  /** A vote a member may still cast closes within `window` (the reminder job found it). */
  VoteClosingSoon: { proposal_id: string; title: string; window: '24h' | '1h'; voting_closes: string };
  /** A member voted directly through the bridge (decision V29): the inbox tells those their vote stands for. */
  MemberVoted: { proposal_id: string; voter: string; vote: string };
}
