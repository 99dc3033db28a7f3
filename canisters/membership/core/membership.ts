// The membership canister's core (spec 2): soul-bound ICRC-7 membership tokens and their statuses.
//   none ──mint_membership_registered (user canister)──▶ Registered ──upgrade_to_active (user canister)──▶ Active
//   Active ──Dec 31 23:59:59 UTC passes──▶ Expired ──upgrade_to_active (renewal)──▶ Active
//   any ──revoke_membership (admin)──▶ Revoked (final)
// Pure: caller and time come in the CallContext; all state is in the stores.
import { Err, isDefaultSubaccount, Ok, type Account, type CallContext, type Result, type Store } from '@domdao/canister-kit';
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
}

/** What callers see: the record with the status in force now and is_active. */
export interface MembershipToken extends Omit<TokenRecord, 'status'> {
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
}

export interface MembershipStores {
  tokens: Store<bigint, TokenRecord>;
  byOwner: Store<string, bigint>;
  config: Store<'config', MembershipConfig>;
}

export const MEMBERSHIP_STORE_NAMES: Record<keyof MembershipStores, string> = { tokens: 'tokens', byOwner: 'by_owner', config: 'config' };

export const MAX_PAYMENT_PROOF_BYTES = 64 * 1024;
export const MAX_QUERY_BATCH = 100;
export const MAX_TAKE = 100;

export type TransferError = { GenericError: { error_code: bigint; message: string } };

