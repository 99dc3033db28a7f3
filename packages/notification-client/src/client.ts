// Caller side of the notification service (spec 3 "Caller contract"):
// 1. a send failure is non-fatal: the client logs a warning and resolves, it never throws;
// 2. without NOTIFICATION_SERVICE_URL or NOTIFICATION_SERVICE_TOKEN it is a no-op that warns per call;
// 3. `stubbed` is surfaced, and there is no delivery confirmation: callers needing one retry themselves
//    (pass an idempotencyKey so a retry never sends twice).
import type { TemplateData, TemplateType } from '@domdao/notification-contract';
import { currentTraceparent } from '@domdao/service-kit';

export interface SendRequest<T extends TemplateType = TemplateType> {
  type: T;
  to: string;
  domain: string;
  data: TemplateData[T];
  attachments?: Array<{ filename: string; content: string; content_type?: string }>;
}

export interface SendOptions {
  /** Same key within 24 h → the first result, nothing sent again. */
  idempotencyKey?: string;
  /** Propagated as X-Request-Id so both services' logs share one id (must be a UUID v1-v5). */
  requestId?: string;
}

export type SendOutcome =
  | { ok: true; id: string; stubbed: boolean; requestId: string }
  | {
      ok: false;
      /** not_configured: no-op client. rejected: 4xx, fix the request. unavailable: 5xx, network or timeout; a retry may help. */
      reason: 'not_configured' | 'rejected' | 'unavailable';
      status?: number;
      error?: string;
      details?: Array<{ field: string; message: string }>;
      requestId?: string;
    };

/** What the client needs of a logger (pino's and Fastify's fit). */
export interface WarnLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
}

export interface NotificationClientOptions {
  baseUrl?: string | undefined;
  token?: string | undefined;
  logger: WarnLogger;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface NotificationClient {
  readonly configured: boolean;
  send<T extends TemplateType>(request: SendRequest<T>, options?: SendOptions): Promise<SendOutcome>;
  /** Readiness (decision B72): resolves when the service's health check answers 200; absent when not configured. */
  ping?(timeoutMs: number): Promise<void>;
}

export function createNotificationClient(opts: NotificationClientOptions): NotificationClient {
  const { logger } = opts;
  if (!opts.baseUrl || !opts.token) {
    return {
      configured: false,
      async send(request) {
        logger.warn(
          { event: 'notification.not_configured', type: request.type },
          'notification client not configured (NOTIFICATION_SERVICE_URL / NOTIFICATION_SERVICE_TOKEN); email not sent',
        );
        return { ok: false, reason: 'not_configured' };
      },
    };
  }
  const base = opts.baseUrl.replace(/\/+$/, '');
  const endpoint = `${base}/api/v1/send`;
  const token = opts.token;
  const doFetch = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? 10_000;

  const fail = (outcome: Extract<SendOutcome, { ok: false }>, type: string): SendOutcome => {
    logger.warn(
      {
        event: 'notification.send_failed',
        type,
        reason: outcome.reason,
        status: outcome.status,
        error: outcome.error,
        request_id: outcome.requestId,
      },
      'email not sent; continuing',
    );
    return outcome;
  };

  return {
    configured: true,
    async ping(pingTimeoutMs) {
      const res = await doFetch(`${base}/api/v1/health`, { signal: AbortSignal.timeout(pingTimeoutMs) });
      await res.body?.cancel();
      if (!res.ok) throw new Error(`the notification service's health answered ${res.status}`);
    },
    async send(request, options = {}) {
      // Decision E16: the send continues the trace of the work that asked for it.
      const traceparent = currentTraceparent();
      let res: Response;
      try {
        res = await doFetch(endpoint, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            ...(options.idempotencyKey && { 'idempotency-key': options.idempotencyKey }),
            ...(options.requestId && { 'x-request-id': options.requestId }),
            ...(traceparent && { traceparent }),
          },
          body: JSON.stringify(request),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        return fail(
          {
            ok: false,
            reason: 'unavailable',
            error: (err as Error).name === 'TimeoutError' ? 'timeout' : 'network_error',
          },
          request.type,
        );
      }
      let body: Record<string, unknown> = {};
      try {
        body = (await res.json()) as Record<string, unknown>;
      } catch {
        // A gateway error page is not JSON; the status still says enough.
      }
      const requestId =
        typeof body.request_id === 'string' ? body.request_id : (res.headers.get('x-request-id') ?? undefined);
      if (res.ok && typeof body.id === 'string') {
        return { ok: true, id: body.id, stubbed: body.stubbed === true, requestId: requestId ?? '' };
      }
      return fail(
        {
          ok: false,
          reason:
            res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429
              ? 'rejected'
              : 'unavailable',
          status: res.status,
          ...(typeof body.error === 'string' && { error: body.error }),
          ...(Array.isArray(body.details) && { details: body.details as Array<{ field: string; message: string }> }),
          ...(requestId !== undefined && { requestId }),
        },
        request.type,
      );
    },
  };
}

/** The client as every caller configures it: NOTIFICATION_SERVICE_URL and NOTIFICATION_SERVICE_TOKEN. */
export function notificationClientFromEnv(
  logger: WarnLogger,
  env: NodeJS.ProcessEnv = process.env,
): NotificationClient {
  return createNotificationClient({
    baseUrl: env.NOTIFICATION_SERVICE_URL,
    token: env.NOTIFICATION_SERVICE_TOKEN,
    logger,
  });
}
