// The notification service (spec 3) as a Fastify instance: build it with a config, listen elsewhere.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { DestinationStream } from 'pino';
import { brandsFromConfig } from './brands/brands.ts';
import type { NotificationConfig } from './config.ts';
import { ByteBudget } from './http/byte-budget.ts';
import { errorHandler, sendError } from './http/errors.ts';
import { parseJsonBody } from './http/json-body.ts';
import { requestIdFor } from './http/request-id.ts';
import { memoryIdempotencyStore } from './idempotency/memory.ts';
import { redisIdempotencyStore } from './idempotency/redis.ts';
import type { IdempotencyStore } from './idempotency/store.ts';
import { sourceIpClass } from './logging/ip-class.ts';
import {
  clientAddress,
  createLogger,
  drainOnClose,
  lingerAfterEarlyAnswers,
  Metrics,
  observeRequests,
  parseForeignTokens,
  parseTrustProxy,
  TokenRegistry,
  tokenPrefix,
  traceOf,
} from '@domdao/service-kit';
import { providerFromConfig } from './providers/from-config.ts';
import type { EmailProvider } from './providers/provider.ts';
import { Composer } from './rendering/compose.ts';
import { HEALTH_PATH, healthRoutes, READY_PATH } from './routes/health.ts';
import { openapiRoutes } from './routes/openapi.ts';
import { createSender, sendRoutes } from './routes/send.ts';
import { FrontDoor } from './http/front-door.ts';
import type { TemplateDefinition } from './templates/template-schema.ts';
import { templates as catalog } from './templates/catalog.ts';

export const SERVICE_VERSION = '1.5.0';

/** Bodies declared up to this size take the small lane (a send without attachments is a few KiB). */
export const SMALL_BODY_BYTES = 1024 * 1024;
/** Memory of the small lane: 32 such bodies at once, or thousands of ordinary sends. */
export const SMALL_LANE_BYTES = 32 * 1024 * 1024;
/** A small body must arrive within this time (at least 200 KiB/s), so slow senders free the small lane quickly. */
export const SMALL_BODY_READ_TIMEOUT_MS = 5000;

export interface BuildOptions {
  config: NotificationConfig;
  /** Where JSON log lines go (stdout by default); tests pass a capturing stream. */
  logStream?: DestinationStream;
  /** The catalog; tests may add a template to exercise render_failed. */
  templates?: Record<string, TemplateDefinition>;
  /** Clock for calendar DTSTAMP. */
  now?: () => Date;
  /** The delivery; by default the one the configuration names. Tests pass one that fails in a chosen way. */
  provider?: EmailProvider;
  /** The metrics registry (decision B69); `npm start` passes the one the three services share. */
  metrics?: Metrics;
  /** Tests only: how long a connection must be quiet before the close ends it; otherwise IDLE_CLOSE_MS (decision R27). */
  closeIdleMs?: number;
}

