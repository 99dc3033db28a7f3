// Decimal ids and cursors in URLs (decision B55): a pattern that admits exactly the integers the
// column or canister type holds, so a number past it is refused by validation (400 VALIDATION_ERROR)
// instead of reaching PostgreSQL's bigint or a canister's nat64 and failing there as a 500.
import { Type } from '@sinclair/typebox';

/** Largest PostgreSQL bigint (bigserial ids, event sequence numbers). */
export const INT8_MAX = 2n ** 63n - 1n;
/** Largest nat64 (canister ids and sequence numbers). */
export const NAT64_MAX = 2n ** 64n - 1n;

/**
 * A regular expression matching the decimal integers from `min` (0 or 1) to `max`, written without
 * sign or leading zeros: shorter numbers, then for each digit of `max` the numbers that share its
 * prefix and are smaller at that digit, then `max` itself.
 */
export function decimalPattern(max: bigint, min: 0n | 1n = 0n): string {
  const d = max.toString();
  const n = d.length;
  const alts: string[] = [];
  if (min === 0n) alts.push('0');
  if (n >= 2) alts.push(n === 2 ? '[1-9]' : `[1-9][0-9]{0,${n - 2}}`);
  for (let i = 0; i < n; i++) {
    const low = i === 0 ? 1 : 0;
    const high = Number(d[i]) - 1;
    if (high < low) continue;
    const rest = n - i - 1;
    alts.push(
      `${d.slice(0, i)}${low === high ? String(low) : `[${low}-${high}]`}${rest === 0 ? '' : rest === 1 ? '[0-9]' : `[0-9]{${rest}}`}`,
    );
  }
  alts.push(d);
  return `^(?:${alts.join('|')})$`;
}

/** A database id or cursor (bigint), as decimal text. */
export const Int8Text = (description: string, min: 0n | 1n = 0n) =>
  Type.String({ pattern: decimalPattern(INT8_MAX, min), description: `${description} (decimal, at most ${INT8_MAX})` });
/** A canister id or sequence number (nat64), as decimal text. */
export const Nat64Text = (description: string, min: 0n | 1n = 0n) =>
  Type.String({ pattern: decimalPattern(NAT64_MAX, min), description: `${description} (decimal nat64)` });
