// What an operator sees of the bridge (decisions D50, E16, B69, B72), wired by buildApp: the trace of
// each request, its access line and HTTP metrics, the readings taken at scrape time (the outbox, the
// subscribers, the price, the AI breaker), canister call latency, and GET /health/ready.
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { CanisterClients } from '@domdao/canisters';
import type { NotificationClient } from '@domdao/notification-client';
import {
  checkReadiness,
  observeRequests,
  READINESS_TIMEOUT_MS,
  traceOf,
  traceRequests,
  type ReadinessCheck,
} from '@domdao/service-kit';
import type { BridgeConfig } from '../config.ts';
import type { Db } from '../core/db/schema.ts';
import { tableGauges, type BridgeMetrics, type CallOutcome } from '../core/metrics/meters.ts';
import { routeSchema } from '../core/http/route-doc.ts';
import { getReadinessDoc } from '../core/http/health-docs.ts';

/** Paths whose successful answers leave no access line at info (decision D50). */
const QUIET_ROUTES = new Set(['/health', '/health/ready', '/api/ai/health']);
const CONFIDENCE = { low: 0, medium: 1, high: 2 } as const;
const BREAKER = { CLOSED: 0, 'HALF-OPEN': 1, OPEN: 2 } as const;

/** Before any route: the trace kept while a request's hooks and handler run, and the access line. */
export function observeBridgeRequests(app: FastifyInstance, config: BridgeConfig, metrics: BridgeMetrics): void {
  traceRequests(app);
  observeRequests(
    app,
    {
      service: 'bridge',
      metrics: metrics.registry,
      logRequests: config.LOG_REQUESTS,
      quiet: (_request, route) => QUIET_ROUTES.has(route),
      // onResponse runs on the socket's callbacks, outside the request's context: the line names its trace.
      traceId: (request) => traceOf((request as unknown as { raw: Parameters<typeof traceOf>[0] }).raw).traceId,
    },
    config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace',
  );
}

export interface ReadinessParts {
  db: Db;
  redis?: Redis | undefined;
  canisters: CanisterClients;
  notifier: NotificationClient;
}

/** After every feature: the readings taken at scrape time and GET /health/ready. */
export function registerObservability(
  app: FastifyInstance,
  metrics: BridgeMetrics,
  parts: ReadinessParts,
  now: () => number,
): void {
  const registry = metrics.registry;
  tableGauges(registry, parts.db, now);
  registry.gauge(
    'bridge_price_aggregate_age_seconds',
    'age of the published DOM/USD aggregate (absent before the first)',
    [],
    (g) => {
      g.reset();
      const latest = app.priceOracle.latest();
      if (latest) g.set(Math.max(0, (now() - latest.response.timestamp) / 1000));
    },
  );
  registry.gauge(
    'bridge_price_confidence',
    'confidence of the published aggregate: 0 low (or stale), 1 medium, 2 high',
    [],
    (g) => {
      g.reset();
      const latest = app.priceOracle.latest();
      if (latest) g.set(CONFIDENCE[latest.response.confidence]);
    },
  );
  registry.gauge('bridge_price_stale', '1 when the published aggregate is stale (decision O11), else 0', [], (g) => {
    g.set(app.priceOracle.latest()?.response.stale ? 1 : 0);
  });
  registry.gauge(
    'bridge_ai_breaker_state',
    'the inference circuit breaker: 0 closed, 1 half-open, 2 open (decision A5)',
    [],
    (g) => {
      g.set(BREAKER[app.inference.circuitState()]);
    },
  );

  // Decision B72: what the bridge needs to serve. Spec 2's /health stays as it is.
  const checks: Record<string, ReadinessCheck> = {
    database: () => sql`select 1`.execute(parts.db),
    canisters: () => parts.canisters.governance.get_settings(),
  };
  if (parts.redis) {
    const redis = parts.redis;
    checks.session_store = () => redis.ping();
  }
  if (parts.notifier.ping) {
    const notifier = parts.notifier;
    checks.notification = () => notifier.ping!(READINESS_TIMEOUT_MS);
  }
  if (app.inference.configured)
    checks.inference = async () => {
      const health = await app.inference.health();
      if (health.status === 'unavailable') throw new Error(`inference ${health.status}`);
    };
  app.get('/health/ready', { schema: routeSchema(getReadinessDoc) }, async (request, reply) => {
    const { statusCode, body } = await checkReadiness(checks, READINESS_TIMEOUT_MS, (name, reason) =>
      request.log.warn({ event: 'readiness.down', check: name, reason }, `readiness: ${name} is down`),
    );
    return reply.code(statusCode).send({ ...body, request_id: request.id });
  });
}

/** The canister clients with every call timed by canister and method (decision B69). */
export function timedCanisters(
  clients: CanisterClients,
  metrics: Pick<BridgeMetrics, 'canisterCall'>,
): CanisterClients {
  const wrapped: Record<string, unknown> = {};
  for (const [canister, client] of Object.entries(clients) as Array<[string, object]>) {
    const cache = new Map<string, unknown>();
    wrapped[canister] = new Proxy(client, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function' || typeof prop !== 'string') return value;
        let timed = cache.get(prop);
        if (timed === undefined) {
          const fn = value as (...args: unknown[]) => unknown;
          const done = (t0: number, outcome: CallOutcome) =>
            metrics.canisterCall(canister, prop, (performance.now() - t0) / 1000, outcome);
          timed = (...args: unknown[]) => {
            const t0 = performance.now();
            let result: unknown;
            try {
              result = fn.apply(target, args);
            } catch (err) {
              done(t0, 'error');
              throw err;
            }
            if (!(result instanceof Promise)) {
              done(t0, 'ok');
              return result;
            }
            return result.then(
              (v: unknown) => {
                done(t0, 'ok');
                return v;
              },
              (err: unknown) => {
                done(t0, 'error');
                throw err;
              },
            );
          };
          cache.set(prop, timed);
        }
        return timed;
      },
    });
  }
  return wrapped as unknown as CanisterClients;
}
