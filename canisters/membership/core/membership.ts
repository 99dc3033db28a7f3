// The membership canister's core (spec 2): soul-bound ICRC-7 membership tokens and their statuses.
//   none ──mint_membership_registered (user canister)──▶ Registered ──upgrade_to_active (user canister)──▶ Active
//   Active ──Dec 31 23:59:59 UTC passes──▶ Expired ──upgrade_to_active (renewal)──▶ Active
//   any ──revoke_membership (admin)──▶ Revoked (final)
// Pure: caller and time come in the CallContext; all state is in the stores.
import {
  Err,
  ICRC7_MAX_TAKE as MAX_TAKE,
  Ok,
  soulboundIcrc7,
  type CallContext,
  type Result,
  type Store,
} from '@domdao/canister-kit';
import { activeUntil } from './expiry.ts';

export type MembershipStatus = 'Registered' | 'Active' | 'Expired' | 'Revoked';

/** Spec 2 "Membership token and status", as stored. `status` is never stored as Expired: that is derived from time. */
export interface TokenRecord {
  token_id: bigint;
  owner: string;
  join_date: bigint;
  status: Exclude<MembershipStatus, 'Expired'>;
  tos_accepted_at: bigint;
  /** 0 while Registered. */
  expiration_date: bigint;
  /**
   * Membership history for "was this principal Active at time T" in O(1) (decision M8): the start of
   * the current run of Active status (set on Registered → Active and Expired → Active, kept by an early
   * renewal); absent on a token made Active before the history existed (then join_date stands in).
   */
  active_since?: bigint;
  /** The run before the current one, kept when an Expired membership is renewed: Active from `since` until `until` (its expiry). */
  previous_term?: { since: bigint; until: bigint };
  /** When it was revoked (tokens revoked before the history existed have none). */
  revoked_at?: bigint;
}

/** A token as callers see it has no history fields (get_membership_status's Candid record is unchanged). */
type History = 'active_since' | 'previous_term' | 'revoked_at';

/** What callers see: the record with the status in force now and is_active. */
export interface MembershipToken extends Omit<TokenRecord, 'status' | History> {
  status: MembershipStatus;
  is_active: boolean;
}

export interface MembershipConfig {
  /** The only caller of mint_membership_registered and upgrade_to_active (the user canister). */
  user_canister: string;
  /** May revoke and change this configuration (the governance canister executes MembershipPolicy). */
  governance_canister: string;
  admins: string[];
  next_token_id: bigint;
  /**
   * How far `activeByExpiry` covers the tokens (decision M7): absent or true, all of them (a canister
   * initialised with the count); a token id, those below it (a store from before the count, counted by
   * `count_active_step`). A config stored by an earlier release has none: nothing counted yet.
   */
  active_counted?: true | bigint;
}

export interface MembershipStores {
  tokens: Store<bigint, TokenRecord>;
  byOwner: Store<string, bigint>;
  config: Store<'config', MembershipConfig>;
  /** Active memberships by their expiration_date (all end on a Dec 31, so a handful of entries): count_active_members sums them. Listed last, so its stable memory id is new (decision M7). */
  activeByExpiry: Store<bigint, bigint>;
}

export const MEMBERSHIP_STORE_NAMES: Record<keyof MembershipStores, string> = {
  tokens: 'tokens',
  byOwner: 'by_owner',
  config: 'config',
  activeByExpiry: 'active_by_expiry',
};

/** Tokens a count_active_step reads (≈ 10 million instructions each on Azle 0.33: within an update's 40 billion with room). */
export const ACTIVE_COUNT_STEP = 500;

export const MAX_PAYMENT_PROOF_BYTES = 64 * 1024;
export { ICRC7_MAX_QUERY_BATCH as MAX_QUERY_BATCH, ICRC7_MAX_TAKE as MAX_TAKE } from '@domdao/canister-kit';

/** Decision M8: whether token `t` was Active at `at` (see voting_eligibility). */
function activeAt(t: TokenRecord, at: bigint): boolean {
  if (t.previous_term && t.previous_term.since < at && at < t.previous_term.until) return true;
  if (t.status === 'Registered' || (t.status === 'Revoked' && t.revoked_at === undefined)) return false;
  // A token made Active before the history existed: Active since it joined (the earliest it can have been).
  const since = t.active_since ?? t.join_date;
  const until = t.revoked_at !== undefined && t.revoked_at < t.expiration_date ? t.revoked_at : t.expiration_date;
  return since < at && at < until;
}