export async function buildApp(opts: BuildOptions): Promise<FastifyInstance> {
  const { config } = opts;
  const { logger, flush } = createLogger(config.LOG_LEVEL, 'notification', SERVICE_VERSION, opts.logStream);
  const metrics = opts.metrics ?? new Metrics();
  const sends = metrics.counter(
    'notification_sends_total',
    'sends by template and result (sent, stubbed, failed, invalid, render_failed, replayed, conflict, key_reused)',
    ['template', 'result'],
  );
  const storeErrors = metrics.counter(
    'notification_idempotency_store_errors_total',
    'idempotency store failures by step (begin, complete, release, unreachable)',
    ['step'],
  );
  const brands = brandsFromConfig(config);
  const registry = new TokenRegistry(
    'notification',
    config.SERVICE_TOKEN,
    parseForeignTokens(config.FOREIGN_SERVICE_TOKENS, config.SERVICE_TOKEN, 'notification'),
  );
  const templates = opts.templates ?? (catalog as unknown as Record<string, TemplateDefinition>);
  const composer = new Composer(Object.values(templates));
  const provider: EmailProvider = opts.provider ?? providerFromConfig(config);
  const idempotency: IdempotencyStore = config.IDEMPOTENCY_REDIS_URL
    ? redisIdempotencyStore({
        url: config.IDEMPOTENCY_REDIS_URL,
        prefix: config.IDEMPOTENCY_KEY_PREFIX,
        ttlSeconds: config.IDEMPOTENCY_TTL_SECONDS,
        commandTimeoutMs: config.IDEMPOTENCY_REDIS_TIMEOUT_MS,
        onUnreachable: (err) => {
          storeErrors.inc({ step: 'unreachable' });
          logger.warn(
            { event: 'idempotency.store_unreachable', err: err.message },
            'the Redis idempotency store is unreachable: sends with an Idempotency-Key answer 500 until it is back',
          );
        },
      })
    : memoryIdempotencyStore(config.IDEMPOTENCY_TTL_SECONDS, config.IDEMPOTENCY_MAX_ENTRIES);
  // Two lanes (decision D32): bodies up to SMALL_BODY_BYTES never queue behind large ones.
  const budget = new ByteBudget(config.INFLIGHT_BODY_BYTES);
  const smallBudget = new ByteBudget(Math.min(SMALL_LANE_BYTES, config.INFLIGHT_BODY_BYTES));

  const app = Fastify({
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- it sets Fastify's logger type parameter
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: (req) => requestIdFor(req.headers['x-request-id']),
    // Our own request.completed line replaces Fastify's two per-request lines.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    // Decision E16: every line of a request carries its trace id (continued from the gateway's traceparent).
    childLoggerFactory: (parent, bindings, options, raw) =>
      parent.child({ ...bindings, trace_id: traceOf(raw).traceId }, options),
    bodyLimit: config.MAX_BODY_BYTES,
    trustProxy: parseTrustProxy(config.TRUST_PROXY),
    // Decision R27: a request on an open connection is served while the service closes (not Fastify's 503).
    return503OnClosing: false,
    // Slow-loris bound: a 40 MiB body at 1 MiB/s still fits.
    requestTimeout: 120_000,
  });
  drainOnClose(app, opts.closeIdleMs === undefined ? {} : { idleMs: opts.closeIdleMs });
  // Decision E17: an answer given before the body arrived is still read by the proxy sending it.
  lingerAfterEarlyAnswers(app);

  app.decorateRequest('budgetHeld', 0);
  app.decorateRequest('budgetLane', null);
  app.decorateRequest('bodyDeadline', 0);
  // Decision D3: JSON is the only accepted body; Fastify's built-in text/plain parser would turn a
  // text body into a string and make it a 400 instead of 415.
  app.removeContentTypeParser('text/plain');
  // Fastify's JSON parser's answers at less cost, and it marks bodies without control characters (D39).
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJsonBody);
  app.setErrorHandler(errorHandler);

  /** Authentication rules 2-5 (rule 1, fail-closed, runs in the global hook): answers and returns false when the request may not proceed. */
  const authenticated = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const authorization = request.headers.authorization;
    const result = registry.check(authorization);
    if (result.ok) return true;
    request.log.warn(
      {
        event: 'auth.unauthorized',
        path: request.url.split('?', 1)[0],
        source_ip_class: sourceIpClass(request.ip),
        token_prefix: tokenPrefix(authorization),
        reason: result.reason,
      },
      'request rejected',
    );
    void (result.status === 403 ? sendError(reply, 403, 'forbidden') : sendError(reply, 401, 'unauthorized'));
    return false;
  };

  const smallReadTimeoutMs = Math.min(SMALL_BODY_READ_TIMEOUT_MS, config.BODY_READ_TIMEOUT_MS);
  const debugEnabled = logger.isLevelEnabled('debug');

  const sendOptions = {
    brands,
    templates,
    composer,
    provider,
    idempotency,
    now: opts.now ?? (() => new Date()),
    observe: {
      send: (template: string, result: string) => sends.inc({ template, result }),
      storeError: (step: string) => storeErrors.inc({ step }),
    },
  };
  const sender = createSender(sendOptions);
  // Decision D44: authenticated small JSON sends are served on Node's objects; everything else by Fastify.
  const door = new FrontDoor({
    registry,
    logger,
    lane: smallBudget,
    maxBytes: Math.min(SMALL_BODY_BYTES, config.MAX_BODY_BYTES),
    readTimeoutMs: smallReadTimeoutMs,
    sender,
    debugEnabled,
    logRequests: config.LOG_REQUESTS,
    metrics,
    clientAddress: clientAddress(parseTrustProxy(config.TRUST_PROXY)),
  });
  const [fastifyHandler] = app.server.listeners('request') as Array<
    (req: IncomingMessage, res: ServerResponse) => void
  >;
  app.server.removeAllListeners('request');
  app.decorate('frontDoor', door);
  app.decorate('metrics', metrics);
  app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!door.take(req, res)) fastifyHandler!(req, res);
  });
  // Decision D48: a client that ends its side after its request still gets an answer waiting for its
  // batch; this runs before Node's own end handler, which ends the socket.
  app.server.on('connection', (socket: Socket) => socket.prependListener('end', door.writeOutgoing));

  /**
   * Memory bound (decision D8): the body is read only once its declared size fits the in-flight
   * budget; from then on it must arrive within its lane's read timeout (decision D32).
   */
  const reserveBody = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const declared = request.headers['content-length'];
    if (declared === undefined && request.headers['transfer-encoding'] === undefined) return done();
    const size = declared === undefined ? config.MAX_BODY_BYTES : Number(declared);
    if (!Number.isFinite(size) || size > config.MAX_BODY_BYTES) return void sendError(reply, 413, 'payload_too_large');
    if (size === 0) return done();
    const lane = size <= SMALL_BODY_BYTES ? smallBudget : budget;
    request.budgetLane = lane;
    const held = lane.acquire(size);
    if (typeof held === 'number') {
      request.budgetHeld = held;
      request.bodyDeadline = Date.now() + (lane === smallBudget ? smallReadTimeoutMs : config.BODY_READ_TIMEOUT_MS);
      return done();
    }
    held.then((n) => {
      // The client may have gone while queued; onRequestAbort has then already run.
      if (request.raw.destroyed) lane.release(n);
      else {
        request.budgetHeld = n;
        request.bodyDeadline = Date.now() + (lane === smallBudget ? smallReadTimeoutMs : config.BODY_READ_TIMEOUT_MS);
      }
      done();
    }, done);
  };

  // Callback-style hooks (no promise per request), in the order of spec 3's send flow: step 1 the
  // correlation id on every response and rule 1 (fail closed, health included) here; step 2
  // authentication and then the body budget in the scope that holds the routes (decision D34).
  const configured = registry.configured;
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (configured) return done();
    void sendError(reply, 503, 'service_unavailable');
  });

  // Every admitted request until it is answered or aborted (decisions D29, D32, D43). Whether its body
  // has fully arrived is the parser's own flag (`complete`), so no hook runs per request to say so.
  const admitted = new Map<FastifyRequest, FastifyReply>();
  // close() (decision D29 as amended by R27): every admitted request is answered, a body still
  // arriving included, and its answer says `Connection: close`, so a keep-alive connection does not
  // hold close() until its timeout (72 s). Such a body has at most the small lane's read time left
  // (5 s, under npm start's 8 s grace): a slow sender on the large lane (60 s) would hold the close.
  // Requests arriving on open connections meanwhile are served by Fastify (drainOnClose).
  let closeDeadline = Infinity;
  app.addHook('preClose', (done) => {
    door.close();
    closeDeadline = Date.now() + smallReadTimeoutMs;
    for (const reply of admitted.values()) if (!reply.sent) reply.header('connection', 'close');
    done();
  });
  // Body read timeouts (decision D32) are checked by one unref'd sweep, at most a fifth of the shorter
  // timeout (and 1 s) late, instead of a timer set and cleared per request.
  const sweepMs = Math.max(
    20,
    Math.min(1000, Math.floor(Math.min(smallReadTimeoutMs, config.BODY_READ_TIMEOUT_MS) / 5)),
  );
  const sweep = setInterval(() => {
    const now = Date.now();
    door.sweep(now);
    for (const request of admitted.keys()) {
      if (request.bodyDeadline === 0 || Math.min(request.bodyDeadline, closeDeadline) > now || request.raw.complete)
        continue;
      request.bodyDeadline = 0;
      const timeoutMs = request.budgetLane === smallBudget ? smallReadTimeoutMs : config.BODY_READ_TIMEOUT_MS;
      request.log.warn(
        {
          event: 'request.body_timeout',
          declared_bytes: Number(request.headers['content-length'] ?? -1),
          timeout_ms: timeoutMs,
        },
        'request body too slow; connection closed',
      );
      request.raw.socket?.destroy();
    }
  }, sweepMs);
  sweep.unref();
  const releaseBudget = (request: FastifyRequest) => {
    admitted.delete(request);
    request.bodyDeadline = 0;
    if (request.budgetHeld > 0) {
      request.budgetLane!.release(request.budgetHeld);
      request.budgetHeld = 0;
    }
  };
  app.addHook('onRequestAbort', (request, done) => {
    releaseBudget(request);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    releaseBudget(request);
    done();
  });
  // The access line and the HTTP metrics (decisions D24, D50, B69); health probes leave no line when they pass.
  observeRequests(
    app,
    {
      service: 'notification',
      metrics,
      logRequests: config.LOG_REQUESTS,
      quiet: (_request, route) => route === HEALTH_PATH || route === READY_PATH,
    },
    debugEnabled,
  );

  const admitBody = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    admitted.set(request, reply);
    reserveBody(request, reply, done);
  };
  // Health is public: its scope has the body budget but no authentication.
  await app.register(async (pub) => {
    pub.addHook('onRequest', admitBody);
    await pub.register(healthRoutes, {
      version: SERVICE_VERSION,
      // Decision B72: the service needs its idempotency store (Redis, when configured) to keep sends single.
      readiness: {
        ...(config.IDEMPOTENCY_REDIS_URL && idempotency.ping && { idempotency_store: () => idempotency.ping!() }),
      },
    });
  });
  // Everything else, unknown paths included (decision D3: their 404 comes after auth), is authenticated.
  await app.register(async (api) => {
    api.addHook('onRequest', (request, reply, done) => {
      if (authenticated(request, reply)) admitBody(request, reply, done);
    });
    api.setNotFoundHandler((_request, reply) => sendError(reply, 404, 'not_found'));
    await api.register(sendRoutes, { ...sendOptions, sender });
    await api.register(openapiRoutes, { brands, templates, version: SERVICE_VERSION });
  });

  app.addHook('onClose', async () => {
    clearInterval(sweep);
    await provider.close?.();
    await idempotency.close?.();
    flush();
  });
  app.log.info(
    {
      event: 'service.configured',
      provider: provider.name,
      stub_mode: provider.stub,
      fail_closed: !registry.configured,
      brands: brands.domains,
      idempotency: config.IDEMPOTENCY_REDIS_URL ? 'redis' : 'memory',
    },
    'notification service configured',
  );
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Decision D44: the door for small authenticated JSON sends. */
    frontDoor: FrontDoor;
    /** The service's metrics (decision B69): scraped on the metrics listener, never on the service's port. */
    metrics: Metrics;
  }
  interface FastifyRequest {
    budgetHeld: number;
    budgetLane: ByteBudget | null;
    /** Epoch ms by which the body must have arrived (decision D32); 0 = none. */
    bodyDeadline: number;
  }
}
