// Who gets a live stream (decision V37). An instance serves LIVE_MAX_STREAMS streams; streams of
// visitors who are not signed in share LIVE_ANONYMOUS_STREAMS_PERCENT of them, so the rest is kept for
// signed-in members whoever else connects; and one client (a member by account, a visitor by address,
// an IPv6 one by its /64) holds at most LIVE_STREAMS_PER_CLIENT. A place is taken when the stream is
// admitted, before anything is awaited, so concurrent requests cannot both take the last one.
export interface AdmissionLimits {
  maxStreams: number;
  maxAnonymousStreams: number;
  streamsPerClient: number;
}

export type StreamKind = 'member' | 'anonymous';
/** Why a stream was refused: the instance is full, the visitors' share is, or the client holds its share. */
export type RefusalReason = 'instance_full' | 'anonymous_share_full' | 'per_client';

export type Admission = { admitted: true; release(): void } | { admitted: false; reason: RefusalReason };

/** The client a visitor's stream is counted for: an IPv4 address, an IPv6 one by its /64 (core's rule, B119). */
export { clientNetwork as visitorKey } from '../../core/auth/client-network.ts';

export class StreamAdmission {
  readonly open: Record<StreamKind, number> = { member: 0, anonymous: 0 };
  readonly #perClient = new Map<string, number>();

  constructor(private readonly limits: AdmissionLimits) {}

  /** Takes a place for a stream of `kind` held by `client`, or says why there is none. */
  admit(kind: StreamKind, client: string): Admission {
    const held = this.#perClient.get(client) ?? 0;
    if (held >= this.limits.streamsPerClient) return { admitted: false, reason: 'per_client' };
    if (this.open.member + this.open.anonymous >= this.limits.maxStreams)
      return { admitted: false, reason: 'instance_full' };
    if (kind === 'anonymous' && this.open.anonymous >= this.limits.maxAnonymousStreams)
      return { admitted: false, reason: 'anonymous_share_full' };
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
