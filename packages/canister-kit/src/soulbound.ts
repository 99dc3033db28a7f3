// One soul-bound ICRC-7 collection (read side, refused transfers, ICRC-10), shared by the membership
// tokens and the vote-pass receipts. A collection says what it holds; this answers the standard's
// queries the same way for both (decisions G15, M5, G19).
import { isDefaultSubaccount, type Account, type CallContext } from './call.ts';

/**
 * ICRC-10's self-reference, as the standard's MUST gives it (`record{name="ICRC-10"; url=...}`), exactly:
 * every canister that answers icrc10_supported_standards lists this one record (decision L50).
 */
export const ICRC10_STANDARD = { name: 'ICRC-10', url: 'https://github.com/dfinity/ICRCs/ICRC-10' } as const;

export const ICRC7_MAX_QUERY_BATCH = 100;
export const ICRC7_MAX_TAKE = 100;
/** ICRC-7's default memo limit; memos are never stored since every transfer is refused. */
export const ICRC7_MAX_MEMO_SIZE = 32;

/** ICRC-3's generic value, as ICRC-7 declares it. */
export type Icrc7Value =
  | { Blob: Uint8Array }
  | { Text: string }
  | { Nat: bigint }
  | { Int: bigint }
  | { Array: Icrc7Value[] }
  | { Map: Array<[string, Icrc7Value]> };

export type Icrc7TransferError =
  | { NonExistingTokenId: null }
  | { InvalidRecipient: null }
  | { Unauthorized: null }
  | { TooOld: null }
  | { CreatedInFuture: { ledger_time: bigint } }
  | { Duplicate: { duplicate_of: bigint } }
  | { GenericError: { error_code: bigint; message: string } }
  | { GenericBatchError: { error_code: bigint; message: string } };

export interface SoulboundCollection {
  name: string;
  symbol: string;
  description: string;
  defaultTake: number;
  /** Why a transfer is refused (the GenericError message). */
  soulBound: string;
  totalSupply(): bigint;
  owner(id: bigint): string | undefined;
  /** The owner's token ids in ascending order, starting after `prev`. */
  tokensOf(owner: string, prev: bigint | undefined): Iterable<bigint>;
  /** All token ids in ascending order, starting after `prev`. */
  tokens(prev: bigint | undefined): Iterable<bigint>;
  metadata(id: bigint, now: bigint): Array<[string, Icrc7Value]> | undefined;
}

function batch(n: number): void {
  if (n > ICRC7_MAX_QUERY_BATCH) throw new RangeError(`at most ${ICRC7_MAX_QUERY_BATCH} items per call`);
}

function page(
  ids: Iterable<bigint>,
  prev: bigint | undefined,
  take: bigint | undefined,
  defaultTake: number,
): bigint[] {
  if (take !== undefined && take > BigInt(ICRC7_MAX_TAKE))
    throw new RangeError(`take must be at most ${ICRC7_MAX_TAKE}`);
  const n = take === undefined ? defaultTake : Number(take);
  const out: bigint[] = [];
  if (n === 0) return out;
  for (const id of ids) {
    if (prev !== undefined && id <= prev) continue;
    out.push(id);
    if (out.length === n) break;
  }
  return out;
}

