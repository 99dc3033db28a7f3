// How the bridge words a moment in text it writes itself (decision N29): the activity page, the
// digest and the member emails. Relative to the moment the text is read or sent ("in 2 minutes",
// "3 hours ago") and absolute with its zone stated: the member's zone when one is known, else UTC, so a
// reader never has to guess. The portal words the same instants in the browser's zone (decision F49).
// Intl does the wording; choosing the unit is ours (Intl.RelativeTimeFormat takes one).

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

const absolute = new Map<string, Intl.DateTimeFormat>();

/** "Sun, 29 Nov 2026, 14:02 UTC": in `timeZone` (an IANA name; UTC when none is known), the zone named. */
export function absoluteTime(at: number, timeZone = 'UTC'): string {
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
      timeZone,
      timeZoneName: 'short',
    });
    absolute.set(timeZone, f);
  }
  return f.format(at);
}

/** "in 2 minutes (Sun, 29 Nov 2026, 14:02 UTC)". */
export const bothTimes = (at: number, now: number, timeZone?: string): string => `${relativeTime(at, now)} (${absoluteTime(at, timeZone)})`;

/** The voting deadline as a sentence at `now`: "Voting closes in 2 minutes (…)." or "Voting closed 3 hours ago (…)." */
export function closesSentence(closesAt: number, now: number, timeZone?: string): string {
  return `Voting ${closesAt > now ? 'closes' : 'closed'} ${bothTimes(closesAt, now, timeZone)}.`;
}
