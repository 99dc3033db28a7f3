// What the campaign and treasury canisters did with members' DOM, as in-bridge events (decision N22:
// feed items and the refund-confirmation / treasury-milestone emails). Amounts are e8s and block
// indexes decimal strings, times ISO-8601 (JSON has no bigint). Each event's source_id is stable
// (`created:<campaign>`, `refund:<campaign>:<seq>`, `payout:<proposal>`), so following twice or from
// two instances stores it once.
export interface FundsEventMap {
  CampaignCreated: { campaign_id: string; title: string; owner: string; beneficiary: string; deadline: string };
  /** An open campaign's progress reached its goal (100 %) before the deadline. */
  CampaignGoalReached: { campaign_id: string; title: string };
  /**
   * The campaign's outcome is final and its money has moved: a Succeeded campaign's escrow released to
   * the beneficiary (`released`), or every contribution of a Failed or Cancelled one refunded.
   */
  CampaignSettled: {
    campaign_id: string;
    title: string;
    status: 'Succeeded' | 'Failed' | 'Cancelled';
    beneficiary: string;
    contributions: string;
    released?: { amount_e8s: string; block_index: string; at: string };
  };
  /** One contribution returned to its contributor (less the ledger fee). */
  ContributionRefunded: {
    campaign_id: string;
    title: string;
    status: 'Failed' | 'Cancelled';
    seq: string;
    contributor: string;
    contributed_e8s: string;
    /** The contribution's own ledger block (the payment the refund answers). */
    contribution_block_index: string;
    amount_e8s: string;
    block_index: string;
    at: string;
  };
  /** The treasury paid an approved TreasuryPayout proposal. */
  TreasuryPayoutPaid: {
    proposal_id: string;
    recipient: string;
    amount_e8s: string;
    usd_value?: number;
    memo?: string;
    block_index: string;
    paid_at: string;
  };
}
