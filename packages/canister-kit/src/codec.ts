// JSON that round-trips what canister state holds: bigint (nat64, nat) and Uint8Array (blob).
// Tagged objects stand in for them; a plain object may not use the tag keys.
const BIGINT = '$n';
const BYTES = '$b';

export function encode(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return { [BIGINT]: v.toString() };
    if (v instanceof Uint8Array) return { [BYTES]: Buffer.from(v).toString('base64') };
    return v;
  });
}

export function decode<T = unknown>(text: string): T {
  return JSON.parse(text, (_key, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o);
      if (keys.length === 1 && typeof o[BIGINT] === 'string') return BigInt(o[BIGINT]);
      if (keys.length === 1 && typeof o[BYTES] === 'string') return new Uint8Array(Buffer.from(o[BYTES], 'base64'));
    }
    return v;
  }) as T;
}
