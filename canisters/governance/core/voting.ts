// Voting (spec 1 Authentication rule 1, "Votes"): one vote per Active member while the window is open,
// each with its ICRC-7 vote-pass receipt; the tally, one's own vote, and the admin-only vote list.
import {
  CanisterReject,
  compositeKey,
  Err,
  Ok,
  u64Key,
  withPrefix,
  type CallContext,
  type Result,
} from '@domdao/canister-kit';
import { statusAt, tallyOf } from './lifecycle.ts';
import type { GovernanceState } from './state.ts';
import type {
  GovernanceDeps,
  GovernanceStores,
  ProposalRecord,
  Vote,
  VoteError,
  VoteReason,
  VoteRecord,
  VoteTally,
  VoteWithReasonError,
} from './types.ts';

/** list_votes_page's page size when none is given, and the largest it answers (decision V25). */
export const VOTES_PAGE_DEFAULT = 100;
export const VOTES_PAGE_MAX = 200;
/** Decision G34: a reason is at most this many characters (Unicode code points), as the bridge allows. */
export const MAX_REASON_CHARS = 1_000;
/** list_vote_reasons' page size when none is given, and the largest. */
export const REASONS_PAGE_DEFAULT = 50;
export const REASONS_PAGE_MAX = 100;

/** Why a vote cannot be cast on `p` at `now`, if it cannot. */
function windowError(p: ProposalRecord, now: bigint): VoteError | undefined {
  const s = statusAt(p, now);
  if (s === 'Open') return undefined;
  if (s === 'Created') return { ProposalNotOpen: null };
  return now >= p.voting_closes ? { VotingWindowClosed: null } : { ProposalNotOpen: null };
}

/**
 * The quorum base and its instant, once the opening is recorded (decision G23). A proposal opened by a
 * release that did not record the instant uses voting_opens, the nearest instant it knows.
 */
function openedWith(p: ProposalRecord): { count: bigint; at: bigint } | undefined {
  return p.total_eligible === undefined ? undefined : { count: p.total_eligible, at: p.eligible_at ?? p.voting_opens };
}

