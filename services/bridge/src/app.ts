// The bridge service (spec 2 part 1): health, single sign-on sessions, roles, registration, the
// upgrade to Active membership, and the test email. buildApp wires what openBridge opened.
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { CanisterClients } from '@domdao/canisters';
import fastifyCookie from '@fastify/cookie';
import fastifyCors from '@fastify/cors';
import { Redis } from 'ioredis';
import type { DestinationStream } from 'pino';
import { notificationClientFromEnv, type NotificationClient } from '@domdao/notification-client';
import { createLogger, parseTrustProxy, type ServiceLogger } from '@domdao/service-kit';
import { lockDirectory } from '@domdao/canister-kit/embedded';
import { databaseThrottle, redisThrottle } from './auth/brute-force.ts';
import { loginPageRoutes } from './auth/login-page.ts';
import { authRoutes, currentSession } from './auth/routes.ts';
import { corsOptions } from './auth/cors.ts';
import { sealer } from './auth/seal.ts';
import { databaseSessionStore, redisSessionStore, SessionStoreUnavailable, type SessionStore } from './auth/session-store.ts';
import { sessionManager } from './auth/sessions.ts';
import { openCanisters, type OpenedCanisters } from './canisters.ts';
import { origins, type BridgeConfig } from './config.ts';
import { COOKIE } from './context.ts';
import type { BridgeContext } from './context.ts';
import { isDatabaseUnavailable } from './db/errors.ts';
import { openDatabase, type Db } from './db/index.ts';
import { HttpError, sendError } from './http/errors.ts';
import { testEmailRoutes } from './http/test-email.ts';
import homePage from './home/index.ts';
import { openApiRoute, registerOpenApi } from './http/openapi.ts';
import { loadKeys, type BridgeKeys } from './keys.ts';
import { membershipRoutes } from './membership/routes.ts';
import { createOpener } from './registration/hpke.ts';
import { registrationRoutes, sendVerification } from './registration/routes.ts';
import { requireAdmin, rolesRoutes } from './roles/routes.ts';
import adminSessions from './admin-sessions/index.ts';
import adminUsers from './admin-users/index.ts';
import accountRecovery from './account-recovery/index.ts';
import { emailBlindIndex } from './registration/blind-index.ts';
import { passwordProblem } from './registration/rules.ts';
import priceOracleRoutes, { createPriceOracle, parsePriceSources, type PriceOracle } from './oracle/index.ts';
import { EventLog } from './events/index.ts';
import { GovernanceFollower } from './events/governance-follower.ts';
import governanceGateway from './governance/index.ts';
import { memberIdentity } from './identity/member-identity.ts';
import { csrfGuard } from './auth/csrf.ts';
import type { Session } from './auth/sessions.ts';

/** How often each bridge instance reads the governance admin event log (decision V3). */
const GOVERNANCE_FOLLOW_MS = 1_000;

declare module 'fastify' {
  interface FastifyInstance {
    /** The price oracle (issue 10): `latest()` for other modules such as the price-proposal job. */
    priceOracle: PriceOracle;
    /** The in-bridge event log (decisions V1–V4): `events.subscribe(name, types, handler)`. */
    events: EventLog;
  }
}

export interface BridgeParts {
  config: BridgeConfig;
  db: Db;
  sessionStore: SessionStore;
  canisters: OpenedCanisters;
  notifier: NotificationClient;
  keys: BridgeKeys;
  /** With SESSION_STORE=redis, the attempt counters live there too (decision B30). */
  redis?: Redis;
  now?: () => number;
  log: ServiceLogger;
}

export const BRIDGE_VERSION = '0.1.0';

