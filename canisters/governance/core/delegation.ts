// Liquid democracy (decisions G28–G33): a member hands their vote to another member, for every
// category or one, and takes it back by voting themselves. Delegations are kept as a history per member
// and scope, so the delegation in force when a window opened is known at any later time without copying
// anything at the opening (as G23 fixes eligibility). A delegate's vote costs what any vote costs: the
// votes it carries are counted after close, in bounded scheduler steps, one ballot per delegating member.
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
import { statusAt } from './lifecycle.ts';
import type { GovernanceState } from './state.ts';
import type {
  Ballot,
  Delegation,
  DelegationEntry,
  DelegationError,
  DelegationScope,
  DelegatorsPage,
  GovernanceDeps,
  GovernanceStores,
  ProposalCategory,
  ProposalRecord,
  SetDelegationArgs,
  Turnout,
  Vote,
} from './types.ts';
import { CATEGORIES } from './rules/categories.ts';

/**
 * Decision G29: a chain A → B → C … is followed to the first member who voted directly, at most this
 * many hops; a cycle ends the walk (it can never count a member twice: each member has one ballot).
 */
export const MAX_CHAIN_HOPS = 16;
/** Delegating members a counting step handles per proposal at most (decision G31); the IC's budget may stop it sooner. */
export const COUNT_BATCH = 2_000;
/** list_my_delegators' page size when none is given, and the largest (decision G33). */
export const DELEGATORS_PAGE_DEFAULT = 100;
export const DELEGATORS_PAGE_MAX = 500;
const ANONYMOUS = '2vxsx-fae';
const MAX_U64 = 0xffff_ffff_ffff_ffffn;

const scopeOf = (category: ProposalCategory | undefined): DelegationScope => category ?? 'All';
const historyKey = (member: string, scope: DelegationScope, since: bigint) =>
  compositeKey(member, scope, u64Key(since));
const delegatorKey = (delegate: string, member: string, scope: DelegationScope) =>
  compositeKey(delegate, member, scope);
const countKey = (delegate: string) => `delegators|${delegate}`;

/**
 * Decision G47 (amends G30): the instant a proposal's delegations are fixed at, the scheduled opening
 * (or the recorded one, were it ever earlier). The recorded opening (`eligible_at`) comes whenever the
 * scheduler or the first vote gets to it: a member who delegated on a window already open would count
 * there or not depending on that delay.
 */
const fixedAt = (p: ProposalRecord): bigint => {
  const recorded = p.eligible_at ?? p.voting_opens;
  return recorded < p.voting_opens ? recorded : p.voting_opens;
};

