// Spec 2 "Membership token and status": an Active membership ends on Dec 31 23:59:59 UTC.
const NS_PER_MS = 1_000_000n;

export function yearOf(ns: bigint): number {
  return new Date(Number(ns / NS_PER_MS)).getUTCFullYear();
}

/** Dec 31 23:59:59 UTC of `year`, in nanoseconds. */
export function endOfYear(year: number): bigint {
  return BigInt(Date.UTC(year, 11, 31, 23, 59, 59)) * NS_PER_MS;
}

/**
 * Expiry of an activation or renewal at `now` (decision M2): the end of the current year; a member
 * who renews while still Active pays for the year after their current expiry.
 */
export function activeUntil(now: bigint, currentExpiry: bigint | undefined): bigint {
  const next = currentExpiry !== undefined && currentExpiry > now ? yearOf(currentExpiry) + 1 : yearOf(now);
  return endOfYear(Math.max(next, yearOf(now)));
}
