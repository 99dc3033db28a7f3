// How the app words a moment (decisions F49, N29): relative to now ("in 2 minutes", "3 hours ago") and
// absolute in the browser's time zone, the zone named. Intl does the wording; choosing the unit is ours
// (Intl.RelativeTimeFormat takes one), the same thresholds as the bridge's texts (core/email/when.ts).
import { useEffect, useState } from 'preact/hooks';

const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
// No timeZone: the browser's own.
const LOCAL = new Intl.DateTimeFormat('en-GB', {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'short',
});

export function relativeTime(at: number, now: number): string {
  const s = (at - now) / 1000;
  const a = Math.abs(s);
  if (a < 60) return RELATIVE.format(Math.round(s), 'second');
  if (a < 3600) return RELATIVE.format(Math.round(s / 60), 'minute');
  if (a < 86_400) return RELATIVE.format(Math.round(s / 3600), 'hour');
  if (a < 30 * 86_400) return RELATIVE.format(Math.round(s / 86_400), 'day');
  if (a < 365 * 86_400) return RELATIVE.format(Math.round(s / (30 * 86_400)), 'month');
  return RELATIVE.format(Math.round(s / (365 * 86_400)), 'year');
}

export const localTime = (at: number): string => LOCAL.format(at);

/** Now, moving every `everyMs` so relative times stay true while the page is open. */
export function useNow(everyMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}

/** "3 hours ago (Sun, 29 Nov 2026, 11:02 GMT+1)" in a <time> element. */
export function When({ iso, now }: { iso: string; now: number }) {
  const at = Date.parse(iso);
  return (
    <time dateTime={iso}>
      {relativeTime(at, now)} ({localTime(at)})
    </time>
  );
}
