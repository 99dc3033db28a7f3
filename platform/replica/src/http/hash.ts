// The IC's representation-independent hash (interface specification, "Request ids"): what request ids,
// delegations and query response signatures are computed over. Written here rather than taken from the
// agent, so the replica checks the agent's hashing instead of sharing it.
import { createHash } from 'node:crypto';

export type HashValue = Uint8Array | string | number | bigint | HashValue[] | { [key: string]: HashValue | undefined };

const sha256 = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

export function leb128(n: bigint | number): Uint8Array {
  let v = BigInt(n);
  if (v < 0n) throw new Error('negative numbers have no representation-independent hash here');
  const out: number[] = [];
  do {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v === 0n ? byte : byte | 0x80);
  } while (v !== 0n);
  return Uint8Array.from(out);
}

export function hashValue(v: HashValue): Uint8Array {
  if (v instanceof Uint8Array) return sha256(v);
  if (typeof v === 'string') return sha256(Buffer.from(v, 'utf8'));
  if (typeof v === 'number' || typeof v === 'bigint') return sha256(leb128(v));
  if (Array.isArray(v)) return sha256(...v.map(hashValue));
  return hashOfMap(v);
}

/** The hash of a map: each field's key hash and value hash, the pairs sorted bytewise, hashed together. */
export function hashOfMap(map: { [key: string]: HashValue | undefined }): Uint8Array {
  const pairs = Object.entries(map)
    .filter((e): e is [string, HashValue] => e[1] !== undefined)
    .map(([k, v]) => Buffer.concat([hashValue(k), hashValue(v)]));
  pairs.sort(Buffer.compare);
  return sha256(...pairs);
}

/** Domain separators of the IC's signatures: a length byte and the text. */
export const domain = (s: string): Uint8Array => Uint8Array.from([s.length, ...Buffer.from(s)]);