export function votingMethods(stores: GovernanceStores, deps: GovernanceDeps, state: GovernanceState) {
  const { isAdmin, nextId, receipts, transition, voteKey } = state;
  /**
   * Spec 1 Authentication rule 1: Active, unexpired membership, checked by an inter-canister call now;
   * and decision G23: Active at the instant the window opened (when total_eligible was counted), so
   * the voters are members counted in total_eligible and turnout never exceeds it. A delegate's vote
   * costs the same as anyone's: what it carries is counted after close (decision G31).
   */
  const castVote = async (
    ctx: CallContext,
    proposal_id: bigint,
    vote: Vote,
    reason?: string,
  ): Promise<Result<null, VoteError>> => {
    const key = voteKey(proposal_id, ctx.caller);
    for (;;) {
      const before = stores.proposals.get(proposal_id);
      if (!before) return Err({ ProposalNotFound: null });
      const closed = windowError(before, ctx.now);
      if (closed) return Err(closed);
      if (stores.votes.has(key)) return Err({ AlreadyVoted: null });
      let snapshot = openedWith(before);
      let member: { active_now: boolean; active_at: boolean };
      try {
        // A window whose opening the scheduler has not recorded yet is opened by its first vote.
        snapshot ??= await deps.membership.active_member_snapshot();
        member = await deps.membership.voting_eligibility(ctx.caller, snapshot.at);
      } catch (e) {
        return Err({ MembershipUnavailable: e instanceof Error ? e.message : String(e) });
      }
      // Re-check after the awaits: on the IC other messages may have run in between.
      let p = stores.proposals.get(proposal_id)!;
      const recorded = openedWith(p);
      // Another message recorded the opening meanwhile, at another instant: check at that one (once: it never changes
      // again).
      if (recorded && recorded.at !== snapshot.at) continue;
      const closedNow = windowError(p, ctx.now);
      if (closedNow) return Err(closedNow);
      if (stores.votes.has(key)) return Err({ AlreadyVoted: null });
      if (!member.active_now) return Err({ NotAMember: null });
      if (!member.active_at) return Err({ NotActiveWhenVotingOpened: { opened_at: snapshot.at } });
      // The record changes only when this vote opens the window; the counts have their own key (P4).
      if (!recorded) {
        p = state.opened(p, snapshot);
        if (p.status !== 'Created') stores.proposals.set(proposal_id, p);
      }
      if (p.status === 'Created') p = transition(p, 'Open', ctx.now);
      stores.tallies.set(proposal_id, {
        yes_votes: p.yes_votes + (vote === 'Yes' ? 1n : 0n),
        no_votes: p.no_votes + (vote === 'No' ? 1n : 0n),
        abstentions: p.abstentions + (vote === 'Abstain' ? 1n : 0n),
      });
      const token_id = receipts.mint(nextId('receipt'), ctx.caller, proposal_id, ctx.now);
      stores.votes.set(key, {
        voter: ctx.caller,
        vote,
        voted_at: ctx.now,
        receipt_token_id: token_id,
        ...(reason !== undefined && { reason }),
      });
      if (reason !== undefined) {
        const seq = nextId(`reason|${proposal_id}`);
        stores.reasons.set(compositeKey(u64Key(proposal_id), u64Key(seq)), { seq, vote, reason });
      }
      return Ok(null);
    }
  };

  return {
    cast_vote(ctx: CallContext, proposal_id: bigint, vote: Vote): Promise<Result<null, VoteError>> {
      return castVote(ctx, proposal_id, vote);
    },

    /** Decision G34: a vote with the voter's reason (OpenZeppelin's castVoteWithReason); an empty reason is none. */
    async cast_vote_with_reason(
      ctx: CallContext,
      proposal_id: bigint,
      vote: Vote,
      reason: string,
    ): Promise<Result<null, VoteWithReasonError>> {
      const text = reason.trim();
      if ([...text].length > MAX_REASON_CHARS) return Err({ ReasonTooLong: { max: MAX_REASON_CHARS } });
      return castVote(ctx, proposal_id, vote, text === '' ? undefined : text);
    },

    /**
     * Decision G34: the reasons given on a proposal, oldest first after `after`, each with its vote and
     * without its voter (who voted how stays admin-only, spec 1 Authentication rule 2). Public.
     */
    list_vote_reasons(_ctx: CallContext, proposal_id: bigint, after?: bigint, limit?: number): VoteReason[] {
      const size = Math.min(Math.max(limit ?? REASONS_PAGE_DEFAULT, 1), REASONS_PAGE_MAX);
      const prefix = `${u64Key(proposal_id)}|`;
      if (after !== undefined && after >= 0xffff_ffff_ffff_ffffn) return [];
      const start = after === undefined ? prefix : compositeKey(u64Key(proposal_id), u64Key(after + 1n));
      return [...withPrefix((from) => stores.reasons.entries({ from }), prefix, start)]
        .slice(0, size)
        .map(([, r]) => r);
    },

    get_tally(ctx: CallContext, proposal_id: bigint): VoteTally | undefined {
      const p = stores.proposals.get(proposal_id);
      if (!p || statusAt(p, ctx.now) === 'Created') return undefined;
      return tallyOf(p);
    },

    /**
     * Decision G46: the instant after which an Approved proposal that was not executed is Expired
     * (voting_closes + the execution window in force at its creation); public, as get_proposal.
     */
    get_execution_deadline(_ctx: CallContext, proposal_id: bigint): bigint | undefined {
      return stores.proposals.get(proposal_id)?.execution_deadline;
    },

    get_my_vote(ctx: CallContext, proposal_id: bigint): Vote | undefined {
      return stores.votes.get(voteKey(proposal_id, ctx.caller))?.vote;
    },

    /** Admin only (spec 1 Authentication rule 2); a query has no error variant, so others are rejected. */
    list_votes(ctx: CallContext, proposal_id: bigint): VoteRecord[] {
      if (!isAdmin(ctx.caller)) throw new CanisterReject('NotAuthorized: list_votes is admin only');
      return [...withPrefix((from) => stores.votes.entries({ from }), `${u64Key(proposal_id)}|`)].map(([, v]) => v);
    },

    /**
     * Decision V25: the votes a page at a time, in voter order, after the voter `after`
     * (exclusive), at most `limit` (default 100, at most 200), so each answer stays far inside the
     * IC's reply and query instruction limits whatever the turnout. Admin only, as list_votes.
     */
    list_votes_page(ctx: CallContext, proposal_id: bigint, after?: string, limit?: number): VoteRecord[] {
      if (!isAdmin(ctx.caller)) throw new CanisterReject('NotAuthorized: list_votes_page is admin only');
      const size = Math.min(Math.max(limit ?? VOTES_PAGE_DEFAULT, 1), VOTES_PAGE_MAX);
      const prefix = `${u64Key(proposal_id)}|`;
      const start = after === undefined ? prefix : voteKey(proposal_id, after);
      const page: VoteRecord[] = [];
      for (const [key, vote] of stores.votes.entries({ from: start })) {
        if (!key.startsWith(prefix) || page.length >= size) break;
        if (after !== undefined && key === start) continue;
        page.push(vote);
      }
      return page;
    },
  };
}
