// The platform gateway (decisions E1–E9) as a Fastify instance: build it with a config, listen elsewhere.
// One origin for people and front ends: POST /register is the identity service's public endpoint
// (spec 2 Authentication 9), /notify/* is the notification service with the prefix stripped and the
// token checked at the edge (spec 3), and every other path — the web app at `/` included — is the
// bridge's. Routing only: no business rule lives here.
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import proxy, { type FastifyHttpProxyOptions } from '@fastify/http-proxy';
import type { DestinationStream } from 'pino';
import {
  checkReadiness,
  createLogger,
  drainOnClose,
  httpCheck,
  lingerAfterEarlyAnswers,
  Metrics,
  observeRequests,
  parseTrustProxy,
  requestIdFor,
  traceOf,
} from '@domdao/service-kit';
import type { GatewayConfig } from './config.ts';
import { notifyEdgeCheck } from './notify/edge-check.ts';
import { notifyError } from './notify/errors.ts';
import { deferContinue } from './expect-continue.ts';
import {
  BodyTooLarge,
  declaredTooLarge,
  dropHopByHop,
  forwardHeaders,
  logFailure,
  poolOptions,
  streamedBody,
  upstreamFailure,
} from './upstream.ts';

export const GATEWAY_VERSION = '0.1.0';

export interface GatewayOptions {
  config: GatewayConfig;
  /** Where JSON log lines go (stdout by default); tests pass a capturing stream. */
  logStream?: DestinationStream;
  /** The metrics registry (decision B69); `npm start` passes the one the three services share. */
  metrics?: Metrics;
}

/** Paths whose successful answers leave no access line at info (decision D50): the probes of each service's health. */
const QUIET_PATHS = new Set([
  '/gateway/health',
  '/gateway/health/ready',
  '/health',
  '/health/ready',
  '/notify/api/v1/health',
  '/notify/health/ready',
]);

type ReplyOptions = NonNullable<FastifyHttpProxyOptions['replyOptions']>;
type ReplyFromError = { error: { statusCode?: number; code?: string; message?: string; cause?: unknown } };
/** reply-from's callbacks are typed for HTTP/2 servers too; the gateway is HTTP/1.1 (TLS ends in front of it). */
const onUpstreamError =
  (handler: (reply: FastifyReply, e: ReplyFromError) => unknown): ReplyOptions['onError'] =>
  (reply, e) =>
    void handler(reply as unknown as FastifyReply, e);
const onRequestHeaders =
  (rewrite: typeof forwardHeaders): ReplyOptions['rewriteRequestHeaders'] =>
  (request, headers) =>
    rewrite(request as unknown as FastifyRequest, headers);

function tooLarge(error: ReplyFromError['error']): boolean {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) if (e instanceof BodyTooLarge) return true;
  return false;
}

