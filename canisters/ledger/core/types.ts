// The DOM ledger's records, errors and stores, as ICRC-1, ICRC-2 and ICRC-3 name them. Amounts are
// bigint e8s everywhere (decision L3): no float ever holds a token amount.
import type { Account, Store } from '@domdao/canister-kit';

export type { Account };

export interface TransferArgs {
  from_subaccount?: Uint8Array;
  to: Account;
  amount: bigint;
  fee?: bigint;
  memo?: Uint8Array;
  created_at_time?: bigint;
}

export interface ApproveArgs {
  from_subaccount?: Uint8Array;
  spender: Account;
  amount: bigint;
  expected_allowance?: bigint;
  expires_at?: bigint;
  fee?: bigint;
  memo?: Uint8Array;
  created_at_time?: bigint;
}

export interface TransferFromArgs {
  spender_subaccount?: Uint8Array;
  from: Account;
  to: Account;
  amount: bigint;
  fee?: bigint;
  memo?: Uint8Array;
  created_at_time?: bigint;
}

export interface AllowanceArgs {
  account: Account;
  spender: Account;
}

export interface Allowance {
  allowance: bigint;
  expires_at?: bigint;
}

type GenericError = { GenericError: { error_code: bigint; message: string } };
type Common =
  | { BadFee: { expected_fee: bigint } }
  | { InsufficientFunds: { balance: bigint } }
  | { TooOld: null }
  | { CreatedInFuture: { ledger_time: bigint } }
  | { Duplicate: { duplicate_of: bigint } }
  | { TemporarilyUnavailable: null }
  | GenericError;

/** ICRC-1 TransferError, exactly as the standard lists it. */
export type TransferError = Common | { BadBurn: { min_burn_amount: bigint } };
/** ICRC-2 ApproveError. */
export type ApproveError =
  Common | { AllowanceChanged: { current_allowance: bigint } } | { Expired: { ledger_time: bigint } };
/** ICRC-2 TransferFromError. */
export type TransferFromError =
  Common | { BadBurn: { min_burn_amount: bigint } } | { InsufficientAllowance: { allowance: bigint } };

/** ICRC-1 metadata values. */
export type MetadataValue = { Nat: bigint } | { Int: bigint } | { Text: string } | { Blob: Uint8Array };

/** ICRC-3's generic value, in which blocks are read. */
export type Value =
  | { Blob: Uint8Array }
  | { Text: string }
  | { Nat: bigint }
  | { Int: bigint }
  | { Array: Value[] }
  | { Map: Array<[string, Value]> };

/** Block types of ICRC-1/ICRC-2 ledgers (ICRC-3 "supported block types"). */
export type BlockType = '1mint' | '1burn' | '1xfer' | '2approve' | '2xfer';

/** A block as stored; read through ICRC-3 as a Value (blocks.ts). */
export interface Block {
  btype: BlockType;
  /** ICRC-3's hash of the previous block's Value (decision L26); none on block 0. */
  phash?: Uint8Array;
  /** This block's own ICRC-3 hash, kept so the next block and the certified tip need not hash it again; not part of its Value. */
  hash?: Uint8Array;
  /** When the ledger accepted it (ns). */
  ts: bigint;
  /** The fee the ledger charged when the caller did not state one (ICRC-3 top-level `fee`). */
  fee?: bigint;
  tx: {
    amt: bigint;
    from?: Account;
    to?: Account;
    spender?: Account;
    memo?: Uint8Array;
    /** created_at_time as the caller gave it. */
    ts?: bigint;
    /** The fee as the caller gave it. */
    fee?: bigint;
    expected_allowance?: bigint;
    expires_at?: bigint;
  };
}

export interface LedgerConfig {
  minting_account: Account;
  /** Fee of every transfer and approve, burned (there is no fee collector). */
  transfer_fee: bigint;
  token_name: string;
  token_symbol: string;
  decimals: number;
  max_memo_length: number;
  /** ICRC-1 deduplication window and permitted clock drift (ns). */
  tx_window: bigint;
  permitted_drift: bigint;
  /** Archive mode (decision L43): only this many of the newest blocks are answered by icrc3_get_blocks itself. */
  archive_local_blocks?: bigint;
}

export interface LedgerInit {
  minting_account: Account;
  transfer_fee: bigint;
  token_name: string;
  token_symbol: string;
  decimals?: number;
  /** The initial distribution: minted at init, one mint block each. */
  initial_balances: Array<[Account, bigint]>;
  /**
   * Archive mode (decision L43, for clients' tests): icrc3_get_blocks answers only the newest
   * `local_blocks` blocks itself and hands out the older ones through ICRC-3's `archived_blocks`,
   * whose callback is this ledger's `get_archived_blocks`. Nothing moves; absent: no archive.
   */
  archive?: { local_blocks: bigint };
}

export interface LedgerStores {
  config: Store<'config', LedgerConfig>;
  /** Account key (account.ts) → balance; a zero balance is no entry. */
  balances: Store<string, bigint>;
  /** `owner key|spender key` → allowance. */
  allowances: Store<string, Allowance>;
  /** Block index → block: the log, from 0. */
  blocks: Store<bigint, Block>;
  /** Transaction key → the block that recorded it, for deduplication within the window. */
  dedup: Store<string, bigint>;
  /** `u64(created_at_time)|transaction key`: the same entries in time order, to prune past the window. */
  dedup_by_time: Store<string, null>;
  /** 'minted', 'burned', 'fees_burned'. */
  counters: Store<string, bigint>;
}

export const LEDGER_STORE_NAMES: Record<keyof LedgerStores, string> = {
  config: 'config',
  balances: 'balances',
  allowances: 'allowances',
  blocks: 'blocks',
  dedup: 'dedup',
  dedup_by_time: 'dedup_by_time',
  counters: 'counters',
};

/** GenericError codes this ledger answers (documented in docs/reference/ledger.md). */
export const ERROR_CODES = {
  /** A subaccount that is not 32 bytes, a memo above the limit. */
  INVALID_ARGUMENT: 1n,
  /** The minting account cannot approve, nor be the source of transfer_from; self-approval. */
  NOT_ALLOWED: 2n,
} as const;
