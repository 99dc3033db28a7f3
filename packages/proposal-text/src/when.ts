// How a moment is worded (decisions F49, N29), the same in a page and in text the bridge writes:
// relative to now ("in 2 minutes", "3 hours ago") and absolute with its zone named. Intl does the
// wording; choosing the unit is ours (Intl.RelativeTimeFormat takes one). The web app gives no zone
// (the browser's own); the bridge gives the member's, or UTC.

const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** The unit a gap of `seconds` is said in, and the count (rounded). */
export function relativeParts(seconds: number): [number, Intl.RelativeTimeFormatUnit] {
  const a = Math.abs(seconds);
  if (a < 60) return [Math.round(seconds), 'second'];
  if (a < 3600) return [Math.round(seconds / 60), 'minute'];
  if (a < 86_400) return [Math.round(seconds / 3600), 'hour'];
  if (a < 30 * 86_400) return [Math.round(seconds / 86_400), 'day'];
  if (a < 365 * 86_400) return [Math.round(seconds / (30 * 86_400)), 'month'];
  return [Math.round(seconds / (365 * 86_400)), 'year'];
}

/** "in 2 minutes", "3 hours ago", "tomorrow": `at` seen from `now` (both epoch ms). */
export function relativeTime(at: number, now: number): string {
  return RELATIVE.format(...relativeParts((at - now) / 1000));
}

const absolute = new Map<string | undefined, Intl.DateTimeFormat>();

/** "Sun, 29 Nov 2026, 14:02 UTC": in `timeZone` (an IANA name; without one, the runtime's own), the zone named. */
export function absoluteTime(at: number, timeZone?: string): string {
  let f = absolute.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      ...(timeZone !== undefined && { timeZone }),
      timeZoneName: 'short',
    });
    absolute.set(timeZone, f);
  }
  return f.format(at);
}
