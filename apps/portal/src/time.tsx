// How the app words a moment (decisions F49, N29): relative to now ("in 2 minutes", "3 hours ago") and
// absolute in the browser's time zone, the zone named: the wording of @domdao/proposal-text, which the
// bridge's texts share.
import { absoluteTime, relativeTime } from '@domdao/proposal-text';
import { useEffect, useState } from 'preact/hooks';

/** "Sun, 29 Nov 2026, 16:02 GMT+9": an instant in the reader's zone, named (F63). */
export const localTime = (iso: string): string => absoluteTime(Date.parse(iso));

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
      {relativeTime(at, now)} ({absoluteTime(at)})
    </time>
  );
}
