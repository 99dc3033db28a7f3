// Retries a provider's "slow down" answers (HTTP 429, SMTP 4xx) with backoff, inside a time budget.
// Anything else fails at once: retrying a hard rejection only delays the caller's error.
import { setTimeout as sleep } from 'node:timers/promises';
import { ProviderError } from './provider.ts';

export interface RetryPolicy {
  maxAttempts: number;
  budgetMs: number;
  baseDelayMs?: number;
  onRetry?: (attempt: number, delayMs: number, err: ProviderError) => void;
}

export async function withProviderRetry<T>(fn: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  const started = Date.now();
  const base = policy.baseDelayMs ?? 500;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof ProviderError) || !err.retryable || attempt >= policy.maxAttempts) throw err;
      // Full jitter on exponential backoff, unless the provider said when (Retry-After wins).
      const delay = err.retryAfterMs ?? Math.round(Math.random() * base * 2 ** (attempt - 1));
      if (Date.now() - started + delay > policy.budgetMs) throw err;
      policy.onRetry?.(attempt, delay, err);
      await sleep(delay);
    }
  }
}

/** Retry-After is delta-seconds or an HTTP-date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
