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

/**
 * The inverse of `encode`. Plain JSON.parse, then one walk that turns tagged objects back into bigint
 * and Uint8Array, only when the text has a tag at all: a reviver is called for every value and was
 * most of the cost of replaying the log (decision P6).
 */
export function decode<T = unknown>(text: string): T {
  const value: unknown = JSON.parse(text);
  return (text.includes('"$') ? revive(value) : value) as T;
}

function revive(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const r = revive(v[i]);
      if (r !== v[i]) v[i] = r;
    }
    return v;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1 && keys[0] === BIGINT && typeof o[BIGINT] === 'string') return BigInt(o[BIGINT]);
  if (keys.length === 1 && keys[0] === BYTES && typeof o[BYTES] === 'string') return fromHex(o[BYTES]);
  for (const k of keys) {
    const r = revive(o[k]);
    // defineProperty, as JSON.parse's reviver does: a key named __proto__ stays an own property.
    if (r !== o[k]) Object.defineProperty(o, k, { value: r, writable: true, enumerable: true, configurable: true });
  }
  return o;
}
