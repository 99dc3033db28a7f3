// A span of time in words, largest units first. Consent messages (decision L36) give every unit; the
// web app and the bridge's emails (decision F43, @domdao/proposal-text) the two largest. This module
// imports nothing, so the canister cores, the bridge and the web app's bundle can all take it.

const UNITS = [
  ['day', 86_400n],
  ['hour', 3_600n],
  ['minute', 60n],
  ['second', 1n],
] as const;

/** Nanoseconds → "7 days", "1 hour 30 minutes", "0 seconds"; at most `most` units (the largest), all by default. */
export function duration(ns: bigint, most: number = UNITS.length): string {
  let s = ns / 1_000_000_000n;
  const parts: string[] = [];
  for (const [unit, size] of UNITS) {
    const n = s / size;
    s %= size;
    if (n > 0n) parts.push(`${n} ${unit}${n === 1n ? '' : 's'}`);
  }
  return parts.length ? parts.slice(0, most).join(' ') : '0 seconds';
}