export async function buildApp(parts: BridgeParts): Promise<FastifyInstance> {
  const { config } = parts;
  const app: FastifyInstance = Fastify({
    loggerInstance: parts.log.logger as FastifyBaseLogger,
    genReqId: () => randomUUID(),
    trustProxy: parseTrustProxy(config.TRUST_PROXY),
    bodyLimit: 128 * 1024,
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
  });
  await app.register(fastifyCookie);
  const now = parts.now ?? Date.now;
  const ctx: BridgeContext = {
    config,
    db: parts.db,
    keys: parts.keys,
    sessions: sessionManager({ store: parts.sessionStore, sealer: sealer(parts.keys.sessionDataKey), idleMs: config.SESSION_IDLE_MINUTES * 60_000, absoluteMs: config.SESSION_ABSOLUTE_HOURS * 3_600_000, now }),
    throttle: config.SESSION_STORE === 'redis' && parts.redis ? redisThrottle(parts.redis, config.SESSION_KEY_PREFIX, now) : databaseThrottle(parts.db, now),
    canisters: parts.canisters.clients,
    notifier: parts.notifier,
    opener: await createOpener(parts.keys.hpkePrivateKey),
    // The bridge's own pages (login, home) post to it from its own origin: trusted like a front end,
    // after the configured ones (the first front end stays the default target; decision B48).
    frontendOrigins: new Set([...origins(config.FRONTEND_ORIGINS), new URL(config.PUBLIC_URL).origin]),
    now,
  };

  await registerOpenApi(app, BRIDGE_VERSION);
  await app.register(fastifyCors, corsOptions(ctx.frontendOrigins));

  app.setErrorHandler((err: FastifyError | Error, req, reply) => {
    if (err instanceof HttpError) return sendError(req, reply, err);
    if (err instanceof SessionStoreUnavailable) {
      req.log.error({ event: 'session_store.unavailable', err: err.message }, 'session store unavailable');
      return sendError(req, reply, new HttpError(503, 'SESSION_STORE_UNAVAILABLE', 'sessions are temporarily unavailable; try again'));
    }
    if (isDatabaseUnavailable(err)) {
      req.log.error({ event: 'database.unavailable', err: err.message }, 'database unavailable');
      return sendError(req, reply, new HttpError(503, 'DATABASE_UNAVAILABLE', 'the service is temporarily unavailable; try again', { 'retry-after': '5' }));
    }
    const fe = err as FastifyError;
    if (fe.validation) return sendError(req, reply, new HttpError(400, 'VALIDATION_ERROR', `${fe.validationContext ?? 'request'}${fe.message.replace(/^(body|params|querystring)/, '')}`));
    if (fe.statusCode === 413) return sendError(req, reply, new HttpError(413, 'PAYLOAD_TOO_LARGE', 'the request body is too large'));
    if (fe.statusCode !== undefined && fe.statusCode >= 400 && fe.statusCode < 500) return sendError(req, reply, new HttpError(fe.statusCode, fe.code ?? 'BAD_REQUEST', fe.message));
    req.log.error({ event: 'request.failed', err: err.message, stack: err.stack }, 'unhandled error');
    return sendError(req, reply, new HttpError(500, 'INTERNAL', 'internal error'));
  });
  app.setNotFoundHandler((req, reply) => sendError(req, reply, new HttpError(404, 'NOT_FOUND', `no route ${req.method} ${req.url.split('?')[0]}`)));

  app.get('/health', async () => ({ status: 'ok' }));
  openApiRoute(app);
  authRoutes(app, ctx);
  loginPageRoutes(app, ctx);
  registrationRoutes(app, ctx);
  rolesRoutes(app, ctx);
  await app.register(accountRecovery, {
    ctx,
    blindIndex: (email) => emailBlindIndex(ctx.keys.blindIndexKey, email),
    sendVerification: (email, name, token, expiresAt, requestId) => sendVerification(ctx, email, name, token, expiresAt, requestId),
    passwordProblem,
  });
  await app.register(adminUsers, { db: ctx.db, membership: ctx.canisters.membership, blindIndex: (email) => emailBlindIndex(ctx.keys.blindIndexKey, email), requireAdmin: (req) => requireAdmin(ctx, req) });
  await app.register(adminSessions, { db: ctx.db, sessions: ctx.sessions, requireAdmin: (req) => requireAdmin(ctx, req) });
  membershipRoutes(app, ctx);
  testEmailRoutes(app, ctx);
  const priceOracle = createPriceOracle({
    db: parts.db as never,
    sources: parsePriceSources(config).sources,
    pollMs: config.PRICE_POLL_SECONDS * 1000,
    outlierPct: config.PRICE_OUTLIER_PCT,
    minSources: config.PRICE_MIN_SOURCES,
    stalenessMs: config.PRICE_STALENESS_SECONDS * 1000,
    now,
    publicUrl: config.PUBLIC_URL,
    log: app.log,
  });
  app.decorate('priceOracle', priceOracle);
  await app.register(priceOracleRoutes, { oracle: priceOracle, retryAfterSeconds: config.PRICE_POLL_SECONDS, now });
  const events = new EventLog({ db: parts.db, log: app.log });
  const governanceFollower = new GovernanceFollower({ db: parts.db, events, governance: ctx.canisters.governance, pollMs: GOVERNANCE_FOLLOW_MS, log: app.log });
  app.decorate('events', events);
  app.addHook('onReady', async () => governanceFollower.start());
  app.addHook('onClose', async () => {
    await governanceFollower.close();
    await events.close();
  });
  // Spec 1 Authentication rule 6 (decision V10): a bearer token without the session cookie is the
  // known front-end defect; answer 401 telling the client to sign in again, never a half-session.
  const requireMember = async (req: FastifyRequest): Promise<Session> => {
    if (/^bearer\s/i.test(String(req.headers.authorization ?? '')) && typeof req.cookies?.[COOKIE] !== 'string') {
      const origin = typeof req.headers.origin === 'string' && ctx.frontendOrigins.has(req.headers.origin) ? req.headers.origin : config.PUBLIC_URL;
      const login = `${config.PUBLIC_URL.replace(/\/+$/, '')}/login?returnUrl=${encodeURIComponent(origin)}`;
      throw new HttpError(401, 'SESSION_REQUIRED', `this endpoint uses the session cookie, not a bearer token: sign in again at ${login}`, { 'x-login-url': login });
    }
    csrfGuard(ctx.frontendOrigins, COOKIE)(req);
    const s = await currentSession(ctx, req);
    if (!s) throw new HttpError(401, 'UNAUTHORIZED', 'sign in first');
    return s;
  };
  const memberGovernance = new Map<string, Promise<CanisterClients>>();
  await app.register(governanceGateway, {
    requireSession: requireMember,
    requireAdmin: (req) => requireAdmin(ctx, req),
    db: ctx.db,
    governance: ctx.canisters.governance,
    governanceAs: async (s) => {
      if (parts.canisters.platform) return parts.canisters.platform.as(s.principal).governance;
      let c = memberGovernance.get(s.user_id);
      if (!c) {
        if (memberGovernance.size >= 10_000) memberGovernance.delete(memberGovernance.keys().next().value!);
        c = parts.canisters.forIdentity!(memberIdentity(ctx.keys.memberIdentitySecret, s.user_id));
        memberGovernance.set(s.user_id, c);
      }
      return (await c).governance;
    },
  });
  await app.register(homePage, { readSession: (req) => currentSession(ctx, req) });
  return app;
}

