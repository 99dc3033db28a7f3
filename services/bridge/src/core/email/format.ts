// How members read DOM amounts in emails and feed items: one rule for the inbox and the member
// emails, which may not import each other (decision S1).

/** e8s as DOM: "1250000000" → "12.5" (up to 8 decimals, no trailing zeros). */
export function domAmount(e8s: string): string {
  const n = BigInt(e8s);
  const frac = String(n % 100_000_000n)
    .padStart(8, '0')
    .replace(/0+$/, '');
  return `${n / 100_000_000n}${frac ? `.${frac}` : ''}`;
}
