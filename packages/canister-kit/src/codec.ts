// JSON that round-trips what canister state holds: bigint (nat64, nat) and Uint8Array (blob), in
// plain JavaScript (no Buffer), so the same codec serves the embedded log and stable memory on the IC.
// Tagged objects stand in for them; a plain object may not use the tag keys.
const BIGINT = '$n';
const BYTES = '$b';

const toHex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-f]*$/.test(hex)) throw new SyntaxError('bad hex in encoded state');
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function encode(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return { [BIGINT]: v.toString() };
    if (v instanceof Uint8Array) return { [BYTES]: toHex(v) };
    return v;
  });
}

export function decode<T = unknown>(text: string): T {
  return JSON.parse(text, (_key, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o);
      if (keys.length === 1 && typeof o[BIGINT] === 'string') return BigInt(o[BIGINT]);
      if (keys.length === 1 && typeof o[BYTES] === 'string') return fromHex(o[BYTES]);
    }
    return v;
  }) as T;
}
