// A client's own ICRC-3 verification, written from the standard's text and the IC interface
// specification without the ledger's code (decision L26): the representation-independent hash of a
// Value, the IC's hash-tree reconstruction and lookup, and the chain check a client runs on the blocks
// it downloaded.
import { createHash } from 'node:crypto';

export type Value =
  | { Blob: Uint8Array }
  | { Text: string }
  | { Nat: bigint }
  | { Int: bigint }
  | { Array: Value[] }
  | { Map: Array<[string, Value]> };

const sha256 = (...parts: Uint8Array[]): Buffer => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest();

/** Unsigned LEB128: 7 bits a byte, low first, the high bit set on every byte but the last. */
export function uleb(n: bigint): Buffer {
  const out: number[] = [];
  for (let rest = n; ;) {
    const low = Number(rest % 128n);
    rest /= 128n;
    if (rest === 0n) return Buffer.from([...out, low]);
    out.push(low + 128);
  }
}

/** Signed LEB128 (two's complement, sign-extended from bit 6 of the last byte). */
export function sleb(n: bigint): Buffer {
  const out: number[] = [];
  for (let rest = n; ;) {
    const low = Number(BigInt.asUintN(7, rest));
    rest >>= 7n;
    const signBit = (low & 0x40) !== 0;
    if ((rest === 0n && !signBit) || (rest === -1n && signBit)) return Buffer.from([...out, low]);
    out.push(low | 0x80);
  }
}

/** ICRC-3 "Value Hash". */
export function valueHash(v: Value): Buffer {
  if ('Blob' in v) return sha256(v.Blob);
  if ('Text' in v) return sha256(Buffer.from(v.Text, 'utf8'));
  if ('Nat' in v) return sha256(uleb(v.Nat));
  if ('Int' in v) return sha256(sleb(v.Int));
  if ('Array' in v) return sha256(...v.Array.map(valueHash));
  const pairs = v.Map.map(([k, x]) => Buffer.concat([sha256(Buffer.from(k, 'utf8')), valueHash(x)]));
  pairs.sort(Buffer.compare);
  return sha256(...pairs);
}

/** A field of a block (a Map Value). */
export function field(block: Value, name: string): Value | undefined {
  if (!('Map' in block)) throw new Error('an ICRC-3 block is a Map');
  return block.Map.find(([k]) => k === name)?.[1];
}

/**
 * Checks a whole downloaded log: block 0 has no `phash`, every later block's `phash` is the hash of the
 * block before it. Returns the hash of the last block (to compare with the certified tip).
 */
export function verifyChain(blocks: Value[]): Buffer | undefined {
  let previous: Buffer | undefined;
  blocks.forEach((block, i) => {
    const phash = field(block, 'phash');
    if (i === 0) {
      if (phash !== undefined) throw new Error('block 0 has a phash');
    } else if (!phash || !('Blob' in phash) || !Buffer.from(phash.Blob).equals(previous!)) {
      throw new Error(`block ${i}: phash is not the hash of block ${i - 1}`);
    }
    previous = valueHash(block);
  });
  return previous;
}

/** The IC's hash trees, as CBOR decodes them: [0] | [1, l, r] | [2, label, t] | [3, value] | [4, hash]. */
export type Tree = [0] | [1, Tree, Tree] | [2, Uint8Array, Tree] | [3, Uint8Array] | [4, Uint8Array];

const sep = (s: string) => Buffer.concat([Buffer.from([s.length]), Buffer.from(s)]);

export function reconstruct(t: Tree): Buffer {
  switch (t[0]) {
    case 0:
      return sha256(sep('ic-hashtree-empty'));
    case 1:
      return sha256(sep('ic-hashtree-fork'), reconstruct(t[1]), reconstruct(t[2]));
    case 2:
      return sha256(sep('ic-hashtree-labeled'), t[1], reconstruct(t[2]));
    case 3:
      return sha256(sep('ic-hashtree-leaf'), t[1]);
    case 4:
      return Buffer.from(t[1]);
  }
}

/** The leaf at `path` (labels as text or bytes), if the tree has it. */
export function lookup(t: Tree, path: Array<string | Uint8Array>): Buffer | undefined {
  if (path.length === 0) return t[0] === 3 ? Buffer.from(t[1]) : undefined;
  const [label, ...rest] = path;
  const want = typeof label === 'string' ? Buffer.from(label) : Buffer.from(label!);
  const find = (x: Tree): Tree | undefined => {
    if (x[0] === 1) return find(x[1]) ?? find(x[2]);
    if (x[0] === 2 && Buffer.from(x[1]).equals(want)) return x[2];
    return undefined;
  };
  const sub = find(t);
  return sub && lookup(sub, rest);
}