export function membershipCore(stores: MembershipStores) {
  const config = (): MembershipConfig => {
    const c = stores.config.get('config');
    if (!c) throw new Error('membership canister not initialised');
    return c;
  };
  const view = (t: TokenRecord, now: bigint): MembershipToken => {
    const { active_since: _s, previous_term: _p, revoked_at: _r, ...token } = t;
    const expired = t.status === 'Active' && t.expiration_date <= now;
    const status: MembershipStatus = expired ? 'Expired' : t.status;
    return { ...token, status, is_active: status === 'Active' };
  };
  const isAdmin = (p: string) => config().admins.includes(p);
  /** Tokens below this id are in `activeByExpiry` (decision M7). */
  const countedBelow = (c: MembershipConfig): bigint =>
    c.active_counted === undefined ? 1n : c.active_counted === true ? c.next_token_id : c.active_counted;
  /** Moves `token`'s contribution to the active count from what it was to what it becomes (decision M7). */
  const recount = (before: TokenRecord, after: TokenRecord): void => {
    if (before.token_id >= countedBelow(config())) return;
    const add = (t: TokenRecord, by: bigint) => {
      if (t.status !== 'Active') return;
      const n = (stores.activeByExpiry.get(t.expiration_date) ?? 0n) + by;
      if (n === 0n) stores.activeByExpiry.delete(t.expiration_date);
      else stores.activeByExpiry.set(t.expiration_date, n);
    };
    add(before, -1n);
    add(after, 1n);
  };
  /** Decision M7: the sum of the few `activeByExpiry` entries after `now`, plus tokens of an earlier release not yet counted. */
  const countActive = (now: bigint): bigint => {
    let n = 0n;
    for (const [expiry, count] of stores.activeByExpiry.entries()) if (expiry > now) n += count;
    const below = countedBelow(config());
    if (below < config().next_token_id)
      for (const [, t] of stores.tokens.entries({ from: below }))
        if (t.status === 'Active' && t.expiration_date > now) n++;
    return n;
  };
  const write = (before: TokenRecord, after: TokenRecord): void => {
    stores.tokens.set(after.token_id, after);
    recount(before, after);
  };

  return {
    init(initial: Omit<MembershipConfig, 'next_token_id'>): void {
      if (stores.config.has('config')) throw new Error('already initialised');
      stores.config.set('config', { ...initial, admins: [...initial.admins], next_token_id: 1n, active_counted: true });
    },

    /** Spec 2: callable only by the user canister, once per principal. */
    mint_membership_registered(ctx: CallContext, owner: string, tos_accepted_at: bigint): Result<bigint, string> {
      const c = config();
      if (ctx.caller !== c.user_canister)
        return Err('not authorised: only the user canister may mint membership tokens');
      if (stores.byOwner.has(owner)) return Err('a membership token already exists for this principal');
      if (tos_accepted_at === 0n || tos_accepted_at > ctx.now) return Err('tos_accepted_at must be a past time');
      const token_id = c.next_token_id;
      stores.tokens.set(token_id, {
        token_id,
        owner,
        join_date: ctx.now,
        status: 'Registered',
        tos_accepted_at,
        expiration_date: 0n,
      });
      stores.byOwner.set(owner, token_id);
      // A new token is Registered (not counted); while an earlier store is being counted, the cursor stays put.
      stores.config.set('config', {
        ...c,
        next_token_id: token_id + 1n,
        active_counted: c.active_counted ?? countedBelow(c),
      });
      return Ok(token_id);
    },

    /**
     * Registered → Active, and Expired/Active → Active as a renewal (decision M2). The user canister has
     * already checked age and KYC and the bridge the payment; this records it.
     */
    upgrade_to_active(ctx: CallContext, owner: string, payment_proof: Uint8Array): Result<null, string> {
      if (ctx.caller !== config().user_canister)
        return Err('not authorised: only the user canister may upgrade memberships');
      if (payment_proof.length === 0 || payment_proof.length > MAX_PAYMENT_PROOF_BYTES) {
        return Err(`payment_proof must be 1 to ${MAX_PAYMENT_PROOF_BYTES} bytes`);
      }
      const id = stores.byOwner.get(owner);
      const token = id === undefined ? undefined : stores.tokens.get(id);
      if (!token) return Err('no Registered membership exists for this principal');
      if (token.status === 'Revoked') return Err('the membership was revoked');
      const current = token.status === 'Active' ? token.expiration_date : undefined;
      const stillActive = current !== undefined && current > ctx.now;
      // Decision M8: a renewal of an Expired membership starts a new run and keeps the one before it.
      const lapsed =
        token.status === 'Active' && !stillActive
          ? { since: token.active_since ?? token.join_date, until: token.expiration_date }
          : undefined;
      write(token, {
        ...token,
        status: 'Active',
        expiration_date: activeUntil(ctx.now, current),
        active_since: stillActive ? (token.active_since ?? token.join_date) : ctx.now,
        ...(lapsed && { previous_term: lapsed }),
      });
      return Ok(null);
    },

    /** Admins and the governance canister; Revoked is final (decision M4). */
    revoke_membership(ctx: CallContext, owner: string): Result<null, string> {
      if (!isAdmin(ctx.caller) && ctx.caller !== config().governance_canister) return Err('not authorised: admin only');
      const id = stores.byOwner.get(owner);
      const token = id === undefined ? undefined : stores.tokens.get(id);
      if (!token) return Err('no membership exists for this principal');
      if (token.status === 'Revoked') return Err('the membership is already revoked');
      write(token, { ...token, status: 'Revoked', revoked_at: ctx.now });
      return Ok(null);
    },

    /**
     * A MembershipPolicy proposal executed by governance (decision G11): admins added and removed,
     * memberships revoked, all or nothing.
     */
    apply_policy(
      ctx: CallContext,
      policy: { add_admins: string[]; remove_admins: string[]; revoke: string[] },
    ): Result<null, string> {
      const c = config();
      if (ctx.caller !== c.governance_canister)
        return Err('not authorised: only the governance canister applies membership policy');
      for (const owner of policy.revoke) {
        const id = stores.byOwner.get(owner);
        if (id === undefined) return Err(`no membership exists for ${owner}`);
      }
      for (const owner of policy.revoke) {
        const token = stores.tokens.get(stores.byOwner.get(owner)!)!;
        if (token.status !== 'Revoked') write(token, { ...token, status: 'Revoked', revoked_at: ctx.now });
      }
      const admins = [
        ...c.admins.filter((a) => !policy.remove_admins.includes(a)),
        ...policy.add_admins.filter((a) => !c.admins.includes(a)),
      ];
      stores.config.set('config', { ...c, admins });
      return Ok(null);
    },

    get_membership_status(ctx: CallContext, owner: string): MembershipToken | undefined {
      const id = stores.byOwner.get(owner);
      const token = id === undefined ? undefined : stores.tokens.get(id);
      return token && view(token, ctx.now);
    },

    /**
     * Members who may vote now: Active and not past expiry. Governance snapshots this when a vote opens.
     * The sum of the few `activeByExpiry` entries after now (decision M7: a scan of every token cost
     * ≈ 10.8 million instructions each, beyond the limits at 10,000 members); a store from an earlier
     * release not yet fully counted adds the tokens at and after the count's cursor.
     */
    count_active_members(ctx: CallContext): bigint {
      return countActive(ctx.now);
    },

    /**
     * The quorum base of a vote and the instant it holds for (decision M8): governance records both when
     * a window opens, and later asks voting_eligibility at that instant, so its voters are a subset of
     * the members counted.
     */
    active_member_snapshot(ctx: CallContext): { count: bigint; at: bigint } {
      return { count: countActive(ctx.now), at: ctx.now };
    },

    /**
     * Whether `owner` is Active now, and was Active at `at` (decision M8): in O(1) from the token's
     * history. A run counts from strictly after its start (a member made Active at the very instant of
     * a snapshot may or may not have been counted by it) until its expiry or revocation; `at` in the
     * future is not known yet (false).
     */
    voting_eligibility(ctx: CallContext, owner: string, at: bigint): { active_now: boolean; active_at: boolean } {
      const id = stores.byOwner.get(owner);
      const t = id === undefined ? undefined : stores.tokens.get(id);
      if (!t) return { active_now: false, active_at: false };
      return { active_now: view(t, ctx.now).is_active, active_at: at <= ctx.now && activeAt(t, at) };
    },

    /** When count_active_step has work (a store from an earlier release): now; otherwise never. */
    count_active_due(ctx: CallContext): bigint | undefined {
      return countedBelow(config()) < config().next_token_id ? ctx.now : undefined;
    },

    /** Counts the next ACTIVE_COUNT_STEP tokens of a store from an earlier release into `activeByExpiry` (the timer's step). */
    count_active_step(): void {
      const c = config();
      const from = countedBelow(c);
      if (from >= c.next_token_id) {
        if (c.active_counted !== true) stores.config.set('config', { ...c, active_counted: true });
        return;
      }
      let next = c.next_token_id;
      let read = 0;
      for (const [id, t] of stores.tokens.entries({ from })) {
        if (read++ === ACTIVE_COUNT_STEP) {
          next = id;
          break;
        }
        if (t.status === 'Active')
          stores.activeByExpiry.set(t.expiration_date, (stores.activeByExpiry.get(t.expiration_date) ?? 0n) + 1n);
      }
      stores.config.set('config', { ...c, active_counted: next >= c.next_token_id ? true : next });
    },

    // ICRC-7 (read side) and ICRC-10. Tokens are soul-bound (decision M5): held by the owner's default account.
    ...soulboundIcrc7({
      name: 'DOM DAO membership',
      symbol: 'DOMM',
      description: 'Soul-bound membership tokens of DOM DAO; status Registered, Active, Expired or Revoked.',
      /** One token per owner: a page of one. */
      defaultTake: MAX_TAKE,
      soulBound: 'membership tokens are soul-bound and cannot be transferred',
      totalSupply: () => BigInt(stores.tokens.size),
      owner: (id) => stores.tokens.get(id)?.owner,
      tokensOf(owner, prev) {
        const id = stores.byOwner.get(owner);
        return id !== undefined && (prev === undefined || id > prev) ? [id] : [];
      },
      *tokens(prev) {
        for (const [id] of stores.tokens.entries(prev === undefined ? {} : { from: prev })) yield id;
      },
      metadata(id, now) {
        const t = stores.tokens.get(id);
        if (!t) return undefined;
        const v = view(t, now);
        return [
          ['status', { Text: v.status }],
          ['join_date', { Nat: v.join_date }],
          ['expiration_date', { Nat: v.expiration_date }],
        ];
      },
    }),
  };
}

export type MembershipCore = ReturnType<typeof membershipCore>;
