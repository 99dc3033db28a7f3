// A ledger block read the ICRC-3 way (decision B76), as the wallet's index keeps it. Both block
// schemas a DOM ledger may write are read: ICRC-3's typed blocks (`btype` 1mint, 1burn, 1xfer,
// 2approve, 2xfer: the embedded ledger, decision L26) and the legacy `tx.op` blocks (mint, burn, xfer,
// approve) of DFINITY's ICRC ledger, which the platform runs on an IC network (decision L1). Pure:
// no I/O, no clock.
import { accountText, isDefaultSubaccount } from '@domdao/canister-kit';
import { principalFromBytes } from '@domdao/canisters';

type Value =
  | { Blob: Uint8Array }
  | { Text: string }
  | { Nat: bigint }
  | { Int: bigint }
  | { Array: Value[] }
  | { Map: Array<[string, Value]> };

export type BlockType = '1mint' | '1burn' | '1xfer' | '2approve' | '2xfer';

export interface IndexedAccount {
  owner: string;
  subaccount?: Uint8Array;
  /** ICRC-1 "Textual encoding of accounts": the principal's text when there is no subaccount. */
  text: string;
}

export interface IndexedBlock {
  index: bigint;
  btype: BlockType;
  /** When the ledger accepted it (ns). */
  ts: bigint;
  from?: IndexedAccount;
  to?: IndexedAccount;
  spender?: IndexedAccount;
  /** The amount moved (a 2approve: the allowance granted). */
  amount: bigint;
  /** The fee charged: the ledger's (top-level) or the caller's (tx); 0 for a mint or a burn without one. */
  fee: bigint;
  memo?: Uint8Array;
}

const LEGACY: Record<string, BlockType> = { mint: '1mint', burn: '1burn', xfer: '1xfer', approve: '2approve' };
const TYPES = new Set<string>(['1mint', '1burn', '1xfer', '2approve', '2xfer']);

const map = (v: Value | undefined): Map<string, Value> => new Map<string, Value>(v && 'Map' in v ? v.Map : []);
const nat = (v: Value | undefined): bigint | undefined =>
  v && 'Nat' in v ? v.Nat : v && 'Int' in v && v.Int >= 0n ? v.Int : undefined;
const text = (v: Value | undefined): string | undefined => (v && 'Text' in v ? v.Text : undefined);
const blob = (v: Value | undefined): Uint8Array | undefined => (v && 'Blob' in v ? v.Blob : undefined);

/** An ICRC-3 account value: an Array of the owner's bytes and, optionally, a 32-byte subaccount. */
export function accountOf(v: Value | undefined): IndexedAccount | undefined {
  if (!v || !('Array' in v)) return undefined;
  const owner = blob(v.Array[0]);
  if (!owner || owner.length > 29) return undefined;
  const sub = blob(v.Array[1]);
  if (sub !== undefined && sub.length !== 32) return undefined;
  const principal = principalFromBytes(owner);
  const account = isDefaultSubaccount(sub) ? { owner: principal } : { owner: principal, subaccount: sub! };
  return { ...account, text: accountText(account) };
}

/** The block at `index` as the index keeps it, or undefined for a block type a DOM ledger does not write. */
export function readBlock(index: bigint, block: unknown): IndexedBlock | undefined {
  const b = map(block as Value);
  const tx = map(b.get('tx'));
  const op = text(tx.get('op'));
  let btype = text(b.get('btype')) ?? (op !== undefined ? LEGACY[op] : undefined);
  if (btype === '1xfer' && op !== undefined && tx.has('spender')) btype = '2xfer';
  if (btype === undefined || !TYPES.has(btype)) return undefined;
  const amount = nat(tx.get('amt'));
  const ts = nat(b.get('ts'));
  if (amount === undefined || ts === undefined) return undefined;
  const from = accountOf(tx.get('from'));
  const to = accountOf(tx.get('to'));
  const spender = accountOf(tx.get('spender'));
  const memo = blob(tx.get('memo'));
  return {
    index,
    btype: btype as BlockType,
    ts,
    ...(from && { from }),
    ...(to && { to }),
    ...(spender && { spender }),
    amount,
    fee: nat(b.get('fee')) ?? nat(tx.get('fee')) ?? 0n,
    ...(memo && { memo }),
  };
}
