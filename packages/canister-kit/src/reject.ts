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
