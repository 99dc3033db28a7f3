// Numbers, amounts and durations as members read them (decision F43). Whole numbers as the canister
// keeps them (nanoseconds, e8s) arrive as bigint from a canister client or as decimal strings in JSON.
import { duration as nsDuration } from '@domdao/canister-kit/duration';

export type Whole = bigint | string | number;

const E8S = 100_000_000n;

export const whole = (v: Whole): bigint =>
  typeof v === 'bigint' ? v : BigInt(typeof v === 'number' ? Math.trunc(v) : v);

const grouped = (n: number, min: number, max: number) =>
  n.toLocaleString('en-US', { minimumFractionDigits: min, maximumFractionDigits: max });

/** 50 → "50.00 USD"; a price keeps up to six decimals: 0.2513 → "0.2513 USD". */
export const usd = (n: number): string => `${grouped(n, 2, 2)} USD`;
export const price = (n: number): string => `${grouped(n, 2, 6)} USD`;

/** e8s → "1,250.5 DOM", exact (every decimal the ledger keeps, none it does not). */
export function domE8s(v: Whole): string {
  const e8s = whole(v);
  const sign = e8s < 0n ? '-' : '';
  const abs = e8s < 0n ? -e8s : e8s;
  const units = (abs / E8S).toLocaleString('en-US');
  const frac = (abs % E8S).toString().padStart(8, '0').replace(/0+$/, '');
  return `${sign}${units}${frac ? `.${frac}` : ''} DOM`;
}

/** An estimate in DOM (a USD amount at a price): two decimals are enough, and it says so. */
export const domAbout = (n: number): string => `about ${grouped(n, 0, 2)} DOM`;

/** Basis points → "20 %" (as the consent messages write a share, decision G25). */
export const percent = (bps: number): string => `${bps / 100} %`;

/** Nanoseconds → "3 days", "1 day 12 hours", "2 minutes": the two largest units. */
export const duration = (v: Whole): string => nsDuration(whole(v), 2);

/** Nanoseconds since the epoch → "28 November 2026, 22:02 UTC" (the same words in a page and an email). */
export function moment(v: Whole): string {
  const d = new Date(Number(whole(v) / 1_000_000n));
  const day = d.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
  return `${day}, ${d.toISOString().slice(11, 16)} UTC`;
}

/** A change of a price, signed: 0.25 against 0.20 → "+25 %". */
export function change(to: number, from: number): string {
  if (!(from > 0)) return '';
  const pct = ((to - from) / from) * 100;
  const r = Math.round(pct * 10) / 10;
  return r === 0 ? 'the same' : `${r > 0 ? '+' : ''}${r} %`;
}

/** "A", "A and B", "A, B and C", "A, B, C and 4 more". */
export function listed(items: string[], max = 3): string {
  if (items.length <= 1) return items[0] ?? '';
  if (items.length > max) return `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
