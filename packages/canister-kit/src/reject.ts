/**
 * A canister rejecting a call it cannot answer with a value (a query whose Candid return type has no
 * error variant, such as list_votes for a non-admin). The IC host traps with the message; the embedded
 * host rethrows it; clients surface it as a rejected call.
 */
export class CanisterReject extends Error {
  override name = 'CanisterReject';
}

/** Spec limits on list calls: absent → `fallback`, above `max` → clamped (decision G8). */
export function clampLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined) return fallback;
  return Math.max(0, Math.min(limit, max));
}

const NAT64_MAX = (1n << 64n) - 1n;

/**
 * Decision L24: Candid's refusal of a bad `nat`, made by the core. On the IC a negative (or fractional,
 * or non-integer) nat never reaches a method: decoding rejects the call. An embedded caller hands the
 * core JavaScript values as they are, so the core rejects the call the same way (a CanisterReject, as
 * the trap of decoding is on the IC). `fields` maps an argument's name to its value; absent (opt)
 * values pass; names listed in `nat64` must also fit in 64 bits.
 */
export function requireNats(fields: Record<string, unknown>, nat64: readonly string[] = []): void {
  for (const [name, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    if (typeof v !== 'bigint' || v < 0n)
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- whatever the caller passed, shown as JavaScript prints it
      throw new CanisterReject(`InvalidArgument: ${name} must be a nat (an integer ≥ 0), got ${String(v)}`);
    if (nat64.includes(name) && v > NAT64_MAX)
      throw new CanisterReject(`InvalidArgument: ${name} must be a nat64, got ${v}`);
  }
}