/** The ICRC-7 and ICRC-10 methods of a soul-bound collection, as core methods (CallContext first). */
export function soulboundIcrc7(c: SoulboundCollection) {
  return {
    icrc7_name: (_ctx: CallContext) => c.name,
    icrc7_symbol: (_ctx: CallContext) => c.symbol,
    icrc7_description: (_ctx: CallContext): string | undefined => c.description,
    icrc7_logo: (_ctx: CallContext): string | undefined => undefined,
    icrc7_total_supply: (_ctx: CallContext): bigint => c.totalSupply(),
    icrc7_supply_cap: (_ctx: CallContext): bigint | undefined => undefined,
    icrc7_max_query_batch_size: (_ctx: CallContext): bigint => BigInt(ICRC7_MAX_QUERY_BATCH),
    icrc7_max_update_batch_size: (_ctx: CallContext): bigint => BigInt(ICRC7_MAX_QUERY_BATCH),
    icrc7_max_take_value: (_ctx: CallContext): bigint => BigInt(ICRC7_MAX_TAKE),
    icrc7_default_take_value: (_ctx: CallContext): bigint => BigInt(c.defaultTake),
    icrc7_max_memo_size: (_ctx: CallContext): bigint => BigInt(ICRC7_MAX_MEMO_SIZE),
    /** No transfer ever succeeds, so a batch is trivially all-or-nothing; false promises nothing more. */
    icrc7_atomic_batch_transfers: (_ctx: CallContext): boolean => false,
    /** No transfer is ever accepted, so there is nothing to deduplicate: no window, no drift. */
    icrc7_tx_window: (_ctx: CallContext): bigint | undefined => undefined,
    icrc7_permitted_drift: (_ctx: CallContext): bigint | undefined => undefined,
    icrc7_collection_metadata(_ctx: CallContext): Array<[string, Icrc7Value]> {
      return [
        ['icrc7:name', { Text: c.name }],
        ['icrc7:symbol', { Text: c.symbol }],
        ['icrc7:description', { Text: c.description }],
        ['icrc7:total_supply', { Nat: c.totalSupply() }],
        ['icrc7:max_query_batch_size', { Nat: BigInt(ICRC7_MAX_QUERY_BATCH) }],
        ['icrc7:max_take_value', { Nat: BigInt(ICRC7_MAX_TAKE) }],
        ['icrc7:default_take_value', { Nat: BigInt(c.defaultTake) }],
      ];
    },
    icrc7_balance_of(_ctx: CallContext, accounts: Account[]): bigint[] {
      batch(accounts.length);
      return accounts.map((a) => {
        if (!isDefaultSubaccount(a.subaccount)) return 0n;
        let n = 0n;
        for (const _ of c.tokensOf(a.owner, undefined)) n++;
        return n;
      });
    },
    icrc7_owner_of(_ctx: CallContext, ids: bigint[]): Array<Account | undefined> {
      batch(ids.length);
      return ids.map((id) => {
        const owner = c.owner(id);
        return owner === undefined ? undefined : { owner };
      });
    },
    /** Token ids in ascending order after `prev`, at most `take` (ICRC-7 pagination). */
    icrc7_tokens(_ctx: CallContext, prev?: bigint, take?: bigint): bigint[] {
      return page(c.tokens(prev), prev, take, c.defaultTake);
    },
    /** Token ids of `account` in ascending order after `prev`, at most `take`; `take` is `opt nat` as ICRC-7 declares it (decision G19). */
    icrc7_tokens_of(_ctx: CallContext, account: Account, prev?: bigint, take?: bigint): bigint[] {
      if (!isDefaultSubaccount(account.subaccount)) {
        page([], prev, take, c.defaultTake);
        return [];
      }
      return page(c.tokensOf(account.owner, prev), prev, take, c.defaultTake);
    },
    icrc7_token_metadata(ctx: CallContext, ids: bigint[]): Array<Array<[string, Icrc7Value]> | undefined> {
      batch(ids.length);
      return ids.map((id) => c.metadata(id, ctx.now));
    },
    icrc7_transfer(_ctx: CallContext, args: unknown[]): Array<{ Err: Icrc7TransferError } | undefined> {
      batch(args.length);
      return args.map(() => ({ Err: { GenericError: { error_code: 1n, message: c.soulBound } } }));
    },
    icrc10_supported_standards: (_ctx: CallContext) => [
      { name: 'ICRC-7', url: 'https://github.com/dfinity/ICRC/ICRCs/ICRC-7' },
      ICRC10_STANDARD,
    ],
  };
}