export interface OpenBridgeOptions {
  now?: () => number;
  logStream?: DestinationStream;
  notifier?: NotificationClient;
  canisterClock?: () => bigint;
  scheduler?: boolean;
  interceptCall?: (from: string, to: string, method: string) => void;
}

/** Opens every dependency from configuration: database, session store, canisters, notification client, keys. */
export async function openBridge(config: BridgeConfig, env: NodeJS.ProcessEnv, options: OpenBridgeOptions = {}) {
  const log = createLogger(config.LOG_LEVEL, 'bridge', BRIDGE_VERSION, options.logStream);
  // The embedded canisters and PGlite are single-process: one bridge per DATA_DIR (decision B18).
  const embedded = !config.DATABASE_URL || !env.IC_GOVERNANCE_CANISTER_ID;
  const lock = embedded ? lockDirectory(config.DATA_DIR) : undefined;
  try {
    return await openBridgeLocked(config, env, options, log, () => lock?.release());
  } catch (e) {
    lock?.release();
    throw e;
  }
}

async function openBridgeLocked(config: BridgeConfig, env: NodeJS.ProcessEnv, options: OpenBridgeOptions, log: ServiceLogger, releaseLock: () => void) {
  const keys = await loadKeys(config);
  const database = await openDatabase(
    config.DATABASE_URL
      ? { url: config.DATABASE_URL, onPoolError: (err) => log.logger.warn({ event: 'database.connection_lost', err: err.message }, 'an idle database connection was closed; it will be reopened on demand') }
      : { dir: `${config.DATA_DIR}/pglite` },
  );
  let redis: Redis | undefined;
  let sessionStore: SessionStore;
  if (config.SESSION_STORE === 'redis') {
    // Fail fast while Redis is down (503), instead of queueing requests behind a reconnect.
    redis = new Redis(config.SESSION_REDIS_URL!, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000, lazyConnect: true });
    redis.on('error', () => undefined);
    await redis.connect().catch(() => undefined);
    sessionStore = redisSessionStore(redis, config.SESSION_KEY_PREFIX);
  } else sessionStore = databaseSessionStore(database.db, database.pool);
  const canisters = await openCanisters(env, config.DATA_DIR, {
    ...(options.canisterClock && { clock: options.canisterClock }),
    ...(options.scheduler !== undefined && { scheduler: options.scheduler }),
    ...(options.interceptCall && { interceptCall: options.interceptCall }),
  });
  const notifier = options.notifier ?? notificationClientFromEnv(log.logger, env);
  const app = await buildApp({ config, db: database.db, sessionStore, canisters, notifier, keys, log, ...(redis && { redis }), ...(options.now && { now: options.now }) });
  app.addHook('onClose', async () => {
    log.flush();
    canisters.close();
    redis?.disconnect();
    await database.close();
    releaseLock();
  });
  return { app, canisters, db: database.db, dbKind: database.kind, redis };
}

