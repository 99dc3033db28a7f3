// Outbox payloads and results as JSON (decision B20).
/** bigint-safe JSON for payloads and results (canister answers carry nat64). */
export const toJson = (v: unknown) =>
  JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? { $bigint: x.toString() } : x));
export const fromJson = (v: unknown): unknown => {
  const revive = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(revive);
    if (x && typeof x === 'object') {
      const o = x as Record<string, unknown>;
      if (Object.keys(o).length === 1 && typeof o.$bigint === 'string') return BigInt(o.$bigint);
      return Object.fromEntries(Object.entries(o).map(([k, y]) => [k, revive(y)]));
    }
    return x;
  };
  return revive(typeof v === 'string' ? JSON.parse(v) : v);
};
