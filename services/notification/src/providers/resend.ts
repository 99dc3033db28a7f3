// HTTP API delivery, Resend's `POST /emails` contract (base URL configurable: any compatible relay).
// The request id doubles as the provider's Idempotency-Key, so our own retries never send twice.
import type { EmailProvider } from './provider.ts';
import { ProviderError } from './provider.ts';
import { parseRetryAfter, withProviderRetry, type RetryPolicy } from './retry.ts';

export interface ResendOptions {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  retry: RetryPolicy;
}

export function resendProvider(opts: ResendOptions): EmailProvider {
  const endpoint = new URL('/emails', opts.baseUrl).href;
  return {
    name: 'resend',
    stub: false,
    async send(message, { id: requestId, log }) {
      const payload = JSON.stringify({
        from: `${JSON.stringify(message.from.name)} <${message.from.address}>`,
        to: [message.to],
        subject: message.subject,
        html: message.html,
        text: message.text,
        ...(Object.keys(message.headers).length > 0 && { headers: message.headers }),
        ...(message.attachments.length > 0 && {
          attachments: message.attachments.map((a) => ({
            filename: a.filename,
            content: a.content,
            ...(a.contentType !== undefined && { content_type: a.contentType }),
          })),
        }),
      });
      const attempt = async () => {
        let res: Response;
        try {
          res = await fetch(endpoint, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${opts.apiKey}`,
              'content-type': 'application/json',
              'idempotency-key': requestId,
            },
            body: payload,
            signal: AbortSignal.timeout(opts.timeoutMs),
          });
        } catch (err) {
          throw new ProviderError(`request failed: ${(err as Error).name}: ${(err as Error).message}`);
        }
        const text = await res.text();
        if (res.status === 429) {
          throw new ProviderError(
            `rate limited: ${text.slice(0, 500)}`,
            429,
            parseRetryAfter(res.headers.get('retry-after')),
            true,
          );
        }
        if (!res.ok) throw new ProviderError(`HTTP ${res.status}: ${text.slice(0, 500)}`, res.status);
        let id: unknown;
        try {
          id = (JSON.parse(text) as { id?: unknown }).id;
        } catch {
          id = undefined;
        }
        if (typeof id !== 'string' || id === '')
          throw new ProviderError(`HTTP ${res.status} without a message id`, res.status);
        return { messageId: id };
      };
      return withProviderRetry(attempt, {
        ...opts.retry,
        onRetry: (n, delayMs, err) =>
          log.warn(
            { event: 'email.provider_retry', attempt: n, delay_ms: delayMs, status: err.status },
            'provider asked to retry',
          ),
      });
    },
  };
}
