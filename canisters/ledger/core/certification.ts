// ICRC-3's hash chain and tip certification (decision L26): the representation-independent hash of a
// Value (ICRC-3 "Value Hash", the IC's hash of structured data), the tip's hash tree with the labels
// `last_block_hash` and `last_block_index` (leb128), its root hash (the IC interface specification's
// reconstruction, which is what the canister certifies) and the tree CBOR-encoded as the standard's
// DataCertificate.hash_tree carries it.
import { sha256 } from '@domdao/canister-kit/sha256';
import type { Value } from './types.ts';

const utf8 = new TextEncoder();

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function leb128(n: bigint): Uint8Array {
  const out: number[] = [];
  do {
    const byte = Number(n & 0x7fn);
    n >>= 7n;
    out.push(n === 0n ? byte : byte | 0x80);
  } while (n !== 0n);
  return Uint8Array.from(out);
}

export function sleb128(n: bigint): Uint8Array {
  const out: number[] = [];
  for (;;) {
    const byte = Number(n & 0x7fn);
    n >>= 7n;
    const done = (n === 0n && (byte & 0x40) === 0) || (n === -1n && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return Uint8Array.from(out);
  }
}

function compare(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/**
 * The hashes of the block schema's fixed texts (its keys and block types), kept: hashing them again
 * was a third of a block's hashing on the wasm (decision L40). Only these texts are kept, so the cache
 * cannot grow with input.
 */
const FIXED_TEXTS = [
  'btype',
  'ts',
  'phash',
  'fee',
  'tx',
  'amt',
  'from',
  'to',
  'memo',
  'created_at_time',
  'spender',
  'expected_allowance',
  'expires_at',
];
const FIXED = new Map<string, Uint8Array>();
for (const t of [...FIXED_TEXTS, '1mint', '1burn', '1xfer', '2approve', '2xfer']) FIXED.set(t, sha256(utf8.encode(t)));
const textHash = (t: string) => FIXED.get(t) ?? sha256(utf8.encode(t));

/** ICRC-3's hash of a Value. */
export function hashValue(v: Value): Uint8Array {
  if ('Nat' in v) return sha256(leb128(v.Nat));
  if ('Int' in v) return sha256(sleb128(v.Int));
  if ('Text' in v) return textHash(v.Text);
  if ('Blob' in v) return sha256(v.Blob);
  if ('Array' in v) return sha256(concat(v.Array.map(hashValue)));
  const items = v.Map.map(([k, x]) => concat([textHash(k), hashValue(x)])).sort(compare);
  return sha256(concat(items));
}

/** The IC's hash trees (interface specification, "Certification"), as far as the tip needs them. */
export type HashTree = { fork: [HashTree, HashTree] } | { labeled: [Uint8Array, HashTree] } | { leaf: Uint8Array };

const domain = (s: string) => concat([Uint8Array.of(s.length), utf8.encode(s)]);

export function treeRootHash(t: HashTree): Uint8Array {
  if ('leaf' in t) return sha256(concat([domain('ic-hashtree-leaf'), t.leaf]));
  if ('labeled' in t) return sha256(concat([domain('ic-hashtree-labeled'), t.labeled[0], treeRootHash(t.labeled[1])]));
  return sha256(concat([domain('ic-hashtree-fork'), treeRootHash(t.fork[0]), treeRootHash(t.fork[1])]));
}

/** ICRC-3's tip tree: the two labels in the tree's (lexicographic) order. */
export function tipTree(lastIndex: bigint, lastHash: Uint8Array): HashTree {
  return {
    fork: [
      { labeled: [utf8.encode('last_block_hash'), { leaf: lastHash }] },
      { labeled: [utf8.encode('last_block_index'), { leaf: leb128(lastIndex) }] },
    ],
  };
}

/** CBOR (RFC 8949) head: major type and argument. */
function head(major: number, n: number): Uint8Array {
  if (n < 24) return Uint8Array.of((major << 5) | n);
  if (n < 0x100) return Uint8Array.of((major << 5) | 24, n);
  if (n < 0x10000) return Uint8Array.of((major << 5) | 25, n >> 8, n & 0xff);
  return Uint8Array.of((major << 5) | 26, n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
}
const bytes = (b: Uint8Array) => concat([head(2, b.length), b]);

/** The tree as the IC encodes hash trees in CBOR: [1, l, r] | [2, label, t] | [3, value], self-described (tag 55799). */
export function treeCbor(t: HashTree): Uint8Array {
  const node = (x: HashTree): Uint8Array => {
    if ('leaf' in x) return concat([head(4, 2), head(0, 3), bytes(x.leaf)]);
    if ('labeled' in x) return concat([head(4, 3), head(0, 2), bytes(x.labeled[0]), node(x.labeled[1])]);
    return concat([head(4, 3), head(0, 1), node(x.fork[0]), node(x.fork[1])]);
  };
  return concat([Uint8Array.of(0xd9, 0xd9, 0xf7), node(t)]);
}
