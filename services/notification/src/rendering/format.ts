// Human-readable dates for email bodies; times are shown in UTC and say so, since the service does
// not know the recipient's time zone. The time part is assembled by hand: ICU's joining words differ
// between Node versions ("21 November 2026 at 08:15" vs ", 08:15").
const DATE = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'long', year: 'numeric' });
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * `DATE.format(d)` without ICU's cost (≈1 µs a call, 25 per digest): "21 November 2026". Years before
 * 1 (ICU writes eras there) and invalid dates (ICU throws RangeError) still go to ICU; a property test
 * keeps the two equal for every date.
 */
export function formatUtcDate(d: Date): string {
  const year = d.getUTCFullYear();
  if (!(year >= 1)) return DATE.format(d);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${year}`;
}

/** The `n` ASCII digits at `i` as a number, or -1. */
function digitsAt(s: string, i: number, n: number): number {
  let v = 0;
  for (let k = i; k < i + n; k++) {
    const c = s.charCodeAt(k) - 48;
    if (!(c >= 0 && c <= 9)) return -1;
    v = v * 10 + c;
  }
  return v;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * "D Month YYYY" read straight from `YYYY-MM-DD` at the start of `iso` when that is a real date from
 * year 1000 on, else undefined (then a Date is built as before). The day, month and year a UTC `Date`
 * of that text would hold, without building it (decision D37; a property test compares the two).
 */
function plainDate(iso: string): string | undefined {
  if (iso.charCodeAt(4) !== 45 || iso.charCodeAt(7) !== 45) return undefined; // '-'
  const y = digitsAt(iso, 0, 4);
  const m = digitsAt(iso, 5, 2);
  const d = digitsAt(iso, 8, 2);
  if (y < 1000 || m < 1 || m > 12 || d < 1) return undefined;
  const leap = m === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d > DAYS_IN_MONTH[m - 1]! + (leap ? 1 : 0)) return undefined;
  return `${d} ${MONTHS[m - 1]} ${y}`;
}

export function formatDate(iso: string): string {
  if (iso.length === 10) {
    const plain = plainDate(iso);
    if (plain !== undefined) return plain;
  }
  return formatUtcDate(new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso));
}

export function formatDateTime(iso: string): string {
  if (iso.length === 10) return formatDate(iso);
  // `YYYY-MM-DDTHH:MM:SSZ` (optionally with a fraction) is already in UTC: its fields are the answer.
  if (
    iso.length >= 20 &&
    iso.charCodeAt(10) === 84 &&
    iso.charCodeAt(iso.length - 1) === 90 &&
    iso.charCodeAt(13) === 58 &&
    iso.charCodeAt(16) === 58
  ) {
    // T Z : :
    const h = digitsAt(iso, 11, 2);
    const mi = digitsAt(iso, 14, 2);
    const sec = digitsAt(iso, 17, 2);
    const fraction =
      iso.length === 20 ||
      (iso.charCodeAt(19) === 46 && iso.length >= 22 && iso.length <= 30 && digitsAt(iso, 20, iso.length - 21) >= 0);
    const date =
      h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && sec >= 0 && sec <= 59 && fraction ? plainDate(iso) : undefined;
    if (date !== undefined) return `${date}, ${iso.slice(11, 13)}:${iso.slice(14, 16)} UTC`;
  }
  const d = new Date(iso);
  const date = formatUtcDate(d);
  const hh = String(d.getUTCHours()).padStart(2, '0');
  const mm = String(d.getUTCMinutes()).padStart(2, '0');
  return `${date}, ${hh}:${mm} UTC`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