export function delegationCore(
  stores: GovernanceStores,
  deps: GovernanceDeps,
  state: GovernanceState,
  overBudget: () => boolean,
) {
  const { voteKey } = state;

  /** The last entry of `member`'s history for `scope` made at or before `upTo`. */
  const entryUpTo = (member: string, scope: DelegationScope, upTo: bigint): DelegationEntry | undefined => {
    const prefix = compositeKey(member, scope, '');
    for (const [key, e] of stores.delegations.entries({
      from: historyKey(member, scope, upTo),
      reverse: true,
      limit: 1,
    })) {
      return key.startsWith(prefix) ? e : undefined;
    }
    return undefined;
  };
  const current = (member: string, scope: DelegationScope) => entryUpTo(member, scope, MAX_U64);

  /**
   * Decision G30: the delegate `member` had for `category` when a window opened at `at` (`fixedAt`):
   * made strictly before it (a change at that very instant may have come after the opening, as M8
   * counts runs). A per-category delegation wins over the one for all categories; revoking it falls
   * back to that one.
   */
  const delegateAt = (member: string, category: ProposalCategory, at: bigint): string | undefined => {
    if (at === 0n) return undefined;
    for (const scope of [category, 'All'] as const) {
      const e = entryUpTo(member, scope, at - 1n);
      if (e?.delegate !== undefined) return e.delegate;
    }
    return undefined;
  };

  /** Decision G29: the first member along `member`'s chain who voted directly on `p`, and their vote. */
  const resolve = (p: ProposalRecord, member: string): { delegate: string; vote: Vote } | undefined => {
    const at = fixedAt(p);
    const seen = new Set([member]);
    let cur = member;
    for (let hop = 0; hop < MAX_CHAIN_HOPS; hop++) {
      const d = delegateAt(cur, p.category, at);
      if (d === undefined || seen.has(d)) return undefined;
      const b = stores.votes.get(voteKey(p.id, d));
      if (b && b.delegate === undefined) return { delegate: d, vote: b.vote };
      seen.add(d);
      cur = d;
    }
    return undefined;
  };

  const write = (member: string, scope: DelegationScope, entry: DelegationEntry) => {
    const before = current(member, scope);
    if (before?.delegate !== undefined) {
      stores.delegators.delete(delegatorKey(before.delegate, member, scope));
      stores.counters.set(countKey(before.delegate), (stores.counters.get(countKey(before.delegate)) ?? 1n) - 1n);
    }
    stores.delegations.set(historyKey(member, scope, entry.since), entry);
    stores.delegating.set(member, true);
    if (entry.delegate !== undefined) {
      stores.delegators.set(delegatorKey(entry.delegate, member, scope), entry.show_name);
      stores.counters.set(countKey(entry.delegate), (stores.counters.get(countKey(entry.delegate)) ?? 0n) + 1n);
    }
  };

  /**
   * Decision G31: counts the delegated ballots of a closed proposal, going on after the member where
   * the last step stopped. A member without a direct vote whose chain reaches a direct voter gets that
   * voter's vote, if Active when the window opened and Active now (G23). Returns true when done.
   */
  const countStep = async (id: bigint, now: bigint): Promise<boolean> => {
    let p = stores.proposals.get(id);
    if (!p?.delegation_pending) return true;
    // Eligibility at the recorded opening, when total_eligible was counted (G23); the delegations at fixedAt (G47).
    const at = p.eligible_at ?? p.voting_opens;
    let cursor = p.delegation_counted_to;
    let handled = 0;
    const save = () => {
      const q = stores.proposals.get(id)!;
      if (
        q.delegation_pending &&
        cursor !== undefined &&
        cursor !== q.delegation_counted_to &&
        (q.delegation_counted_to ?? '') < cursor
      ) {
        stores.proposals.set(id, { ...q, delegation_counted_to: cursor });
      }
    };
    for (;;) {
      // A fresh read each time: other messages may change the store while this one awaits.
      let member: string | undefined;
      for (const [m] of stores.delegating.entries(cursor === undefined ? { limit: 2 } : { from: cursor, limit: 2 })) {
        if (m !== cursor) {
          member = m;
          break;
        }
      }
      if (member === undefined) break;
      if (handled >= COUNT_BATCH || overBudget()) {
        save();
        return false;
      }
      handled++;
      const key = voteKey(id, member);
      const found = stores.votes.has(key) ? undefined : resolve(p, member);
      if (found) {
        let eligible: boolean;
        try {
          const e = await deps.membership.voting_eligibility(member, at);
          eligible = e.active_now && e.active_at;
        } catch {
          save();
          return false; // the membership canister is unreachable: go on at the next step
        }
        p = stores.proposals.get(id)!;
        if (!p.delegation_pending) return true; // another step finished meanwhile
        if (eligible && !stores.votes.has(key)) {
          stores.votes.set(key, {
            voter: member,
            vote: found.vote,
            voted_at: now,
            receipt_token_id: 0n,
            delegate: found.delegate,
          });
          stores.tallies.set(id, {
            yes_votes: p.yes_votes + (found.vote === 'Yes' ? 1n : 0n),
            no_votes: p.no_votes + (found.vote === 'No' ? 1n : 0n),
            abstentions: p.abstentions + (found.vote === 'Abstain' ? 1n : 0n),
            delegated_votes: (p.delegated_votes ?? 0n) + 1n,
          });
          p = stores.proposals.get(id)!;
        }
      }
      cursor = member;
    }
    const { delegation_counted_to: _, ...rest } = stores.proposals.get(id)!;
    stores.proposals.set(id, { ...rest, delegation_pending: false });
    return true;
  };

  const methods = {
    /** Decision G28: to another Active member, for all categories or one; replaces the one in force for that scope. */
    async set_delegation(ctx: CallContext, args: SetDelegationArgs): Promise<Result<null, DelegationError>> {
      if (ctx.caller === ANONYMOUS) return Err({ NotAMember: null });
      if (args.delegate === ctx.caller) return Err({ SelfDelegation: null });
      try {
        if (!(await deps.membership.get_membership_status(ctx.caller))?.is_active) return Err({ NotAMember: null });
        if (!(await deps.membership.get_membership_status(args.delegate))?.is_active)
          return Err({ DelegateNotAMember: null });
      } catch (e) {
        return Err({ MembershipUnavailable: e instanceof Error ? e.message : String(e) });
      }
      write(ctx.caller, scopeOf(args.category), {
        delegate: args.delegate,
        since: ctx.now,
        show_name: args.show_name ?? false,
      });
      return Ok(null);
    },

    /** Decision G28: revoking applies to windows opening after now; open ones keep the delegation they opened with (G30). */
    revoke_delegation(ctx: CallContext, category?: ProposalCategory): Result<null, DelegationError> {
      const scope = scopeOf(category);
      if (current(ctx.caller, scope)?.delegate === undefined) return Err({ NotDelegating: null });
      write(ctx.caller, scope, { since: ctx.now, show_name: false });
      return Ok(null);
    },

    /** The caller's delegations in force now: the one for all categories first, then per category. */
    get_my_delegations(ctx: CallContext): Delegation[] {
      const out: Delegation[] = [];
      for (const scope of ['All', ...CATEGORIES] as const) {
        const e = current(ctx.caller, scope);
        if (e?.delegate !== undefined) {
          out.push({
            ...(scope !== 'All' && { category: scope }),
            delegate: e.delegate,
            since: e.since,
            show_name: e.show_name,
          });
        }
      }
      return out;
    },

    /**
     * Decision G33: the delegations to the caller now, a page at a time after `after` (a key of an
     * earlier page): how many in all, and each one's category, with the member only where they allowed it.
     */
    list_my_delegators(ctx: CallContext, after?: string, limit?: number): DelegatorsPage {
      const size = Math.min(Math.max(limit ?? DELEGATORS_PAGE_DEFAULT, 1), DELEGATORS_PAGE_MAX);
      const prefix = compositeKey(ctx.caller, '');
      const items: DelegatorsPage['items'] = [];
      for (const [key, shown] of withPrefix((from) => stores.delegators.entries({ from }), prefix, after ?? prefix)) {
        if (key === after) continue;
        if (items.length >= size) break;
        const [, member, scope] = key.split('|') as [string, string, DelegationScope];
        items.push({ key, ...(shown && { member }), ...(scope !== 'All' && { category: scope }) });
      }
      return { total: stores.counters.get(countKey(ctx.caller)) ?? 0n, items };
    },

    /**
     * Decision G32: the caller's ballot: their direct vote, or the vote a delegate cast for them. While
     * the window is open it is resolved now (not final: the member may still vote themselves).
     */
    get_my_ballot(ctx: CallContext, proposal_id: bigint): Ballot | undefined {
      const p = stores.proposals.get(proposal_id);
      if (!p) return undefined;
      const v = stores.votes.get(voteKey(proposal_id, ctx.caller));
      if (v)
        return {
          vote: v.vote,
          ...(v.delegate !== undefined && { delegate: v.delegate }),
          ...(v.reason !== undefined && { reason: v.reason }),
          final: true,
        };
      if (statusAt(p, ctx.now) !== 'Open' || p.total_eligible === undefined) return undefined;
      const found = resolve(p, ctx.caller);
      return found && { vote: found.vote, delegate: found.delegate, final: false };
    },

    /**
     * Decision G33, admin only (the bridge, for the activity feed): the direct delegators of `delegate`
     * whose ballot on an open proposal is `delegate`'s vote now (no vote of their own). A page scans at
     * most `limit` delegations (default and largest as list_my_delegators); `next` goes on after it.
     */
    list_represented(
      ctx: CallContext,
      proposal_id: bigint,
      delegate: string,
      after?: string,
      limit?: number,
    ): { members: string[]; next?: string } {
      if (!state.isAdmin(ctx.caller)) throw new CanisterReject('NotAuthorized: list_represented is admin only');
      const p = stores.proposals.get(proposal_id);
      if (!p || p.total_eligible === undefined || statusAt(p, ctx.now) !== 'Open') return { members: [] };
      const size = Math.min(Math.max(limit ?? DELEGATORS_PAGE_DEFAULT, 1), DELEGATORS_PAGE_MAX);
      const prefix = compositeKey(delegate, '');
      const members = new Set<string>();
      let scanned = 0;
      let last: string | undefined;
      for (const [key] of withPrefix((from) => stores.delegators.entries({ from }), prefix, after ?? prefix)) {
        if (key === after) continue;
        if (scanned === size) return { members: [...members], next: last! };
        scanned++;
        last = key;
        const [, member, scope] = key.split('|') as [string, string, DelegationScope];
        if (scope !== 'All' && scope !== p.category) continue;
        if (stores.votes.has(voteKey(proposal_id, member))) continue;
        if (resolve(p, member)?.delegate === delegate) members.add(member);
      }
      return { members: [...members] };
    },

    /** Decision G32: direct and delegated turnout; delegated votes are counted after close. */
    get_turnout(ctx: CallContext, proposal_id: bigint): Turnout | undefined {
      const p = stores.proposals.get(proposal_id);
      if (!p || statusAt(p, ctx.now) === 'Created') return undefined;
      const delegated = p.delegated_votes ?? 0n;
      const counted = !p.delegation_pending && ctx.now >= p.voting_closes;
      return { direct: p.yes_votes + p.no_votes + p.abstentions - delegated, delegated, delegated_counted: counted };
    },
  };

  return { countStep, methods };
}
