// How the bridge words a moment in text it writes itself (decision N29): the activity page, the
// digest and the member emails. Relative to the moment the text is read or sent ("in 2 minutes",
// "3 hours ago") and absolute with its zone stated: the member's zone when one is known, else UTC, so a
// reader never has to guess. The portal words the same instants in the browser's zone (decision F49).
// The wording is @domdao/proposal-text's, which the portal shares.
import { absoluteTime as wordedAbsolute, relativeTime } from '@domdao/proposal-text';

/** "Sun, 29 Nov 2026, 14:02 UTC": in `timeZone` (an IANA name; UTC when none is known), the zone named. */
export const absoluteTime = (at: number, timeZone = 'UTC'): string => wordedAbsolute(at, timeZone);

/** "in 2 minutes (Sun, 29 Nov 2026, 14:02 UTC)". */
export const bothTimes = (at: number, now: number, timeZone?: string): string =>
  `${relativeTime(at, now)} (${absoluteTime(at, timeZone)})`;

/** The voting deadline as a sentence at `now`: "Voting closes in 2 minutes (…)." or "Voting closed 3 hours ago (…)." */
export function closesSentence(closesAt: number, now: number, timeZone?: string): string {
  return `Voting ${closesAt > now ? 'closes' : 'closed'} ${bothTimes(closesAt, now, timeZone)}.`;
}
