// Who gets a live stream (decision V37). An instance serves LIVE_MAX_STREAMS streams; streams of
// visitors who are not signed in share LIVE_ANONYMOUS_STREAMS_PERCENT of them, so the rest is kept for
// signed-in members whoever else connects; and one client (a member by account, a visitor by address,
// an IPv6 one by its /64) holds at most LIVE_STREAMS_PER_CLIENT. A place is taken when the stream is
// admitted, before anything is awaited, so concurrent requests cannot both take the last one.
import { isIPv6 } from 'node:net';

export interface AdmissionLimits {
  maxStreams: number;
  maxAnonymousStreams: number;
  streamsPerClient: number;
}

export type StreamKind = 'member' | 'anonymous';
/** Why a stream was refused: the instance is full, the visitors' share is, or the client holds its share. */
export type RefusalReason = 'instance_full' | 'anonymous_share_full' | 'per_client';

export type Admission = { admitted: true; release(): void } | { admitted: false; reason: RefusalReason };

/**
 * The client a visitor's stream is counted for: its address as the bridge sees it (after
 * TRUST_PROXY), an IPv6 address by its /64, which one host can hold whole.
 */
export function visitorKey(ip: string): string {
  const addr = ip.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(addr)?.[1];
  if (mapped) return mapped;
  if (!isIPv6(addr)) return addr;
  const [head = '', tail = ''] = addr.toLowerCase().split('::');
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  // An embedded IPv4 tail (::1.2.3.4) sits beyond the first four groups: the /64 does not read it.
  const groups = addr.includes('::') ? [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back] : front;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export class StreamAdmission {
  readonly open: Record<StreamKind, number> = { member: 0, anonymous: 0 };
  readonly #perClient = new Map<string, number>();

  constructor(private readonly limits: AdmissionLimits) {}

  /** Takes a place for a stream of `kind` held by `client`, or says why there is none. */
  admit(kind: StreamKind, client: string): Admission {
    const held = this.#perClient.get(client) ?? 0;
    if (held >= this.limits.streamsPerClient) return { admitted: false, reason: 'per_client' };
    if (this.open.member + this.open.anonymous >= this.limits.maxStreams) return { admitted: false, reason: 'instance_full' };
    if (kind === 'anonymous' && this.open.anonymous >= this.limits.maxAnonymousStreams) return { admitted: false, reason: 'anonymous_share_full' };
    this.open[kind]++;
    this.#perClient.set(client, held + 1);
    let released = false;
    return {
      admitted: true,
      release: () => {
        if (released) return;
        released = true;
        this.open[kind]--;
        const left = (this.#perClient.get(client) ?? 1) - 1;
        if (left > 0) this.#perClient.set(client, left);
        else this.#perClient.delete(client);
      },
    };
  }
}
