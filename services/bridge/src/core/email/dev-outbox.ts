// The development outbox (DEV_OUTBOX_FILE, refused in production; decision B54): every email the bridge
// asks the notification service to send is also appended to a JSON-lines file with its links, so a
// person running `npm start` can follow any member email (verification, password reset, invitation,
// digest, …) without a mailbox. One line per send: { at, type, to, link, links }; `link` is the first.
import { appendFileSync } from 'node:fs';
import type { NotificationClient } from '@domdao/notification-client';

/** The email's links: every string field of its data named `*_link` or `*_url` (nested items included). */
export function emailLinks(data: unknown, path = ''): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(data)) data.forEach((v, i) => Object.assign(out, emailLinks(v, `${path}[${i}]`)));
  else if (data !== null && typeof data === 'object') {
    for (const [k, v] of Object.entries(data)) {
      const name = path ? `${path}.${k}` : k;
      if (typeof v === 'string' && /(_link|_url)$/.test(k)) out[name] = v;
      else if (typeof v === 'object') Object.assign(out, emailLinks(v, name));
    }
  }
  return out;
}

export function withDevOutbox(
  notifier: NotificationClient,
  file: string | undefined,
  now: () => number,
): NotificationClient {
  if (!file) return notifier;
  return {
    configured: notifier.configured,
    async send(request, options) {
      const links = emailLinks(request.data);
      const line = {
        at: new Date(now()).toISOString(),
        type: request.type,
        to: request.to,
        link: Object.values(links)[0] ?? null,
        links,
      };
      appendFileSync(file, `${JSON.stringify(line)}\n`, { mode: 0o600 });
      return notifier.send(request, options);
    },
  };
}