export function membershipCore(stores: MembershipStores) {
  const config = (): MembershipConfig => {
    const c = stores.config.get('config');
    if (!c) throw new Error('membership canister not initialised');
    return c;
  };
  const view = (t: TokenRecord, now: bigint): MembershipToken => {
    const expired = t.status === 'Active' && t.expiration_date <= now;
    const status: MembershipStatus = expired ? 'Expired' : t.status;
    return { ...t, status, is_active: status === 'Active' };
  };
  const isAdmin = (p: string) => config().admins.includes(p);

  return {
    init(initial: Omit<MembershipConfig, 'next_token_id'>): void {
      if (stores.config.has('config')) throw new Error('already initialised');
      stores.config.set('config', { ...initial, admins: [...initial.admins], next_token_id: 1n });
    },

    /** Spec 2: callable only by the user canister, once per principal. */
    mint_membership_registered(ctx: CallContext, owner: string, tos_accepted_at: bigint): Result<bigint, string> {
      const c = config();
      if (ctx.caller !== c.user_canister) return Err('not authorised: only the user canister may mint membership tokens');
      if (stores.byOwner.has(owner)) return Err('a membership token already exists for this principal');
      if (tos_accepted_at === 0n || tos_accepted_at > ctx.now) return Err('tos_accepted_at must be a past time');
      const token_id = c.next_token_id;
      stores.tokens.set(token_id, { token_id, owner, join_date: ctx.now, status: 'Registered', tos_accepted_at, expiration_date: 0n });
      stores.byOwner.set(owner, token_id);
      stores.config.set('config', { ...c, next_token_id: token_id + 1n });
      return Ok(token_id);
    },

    /**
     * Registered → Active, and Expired/Active → Active as a renewal (decision M2). The user canister has
     * already checked age and KYC and the bridge the payment; this records it.
     */
    upgrade_to_active(ctx: CallContext, owner: string, payment_proof: Uint8Array): Result<null, string> {
      if (ctx.caller !== config().user_canister) return Err('not authorised: only the user canister may upgrade memberships');
      if (payment_proof.length === 0 || payment_proof.length > MAX_PAYMENT_PROOF_BYTES) {
        return Err(`payment_proof must be 1 to ${MAX_PAYMENT_PROOF_BYTES} bytes`);
      }
      const id = stores.byOwner.get(owner);
      const token = id === undefined ? undefined : stores.tokens.get(id);
      if (!token) return Err('no Registered membership exists for this principal');
      if (token.status === 'Revoked') return Err('the membership was revoked');
      const current = token.status === 'Active' ? token.expiration_date : undefined;
      stores.tokens.set(token.token_id, { ...token, status: 'Active', expiration_date: activeUntil(ctx.now, current) });
      return Ok(null);
    },

    /** Admins and the governance canister; Revoked is final (decision M4). */
    revoke_membership(ctx: CallContext, owner: string): Result<null, string> {
      if (!isAdmin(ctx.caller) && ctx.caller !== config().governance_canister) return Err('not authorised: admin only');
      const id = stores.byOwner.get(owner);
      const token = id === undefined ? undefined : stores.tokens.get(id);
      if (!token) return Err('no membership exists for this principal');
      if (token.status === 'Revoked') return Err('the membership is already revoked');
      stores.tokens.set(token.token_id, { ...token, status: 'Revoked' });
      return Ok(null);
    },

    /**
     * A MembershipPolicy proposal executed by governance (decision G11): admins added and removed,
     * memberships revoked, all or nothing.
     */
    apply_policy(ctx: CallContext, policy: { add_admins: string[]; remove_admins: string[]; revoke: string[] }): Result<null, string> {
      const c = config();
      if (ctx.caller !== c.governance_canister) return Err('not authorised: only the governance canister applies membership policy');
      for (const owner of policy.revoke) {
        const id = stores.byOwner.get(owner);
        if (id === undefined) return Err(`no membership exists for ${owner}`);
      }
      for (const owner of policy.revoke) {
        const token = stores.tokens.get(stores.byOwner.get(owner)!)!;
        if (token.status !== 'Revoked') stores.tokens.set(token.token_id, { ...token, status: 'Revoked' });
      }
      const admins = [...c.admins.filter((a) => !policy.remove_admins.includes(a)), ...policy.add_admins.filter((a) => !c.admins.includes(a))];
      stores.config.set('config', { ...c, admins });
      return Ok(null);
    },

    get_membership_status(ctx: CallContext, owner: string): MembershipToken | undefined {
      const id = stores.byOwner.get(owner);
      const token = id === undefined ? undefined : stores.tokens.get(id);
      return token && view(token, ctx.now);
    },

    /** Members who may vote now: Active and not past expiry. Governance snapshots this when a vote opens. */
    count_active_members(ctx: CallContext): bigint {
      let n = 0n;
      for (const [, t] of stores.tokens.entries()) if (t.status === 'Active' && t.expiration_date > ctx.now) n++;
      return n;
    },

    // ICRC-7 (read side) and ICRC-10. Tokens are soul-bound: held by the owner's default account.
    icrc7_name: (_ctx: CallContext) => 'DOM DAO membership',
    icrc7_symbol: (_ctx: CallContext) => 'DOMM',
    icrc7_description: (_ctx: CallContext) => 'Soul-bound membership tokens of DOM DAO; status Registered, Active, Expired or Revoked.',
    icrc7_total_supply: (_ctx: CallContext): bigint => BigInt(stores.tokens.size),
    icrc7_supply_cap: (_ctx: CallContext): bigint | undefined => undefined,
    icrc7_max_query_batch_size: (_ctx: CallContext): bigint => BigInt(MAX_QUERY_BATCH),
    icrc7_max_take_value: (_ctx: CallContext): bigint => BigInt(MAX_TAKE),
    /** One token per owner: a page of one. */
    icrc7_default_take_value: (_ctx: CallContext): bigint => BigInt(MAX_TAKE),
    icrc7_collection_metadata(_ctx: CallContext): Array<[string, { Text: string } | { Nat: bigint }]> {
      return [
        ['icrc7:name', { Text: 'DOM DAO membership' }],
        ['icrc7:symbol', { Text: 'DOMM' }],
        ['icrc7:total_supply', { Nat: BigInt(stores.tokens.size) }],
        ['icrc7:max_query_batch_size', { Nat: BigInt(MAX_QUERY_BATCH) }],
        ['icrc7:max_take_value', { Nat: BigInt(MAX_TAKE) }],
      ];
    },
    icrc7_balance_of(_ctx: CallContext, accounts: Account[]): bigint[] {
      batch(accounts.length);
      return accounts.map((a) => (isDefaultSubaccount(a.subaccount) && stores.byOwner.has(a.owner) ? 1n : 0n));
    },
    icrc7_owner_of(_ctx: CallContext, ids: bigint[]): Array<Account | undefined> {
      batch(ids.length);
      return ids.map((id) => {
        const t = stores.tokens.get(id);
        return t && { owner: t.owner };
      });
    },
    icrc7_tokens_of(_ctx: CallContext, account: Account, prev?: bigint, take?: number): bigint[] {
      if (take !== undefined && take > MAX_TAKE) throw new Error(`take must be at most ${MAX_TAKE}`);
      if (!isDefaultSubaccount(account.subaccount)) return [];
      const id = stores.byOwner.get(account.owner);
      return id !== undefined && (prev === undefined || id > prev) && take !== 0 ? [id] : [];
    },
    icrc7_token_metadata(ctx: CallContext, ids: bigint[]): Array<Array<[string, { Text: string } | { Nat: bigint }]> | undefined> {
      batch(ids.length);
      return ids.map((id) => {
        const t = stores.tokens.get(id);
        if (!t) return undefined;
        const v = view(t, ctx.now);
        return [
          ['status', { Text: v.status }],
          ['join_date', { Nat: v.join_date }],
          ['expiration_date', { Nat: v.expiration_date }],
        ];
      });
    },
    /** Soul-bound (decision M5): every transfer is refused. */
    icrc7_transfer(_ctx: CallContext, args: unknown[]): Array<{ Err: TransferError } | undefined> {
      batch(args.length);
      return args.map(() => ({ Err: { GenericError: { error_code: 1n, message: 'membership tokens are soul-bound and cannot be transferred' } } }));
    },
    icrc10_supported_standards: (_ctx: CallContext) => [
      { name: 'ICRC-7', url: 'https://github.com/dfinity/ICRC/ICRCs/ICRC-7' },
      { name: 'ICRC-10', url: 'https://github.com/dfinity/ICRC/ICRCs/ICRC-10' },
    ],
  };
}

function batch(n: number): void {
  if (n > MAX_QUERY_BATCH) throw new Error(`at most ${MAX_QUERY_BATCH} items per call`);
}

export type MembershipCore = ReturnType<typeof membershipCore>;
