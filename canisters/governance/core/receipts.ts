// Spec 1 Events rule 2: vote-pass receipts, ICRC-7 tokens minted to each voter and burned when the
// proposal is finalised. Receipts are soul-bound like membership tokens (decision G15) and their
// metadata names the proposal, never the vote (votes are visible to admins only).
import { compositeKey, isDefaultSubaccount, u64Key, withPrefix, type Account, type CallContext, type Store } from '@domdao/canister-kit';
import type { Receipt } from './types.ts';

export const MAX_QUERY_BATCH = 100;
export const MAX_TAKE = 100;
export const DEFAULT_TAKE = 20;

type Value = { Text: string } | { Nat: bigint };
export type TransferError = { GenericError: { error_code: bigint; message: string } };

interface ReceiptStores {
  receipts: Store<bigint, Receipt>;
  receiptsByOwner: Store<string, bigint>;
}

export function receiptsApi(stores: ReceiptStores) {
  const ownerKey = (owner: string, id: bigint) => compositeKey(owner, u64Key(id));
  const batch = (n: number) => {
    if (n > MAX_QUERY_BATCH) throw new RangeError(`at most ${MAX_QUERY_BATCH} items per call`);
  };
  const countOf = (owner: string): bigint => {
    let n = 0n;
    for (const _ of withPrefix((from) => stores.receiptsByOwner.entries({ from }), `${owner}|`)) n++;
    return n;
  };

  return {
    mint(token_id: bigint, owner: string, proposal_id: bigint, now: bigint): bigint {
      stores.receipts.set(token_id, { token_id, owner, proposal_id, minted_at: now });
      stores.receiptsByOwner.set(ownerKey(owner, token_id), token_id);
      return token_id;
    },
    burn(token_id: bigint): void {
      const r = stores.receipts.get(token_id);
      if (!r) return;
      stores.receipts.delete(token_id);
      stores.receiptsByOwner.delete(ownerKey(r.owner, token_id));
    },
    queries: {
      icrc7_name: (_ctx: CallContext) => 'DOM DAO vote pass',
      icrc7_symbol: (_ctx: CallContext) => 'DOMVOTE',
      icrc7_description: (_ctx: CallContext) => 'Receipts of votes cast in DOM DAO governance; burned when the proposal is finalised.',
      icrc7_total_supply: (_ctx: CallContext): bigint => BigInt(stores.receipts.size),
      icrc7_supply_cap: (_ctx: CallContext): bigint | undefined => undefined,
      icrc7_max_query_batch_size: (_ctx: CallContext): bigint => BigInt(MAX_QUERY_BATCH),
      icrc7_max_take_value: (_ctx: CallContext): bigint => BigInt(MAX_TAKE),
      icrc7_default_take_value: (_ctx: CallContext): bigint => BigInt(DEFAULT_TAKE),
      icrc7_collection_metadata(_ctx: CallContext): Array<[string, Value]> {
        return [
          ['icrc7:name', { Text: 'DOM DAO vote pass' }],
          ['icrc7:symbol', { Text: 'DOMVOTE' }],
          ['icrc7:description', { Text: 'Receipts of votes cast in DOM DAO governance; burned when the proposal is finalised.' }],
          ['icrc7:total_supply', { Nat: BigInt(stores.receipts.size) }],
          ['icrc7:max_query_batch_size', { Nat: BigInt(MAX_QUERY_BATCH) }],
          ['icrc7:max_take_value', { Nat: BigInt(MAX_TAKE) }],
          ['icrc7:default_take_value', { Nat: BigInt(DEFAULT_TAKE) }],
        ];
      },
      icrc7_balance_of(_ctx: CallContext, accounts: Account[]): bigint[] {
        batch(accounts.length);
        return accounts.map((a) => (isDefaultSubaccount(a.subaccount) ? countOf(a.owner) : 0n));
      },
      icrc7_owner_of(_ctx: CallContext, ids: bigint[]): Array<Account | undefined> {
        batch(ids.length);
        return ids.map((id) => {
          const r = stores.receipts.get(id);
          return r && { owner: r.owner };
        });
      },
      /** Token ids of `account` in ascending order after `prev`, at most `take` (ICRC-7 pagination). */
      icrc7_tokens_of(_ctx: CallContext, account: Account, prev?: bigint, take?: number): bigint[] {
        if (take !== undefined && take > MAX_TAKE) throw new RangeError(`take must be at most ${MAX_TAKE}`);
        if (!isDefaultSubaccount(account.subaccount)) return [];
        const n = take ?? DEFAULT_TAKE;
        const out: bigint[] = [];
        const from = prev === undefined ? `${account.owner}|` : ownerKey(account.owner, prev);
        for (const [, id] of withPrefix((f) => stores.receiptsByOwner.entries({ from: f }), `${account.owner}|`, from)) {
          if (out.length === n) break;
          if (prev !== undefined && id <= prev) continue;
          out.push(id);
        }
        return out;
      },
      icrc7_token_metadata(_ctx: CallContext, ids: bigint[]): Array<Array<[string, Value]> | undefined> {
        batch(ids.length);
        return ids.map((id) => {
          const r = stores.receipts.get(id);
          return r && [
            ['proposal_id', { Nat: r.proposal_id }],
            ['minted_at', { Nat: r.minted_at }],
          ];
        });
      },
      icrc7_transfer(_ctx: CallContext, args: unknown[]): Array<{ Err: TransferError } | undefined> {
        batch(args.length);
        return args.map(() => ({ Err: { GenericError: { error_code: 1n, message: 'vote-pass receipts are soul-bound and cannot be transferred' } } }));
      },
      icrc10_supported_standards: (_ctx: CallContext) => [
        { name: 'ICRC-7', url: 'https://github.com/dfinity/ICRC/ICRCs/ICRC-7' },
        { name: 'ICRC-10', url: 'https://github.com/dfinity/ICRC/ICRCs/ICRC-10' },
      ],
    },
  };
}