export async function buildGateway(opts: GatewayOptions): Promise<FastifyInstance> {
  const { config } = opts;
  const { logger, flush } = createLogger(config.LOG_LEVEL, 'gateway', GATEWAY_VERSION, opts.logStream);
  const app = Fastify({
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- it sets Fastify's logger type parameter
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: (req) => requestIdFor(req.headers['x-request-id']),
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    // Decision E16: every line of a request carries its trace id.
    childLoggerFactory: (parent, bindings, options, raw) =>
      parent.child({ ...bindings, trace_id: traceOf(raw).traceId }, options),
    trustProxy: parseTrustProxy(config.TRUST_PROXY),
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    bodyLimit: config.MAX_BODY_BYTES,
    // Decision R27: a request on an open connection is forwarded while the gateway closes (not Fastify's 503).
    return503OnClosing: false,
  });
  const undici = poolOptions(config);
  deferContinue(app.server);
  drainOnClose(app);
  // Decision E17: a service's early answer, relayed before the client's body was read, is read by the client too.
  lingerAfterEarlyAnswers(app);

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  const metrics = opts.metrics ?? new Metrics();
  app.decorate('metrics', metrics);
  const upstreamFailures = metrics.counter(
    'gateway_upstream_failures_total',
    'requests the gateway could not hand to a service, by upstream and reason',
    ['upstream', 'reason'],
  );
  // The routes are proxies (`/*`), so the health probes are told apart by their path.
  observeRequests(
    app,
    {
      service: 'gateway',
      metrics,
      logRequests: config.LOG_REQUESTS,
      quiet: (request) => QUIET_PATHS.has(request.url.split('?', 1)[0]!),
    },
    logger.isLevelEnabled('debug'),
  );
  app.addHook('onClose', (_app, done) => {
    flush();
    done();
  });

  // The gateway's own liveness (every other path belongs to a service).
  app.get('/gateway/health', async () => ({ status: 'ok', version: GATEWAY_VERSION }));
  // Decision B72: ready when both services behind it answer their health checks.
  const readiness = {
    bridge: httpCheck(new URL('/health', config.BRIDGE_URL).href),
    notification: httpCheck(new URL('/api/v1/health', config.NOTIFICATION_URL).href),
  };
  app.get('/gateway/health/ready', async (request, reply) => {
    const { statusCode, body } = await checkReadiness(readiness, undefined, (name, reason) =>
      request.log.warn({ event: 'readiness.down', check: name, reason }, `readiness: ${name} is down`),
    );
    return reply.code(statusCode).send(body);
  });

  const bridgeTooLarge = (reply: FastifyReply) =>
    reply
      .code(413)
      .send({ error: 'PAYLOAD_TOO_LARGE', message: 'the request body is too large', request_id: reply.request.id });
  const bridgeError = (reply: FastifyReply, { error }: ReplyFromError) => {
    if (tooLarge(error)) return bridgeTooLarge(reply);
    const failure = upstreamFailure(error);
    logFailure(reply, 'bridge', error, failure);
    upstreamFailures.inc({ upstream: 'bridge', reason: failure.reason });
    if (failure.status === 503) reply.header('retry-after', '5');
    return reply.code(failure.status).send({
      error: failure.status === 504 ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNAVAILABLE',
      message:
        failure.status === 504
          ? 'the service did not answer in time'
          : 'the service is temporarily unavailable; try again',
      request_id: reply.request.id,
    });
  };
  const proxyOptions = (
    upstream: string,
    onError: (reply: FastifyReply, e: ReplyFromError) => unknown,
    rewrite = forwardHeaders,
  ) => ({
    upstream,
    undici,
    // Decision R27: the pool's idle connections end with the gateway, so a service closing after it
    // (npm start closes the gateway first) does not wait out its idle bound for them.
    destroyAgent: true,
    disableRequestLogging: true,
    // Our parser below streams the body and enforces MAX_BODY_BYTES.
    proxyPayloads: false,
    replyOptions: {
      rewriteRequestHeaders: onRequestHeaders(rewrite),
      rewriteHeaders: dropHopByHop,
      onError: onUpstreamError(onError),
    },
  });
  const streamed = streamedBody(config.MAX_BODY_BYTES);

  // /notify/* → the notification service, prefix stripped, checked at the edge (spec 3; decisions E3–E5).
  await app.register(async (notify) => {
    notify.removeAllContentTypeParsers();
    notify.addContentTypeParser('*', streamed);
    notify.addHook('onRequest', notifyEdgeCheck(config));
    await notify.register(proxy, {
      ...proxyOptions(
        config.NOTIFICATION_URL,
        (reply, { error }) => {
          if (tooLarge(error)) return notifyError(reply, 413, 'payload_too_large');
          const failure = upstreamFailure(error);
          logFailure(reply, 'notification', error, failure);
          upstreamFailures.inc({ upstream: 'notification', reason: failure.reason });
          return notifyError(reply, failure.status, 'service_unavailable');
        },
        // Services need no cookies; the session cookie was already refused.
        (request, headers) => {
          const { cookie: _cookie, ...rest } = headers;
          return forwardHeaders(request, rest);
        },
      ),
      prefix: '/notify',
      rewritePrefix: '',
    });
  });

  await app.register(async (bridge) => {
    bridge.removeAllContentTypeParsers();
    bridge.addContentTypeParser('*', streamed);
    // A declared body over the limit is answered before it is read, as on /notify (decisions D8, E5).
    bridge.addHook('onRequest', (request, reply, done) => {
      if (declaredTooLarge(request, config.MAX_BODY_BYTES)) return void bridgeTooLarge(reply);
      done();
    });
    // POST /register: the identity service's public endpoint, the bridge's registration (decision E9).
    await bridge.register(proxy, {
      ...proxyOptions(config.BRIDGE_URL, bridgeError),
      prefix: '/register',
      rewritePrefix: '/api/auth/register',
      routes: ['/'],
      httpMethods: ['POST', 'OPTIONS'],
    });
    // Everything else, the web app at `/` included, is the bridge's (its own 404 answers unknown paths).
    await bridge.register(proxy, proxyOptions(config.BRIDGE_URL, bridgeError));
  });
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The service's metrics (decision B69): scraped on the metrics listener, never on this origin. */
    metrics: Metrics;
  }
}
