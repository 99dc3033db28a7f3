// Campaign money on the DOM ledger (decisions L14–L19): every movement (a contribution pulled
// with icrc2_transfer_from into the campaign's escrow subaccount, the release to the beneficiary, a
// refund, a donation burn) is first a durable intent with its own id, amount, memo `dom-mv:<id>` and
// created_at_time, then one ledger call with exactly those, then its outcome. A retry (the member's,
// the bridge's or the scheduler's) re-sends the same call, which the ledger deduplicates, so no
// movement ever happens twice; an intent whose outcome cannot be known stays visible.
import type { Account, Result } from '@domdao/canister-kit';

export type MovementKind = 'contribution' | 'release' | 'refund' | 'burn';

export interface Movement {
  id: bigint;
  kind: MovementKind;
  /** The campaign (0 for a donation burn). */
  campaign: bigint;
  /** contribution and burn: who pays; refund: who is refunded; release: the beneficiary. */
  party: string;
  /** refund: the contribution it returns. */
  seq?: bigint;
  /** What arrives: a contribution's amount, a refund's or release's amount after the fee. */
  amount_e8s: bigint;
  usd_value?: number;
  price_tick_id?: bigint;
  created_at_time: bigint;
  /** The caller's operation id (contribution, burn), for repeats. */
  op_id?: string;
  /** Why the last attempt did not finish (shown to admins; the movement is retried). */
  last_error?: string;
  /** When the last unfinished attempt was made (the next retry is MOVEMENT_RETRY_AFTER later). */
  attempted_at?: bigint;
}

export type LedgerError =
  | { BadFee: { expected_fee: bigint } }
  | { BadBurn: { min_burn_amount: bigint } }
  | { InsufficientFunds: { balance: bigint } }
  | { InsufficientAllowance: { allowance: bigint } }
  | { TooOld: null }
  | { CreatedInFuture: { ledger_time: bigint } }
  | { Duplicate: { duplicate_of: bigint } }
  | { TemporarilyUnavailable: null }
  | { GenericError: { error_code: bigint; message: string } };

export interface LedgerDeps {
  icrc1_transfer(args: {
    from_subaccount?: Uint8Array;
    to: Account;
    amount: bigint;
    memo?: Uint8Array;
    created_at_time?: bigint;
  }): Promise<Result<bigint, LedgerError>>;
  icrc2_transfer_from(args: {
    from: Account;
    to: Account;
    amount: bigint;
    memo?: Uint8Array;
    created_at_time?: bigint;
  }): Promise<Result<bigint, LedgerError>>;
  icrc1_fee(): Promise<bigint>;
  icrc1_minting_account(): Promise<Account | undefined>;
  /** ICRC-3: to check a block an admin names when reconciling a movement (decision L19). */
  icrc3_get_blocks(
    ranges: Array<{ start: bigint; length: bigint }>,
  ): Promise<{ blocks: Array<{ id: bigint; block: unknown }> }>;
}

/** The escrow subaccount of campaign `id`: "CAMPAIGN" then the id as 8 big-endian bytes, zero-padded to 32. */
export function escrowSubaccount(id: bigint): Uint8Array {
  const s = new Uint8Array(32);
  s.set(new TextEncoder().encode('CAMPAIGN'), 0);
  for (let i = 0; i < 8; i++) s[31 - i] = Number((id >> BigInt(8 * i)) & 0xffn);
  return s;
}

export function movementMemo(id: bigint): Uint8Array {
  return new TextEncoder().encode(`dom-mv:${id}`);
}

/** The outcome of one ledger call for a movement. */
export type Outcome =
  | { done: bigint }
  /** Nothing moved: the movement is dropped. */
  | { refused: LedgerError }
  /** Unknown or retryable: the movement stays and is re-sent later. */
  | { retry: string };

export function describe(e: LedgerError): string {
  const [k, v] = Object.entries(e)[0]! as [string, unknown];
  return v === null
    ? k
    : `${k}: ${JSON.stringify(v, (_key, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))}`;
}

/** Runs one movement's ledger call; a rejected call throws (outcome unknown: the intent stays). */
export async function runMovement(
  ledger: LedgerDeps,
  m: Movement,
  route: { to: Account; fromSubaccount?: Uint8Array; fromAccount?: Account },
): Promise<Outcome> {
  const common = { amount: m.amount_e8s, memo: movementMemo(m.id), created_at_time: m.created_at_time };
  const r = route.fromAccount
    ? await ledger.icrc2_transfer_from({ from: route.fromAccount, to: route.to, ...common })
    : await ledger.icrc1_transfer({
        ...(route.fromSubaccount && { from_subaccount: route.fromSubaccount }),
        to: route.to,
        ...common,
      });
  if ('Ok' in r) return { done: r.Ok };
  const e = r.Err;
  if ('Duplicate' in e) return { done: e.Duplicate.duplicate_of };
  // Past the window a re-sent call cannot be told from a new one: it stays for an admin (L17).
  if ('TooOld' in e)
    return {
      retry: `TooOld: past the ledger's deduplication window; reconcile with the block log (memo dom-mv:${m.id})`,
    };
  if ('TemporarilyUnavailable' in e) return { retry: 'TemporarilyUnavailable' };
  return { refused: e };
}
