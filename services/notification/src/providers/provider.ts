// Delivery (spec 3 send flow step 6). One interface, three implementations: stub, HTTP API, SMTP.
import type { FastifyBaseLogger } from 'fastify';
import type { OutboundMessage } from '../rendering/compose.ts';

/** The send's request: its id, and its logger (read it only to log: the front door makes it on first use, D45). */
export interface SendContext {
  readonly id: string;
  readonly log: FastifyBaseLogger;
}

export interface EmailProvider {
  readonly name: string;
  readonly stub: boolean;
  /**
   * Delivers `message`. A provider with nothing to wait for (the stub) answers at once, without a
   * promise, and the send is answered in the same turn (decision D45); a throw or a rejection is a
   * failed send either way.
   */
  send(message: OutboundMessage, ctx: SendContext): { messageId: string } | Promise<{ messageId: string }>;
  close?(): Promise<void>;
}

/** The provider refused or failed the send. `detail` goes to server logs only, never to the caller. */
export class ProviderError extends Error {
  constructor(
    readonly detail: string,
    readonly status?: number | string,
    /** Set when the provider asked us to come back later (HTTP 429, SMTP 4xx). */
    readonly retryAfterMs?: number,
    readonly retryable = false,
  ) {
    super(`provider rejected the send: ${detail}`);
    this.name = 'ProviderError';
  }
}
