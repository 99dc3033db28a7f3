// The block log read the ICRC-3 way: each stored block as an ICRC-3 Value (a Map with btype, ts, the
// charged fee and tx), in the field names ICRC-3's block schemas use for ICRC-1/ICRC-2 blocks
// (accounts as an Array of the owner's bytes and the subaccount), each with the `phash` of its parent
// (decision L26; certification.ts hashes them).
import { Principal } from '@icp-sdk/core/principal';
import type { Account, Block, Value } from './types.ts';

function accountValue(a: Account): Value {
  const owner: Value = { Blob: Principal.fromText(a.owner).toUint8Array() };
  return { Array: a.subaccount ? [owner, { Blob: a.subaccount }] : [owner] };
}

export function blockValue(b: Block): Value {
  const tx: Array<[string, Value]> = [['amt', { Nat: b.tx.amt }]];
  if (b.tx.from) tx.push(['from', accountValue(b.tx.from)]);
  if (b.tx.to) tx.push(['to', accountValue(b.tx.to)]);
  if (b.tx.spender) tx.push(['spender', accountValue(b.tx.spender)]);
  if (b.tx.memo) tx.push(['memo', { Blob: b.tx.memo }]);
  if (b.tx.ts !== undefined) tx.push(['ts', { Nat: b.tx.ts }]);
  if (b.tx.fee !== undefined) tx.push(['fee', { Nat: b.tx.fee }]);
  if (b.tx.expected_allowance !== undefined) tx.push(['expected_allowance', { Nat: b.tx.expected_allowance }]);
  if (b.tx.expires_at !== undefined) tx.push(['expires_at', { Nat: b.tx.expires_at }]);
  const out: Array<[string, Value]> = [
    ['btype', { Text: b.btype }],
    ...(b.phash ? [['phash', { Blob: b.phash }] as [string, Value]] : []),
    ['ts', { Nat: b.ts }],
  ];
  if (b.fee !== undefined) out.push(['fee', { Nat: b.fee }]);
  out.push(['tx', { Map: tx }]);
  return { Map: out };
}

export const SUPPORTED_BLOCK_TYPES = [
  { block_type: '1mint', url: 'https://github.com/dfinity/ICRC-1/blob/main/standards/ICRC-1/README.md' },
  { block_type: '1burn', url: 'https://github.com/dfinity/ICRC-1/blob/main/standards/ICRC-1/README.md' },
  { block_type: '1xfer', url: 'https://github.com/dfinity/ICRC-1/blob/main/standards/ICRC-1/README.md' },
  { block_type: '2approve', url: 'https://github.com/dfinity/ICRC-1/blob/main/standards/ICRC-2/README.md' },
  { block_type: '2xfer', url: 'https://github.com/dfinity/ICRC-1/blob/main/standards/ICRC-2/README.md' },
];
