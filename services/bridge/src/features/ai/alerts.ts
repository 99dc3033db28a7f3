// AI alerts (spec 2 Events): ai.circuit_open, ai.latency_high, ai.cache_miss_rate, tagged with the
// service and component `ai`. Always a structured log line (`event: "ai.alert"`); also an error-tracker
// event when SENTRY_DSN is set, through Sentry's SDK with a client of its own (no global init, no
// automatic instrumentation: the bridge only reports these alerts). Each alert fires once when its
// condition starts and re-arms when the condition ends (decision A12). Sentry's SDK is loaded only when
// SENTRY_DSN is set: loading it costs ≈36 MiB of resident memory (decision P13).
import type { NodeClient, Scope } from '@sentry/node';

export type AlertTag = 'ai.circuit_open' | 'ai.latency_high' | 'ai.cache_miss_rate';

/** Spec 2 Events: "tagged service oracle-bridge-side and component ai". */
export const ALERT_TAGS = { service: 'oracle-bridge', component: 'ai' } as const;
/** Spec 2 Events: an inference response over 15 s. */
export const LATENCY_HIGH_MS = 15_000;
/** Spec 2 Events: summary cache hit rate below 40 %. Window (decision A12): the last 100 summary requests, judged from 20 on. */
export const CACHE_HIT_FLOOR = 0.4;
export const CACHE_WINDOW = 100;
export const CACHE_MIN_SAMPLES = 20;

export interface AlertLog {
  warn(obj: object, msg: string): void;
}

export interface Alerts {
  /** The circuit went CLOSED → OPEN. */
  circuitOpened(detail: { failures: number; reason: string }): void;
  /** One inference call's duration; fires when it exceeds 15 s, re-arms after a call under it. */
  inferenceLatency(ms: number, detail: { model: string; operation: string }): void;
  /** One summary request: served from the cache or not. */
  summaryLookup(hit: boolean): void;
  /** Sends what the tracker still holds (tests, shutdown). */
  flush(timeoutMs?: number): Promise<void>;
}

export interface AlertOptions {
  log: AlertLog;
  sentryDsn?: string;
  environment?: string;
  release?: string;
}

export async function createAlerts(o: AlertOptions): Promise<Alerts> {
  let scope: Scope | undefined;
  let client: NodeClient | undefined;
  if (o.sentryDsn) {
    const { NodeClient, Scope, defaultStackParser, makeNodeTransport } = await import('@sentry/node');
    client = new NodeClient({
      dsn: o.sentryDsn,
      transport: makeNodeTransport,
      stackParser: defaultStackParser,
      integrations: [],
      ...(o.environment && { environment: o.environment }),
      ...(o.release && { release: o.release }),
    });
    scope = new Scope();
    scope.setClient(client);
    scope.setTags({ ...ALERT_TAGS });
    client.init();
  }
  const fire = (tag: AlertTag, message: string, detail: Record<string, unknown>) => {
    o.log.warn({ event: 'ai.alert', alert: tag, ...ALERT_TAGS, ...detail }, message);
    if (scope)
      scope.captureMessage(`${tag}: ${message}`, 'warning', {
        captureContext: { tags: { alert: tag }, extra: detail },
      });
  };
  let slow = false;
  const window: boolean[] = [];
  let hits = 0;
  let missAlarm = false;
  return {
    circuitOpened(detail) {
      fire('ai.circuit_open', 'the inference circuit opened: AI endpoints answer 503 until a probe succeeds', detail);
    },
    inferenceLatency(ms, detail) {
      if (ms > LATENCY_HIGH_MS) {
        if (!slow)
          fire('ai.latency_high', `an inference call took ${Math.round(ms)} ms (over ${LATENCY_HIGH_MS} ms)`, {
            latency_ms: Math.round(ms),
            ...detail,
          });
        slow = true;
      } else slow = false;
    },
    summaryLookup(hit) {
      window.push(hit);
      if (hit) hits++;
      if (window.length > CACHE_WINDOW && window.shift()) hits--;
      if (window.length < CACHE_MIN_SAMPLES) return;
      const rate = hits / window.length;
      if (rate < CACHE_HIT_FLOOR && !missAlarm) {
        missAlarm = true;
        fire(
          'ai.cache_miss_rate',
          `summary cache hit rate ${(rate * 100).toFixed(1)} % over the last ${window.length} requests (below ${CACHE_HIT_FLOOR * 100} %)`,
          { hit_rate: rate, window: window.length },
        );
      } else if (rate >= CACHE_HIT_FLOOR) missAlarm = false;
    },
    async flush(timeoutMs = 2000) {
      await client?.flush(timeoutMs);
    },
  };
}
