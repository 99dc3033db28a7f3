// Delivery (spec 3 send flow step 6). One interface, three implementations: stub, HTTP API, SMTP.
import type { FastifyBaseLogger } from 'fastify';
import type { OutboundMessage } from '../rendering/compose.ts';

export interface SendContext {
  requestId: string;
  log: FastifyBaseLogger;
}

export interface EmailProvider {
  readonly name: string;
  readonly stub: boolean;
  send(message: OutboundMessage, ctx: SendContext): Promise<{ messageId: string }>;
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
