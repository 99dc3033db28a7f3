// The development outbox (DEV_OUTBOX_FILE): the bench's members follow their verification link
// before they sign in (no session before verification, decision B32).
import { readFileSync } from 'node:fs';

/** Path and query of the last verification link written for `email`, to be requested of the bridge itself. */
export function verificationPath(outbox: string, email: string): string {
  const link = readFileSync(outbox, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { to: string; link: string })
    .filter((l) => l.to === email)
    .at(-1)?.link;
  if (!link) throw new Error(`no verification link for ${email} in ${outbox}`);
  const { pathname, search } = new URL(link);
  return pathname + search;
}
