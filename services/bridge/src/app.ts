// The bridge service (spec 2 part 1): health, single sign-on sessions, roles, registration, the
// upgrade to Active membership, and the test email. buildApp wires what openBridge opened.
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifyCors from '@fastify/cors';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { DestinationStream } from 'pino';
import { notificationClientFromEnv, type NotificationClient } from '@domdao/notification-client';
import { createLogger, drainOnClose, lingerAfterEarlyAnswers, Metrics, parseTrustProxy, requestIdFor, type ServiceLogger } from '@domdao/service-kit';
import { bridgeMetrics, type BridgeMetrics } from './core/metrics/index.ts';
import { observeBridgeRequests, registerObservability, timedCanisters } from './app-observability.ts';
import { lockDirectory } from '@domdao/canisters/embedded';
import { databaseThrottle } from './core/auth/brute-force.ts';
import { memberLimiter } from './core/auth/member-limits.ts';
import { corsOptions } from './core/auth/cors.ts';
import { createGuards } from './core/auth/guards.ts';
import { passwordHasher, type Argon2Cost } from './core/auth/passwords.ts';
import loginPage from './features/sign-in/login-page.ts';
import authRoutes from './features/sign-in/routes.ts';
import { sealer } from './core/auth/seal.ts';
import type { SessionStore } from './core/auth/session-store.ts';
import { openSessionStore } from './app-session-store.ts';
import { sessionManager } from './core/auth/sessions.ts';
import { openCanisters, refuseDevOptionsOnIc, type OpenedCanisters } from './canisters.ts';
import { bindBridgeCanisterSet } from './app-canister-set.ts';
import { frontendOrigins, type BridgeConfig } from './config.ts';
import type { BridgeContext } from './core/context.ts';
import type { Db, OpenDatabaseOptions } from './core/db/index.ts';
import { openBridgeDatabase } from './app-database.ts';
import { serveBackups } from './app-backup.ts';
import { compiledSchemas } from './core/http/compiled-schemas.ts';
import { bridgeErrorHandler, livenessRoute, unreadableUrl } from './core/http/error-handler.ts';
import { HttpError, sendError } from './core/http/errors.ts';
import { refuseNonFiniteNumbers } from './core/http/finite-numbers.ts';
import { openApiRoute, registerOpenApi } from './core/http/openapi.ts';
import { pageAssets } from './core/http/page-assets.ts';
import { emailBlindIndex } from './core/identity/email.ts';
import { passwordProblem } from './core/identity/password-policy.ts';
import { nameIndex } from './core/identity/registration-name-index.ts';
import { loadKeys, type BridgeKeys } from './core/keys.ts';
import { registerUserOperations } from './core/outbox/user-operations.ts';
import accountRecovery from './features/account-recovery/index.ts';
import adminNotifications from './features/admin-notifications/index.ts';
import adminOutbox from './features/admin-outbox/index.ts';
import adminSessions from './features/admin-sessions/index.ts';
import adminUsers from './features/admin-users/index.ts';
import members from './features/members/index.ts';
import { EventLog } from './core/events/index.ts';
import { Outbox, type FaultHook } from './core/outbox/index.ts';
import type { FundsFollower } from './core/events/funds-follower.ts';
import portal, { DEFAULT_PORTAL_DIR } from './features/portal/index.ts';
import type { JobRunner } from './core/jobs/index.ts';
import type { Alerts } from './features/ai/alerts.ts';
import type { Inference } from './features/ai/inference.ts';
import type { PriceOracle } from './features/oracle/index.ts';
import payments from './features/payments/index.ts';
import { createOpener } from './core/identity/sealed-fields.ts';
import registration from './features/registration/index.ts';
import roles from './features/roles/index.ts';
import testEmail from './features/test-email/index.ts';
import { withDevOutbox } from './core/email/dev-outbox.ts';
import verification, { sendVerification, verificationRoles } from './features/verification/index.ts';
import { registerAi } from './app-ai.ts';
import { registerBackground } from './app-background.ts';
import { registerMemberFeatures } from './app-members.ts';
import { auditRefusals, registerAudit } from './app-audit.ts';
import { AuditLog, SYSTEM } from './core/audit/index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The service's metrics (decision B69): scraped on the metrics listener, never on the public port. */
    metrics: Metrics;
    /** The price oracle (decision O15): `latest()` for other modules such as the price-proposal job. */
    priceOracle: PriceOracle;
    /** The in-bridge event log (decisions V1–V4): `events.subscribe(name, types, handler)`. */
    events: EventLog;
    /** Campaign and treasury state into the event log (decision N22): `follow()` runs one pass. */
    fundsFollower: FundsFollower;
    /** Cross-system operations (decisions B20–B23): `outbox.register`, `enqueue(trx, …)`, `run(opId)`. */
    outbox: Outbox;
    /** Durable scheduled jobs (decisions V16–V21): `jobs.define({ name, everyMs, run })`, `jobs.runNow(name)`. */
    jobs: JobRunner;
    /** The inference server behind its circuit breaker and per-model queue (decisions A5, A7). */
    inference: Inference;
    aiAlerts: Alerts;
  }
}

/** Test seams of the AI feature (decisions A5, A7): the breaker under NODE_ENV=test, the queue's tuning. */
export interface AiTestOptions {
  /** Force the circuit breaker on (it is off under NODE_ENV=test, spec 2). */
  circuit?: boolean;
  queue?: { concurrency?: number; quantumMs?: number; maxWaiting?: number };
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
  /** Tests only: fault injection at the outbox's step boundaries (no configuration reaches it). */
  outboxFaults?: FaultHook;
  ai?: AiTestOptions;
  /**
   * Tests only: false → scheduled jobs run only when `jobs.tick()` is called. A test that jumps a fake
   * clock by hours while an instance's own timer has a run in flight would expire that run's lease
   * (timed by the same clock) mid-run, a jump no real clock makes.
   */
  jobTimer?: boolean;
  /** The embedded database's failure (decision P16), or the embedded canisters lost to another bridge (decision B101): /health answers 503 from then on. */
  databaseFailure?: () => Error | undefined;
  /** The bridge's metrics (decision B69); made here when not given. */
  metrics?: BridgeMetrics;
  /** Tests only: argon2id's cost for new hashes (decision R23); otherwise decision B5's. */
  passwordCost?: Argon2Cost;
  /** Tests only: how long a connection must be quiet before the close ends it; otherwise IDLE_CLOSE_MS (decision R27). */
  closeIdleMs?: number;
}

export const BRIDGE_VERSION = '0.1.0';

/**
 * Decision R29: how long one plugin's registration, or one onReady hook, may take before the start
 * fails naming it (Fastify's `pluginTimeout`; its default, 10 s, failed a whole test file's start at a
 * load of 30 on the 2-CPU machine, where no step takes more than 30 ms unloaded). It catches a start
 * step that never ends; a slow machine is not one.
 */
export const START_STEP_TIMEOUT_MS = 120_000;

export async function buildApp(parts: BridgeParts): Promise<FastifyInstance> {
  const { config } = parts;
  const app: FastifyInstance = Fastify({
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- it sets Fastify's logger type parameter
    loggerInstance: parts.log.logger as FastifyBaseLogger,
    // A caller's (the gateway's) RFC 4122 X-Request-Id is kept, so one id names the request end to end (decision E7).
    genReqId: (req) => requestIdFor(req.headers['x-request-id']),
    trustProxy: parseTrustProxy(config.TRUST_PROXY),
    bodyLimit: 128 * 1024,
    pluginTimeout: START_STEP_TIMEOUT_MS,
    schemaController: { compilersFactory: compiledSchemas },
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    frameworkErrors: unreadableUrl,
    // Decision R27: a request on an open connection is served while the bridge closes (not Fastify's 503).
    return503OnClosing: false,
  });
  drainOnClose(app, parts.closeIdleMs === undefined ? {} : { idleMs: parts.closeIdleMs });
  lingerAfterEarlyAnswers(app); // Decision E17: a proxy still sending a body we refused reads the 413.
  const now = parts.now ?? Date.now;
  const metrics = parts.metrics ?? bridgeMetrics(new Metrics(), now);
  app.decorate('metrics', metrics.registry);
  observeBridgeRequests(app, config, metrics);
  await app.register(fastifyCookie);
  const outbox = new Outbox({
    db: parts.db,
    canisterSet: parts.canisters.set.id,
    now,
    log: app.log,
    reconcileMs: config.OUTBOX_RECONCILE_SECONDS * 1000,
    ...(parts.outboxFaults && { faults: parts.outboxFaults }),
  });
  // Before the features: flows publish what happened in their own transactions (an outbox).
  const events = new EventLog({ db: parts.db, canisterSet: parts.canisters.set.id, log: app.log });
  const audit = new AuditLog({ db: parts.db, log: app.log, now });
  const ctx: BridgeContext = {
    config,
    db: parts.db,
    keys: parts.keys,
    sessions: sessionManager({
      store: parts.sessionStore,
      sealer: sealer(parts.keys.sessionDataKey),
      idleMs: config.SESSION_IDLE_MINUTES * 60_000,
      absoluteMs: config.SESSION_ABSOLUTE_HOURS * 3_600_000,
      now,
      onCreated: metrics.sessionCreated,
    }),
    // Decision B52: the attempt counters live in the database whatever holds the sessions, so a lockout outlives a Redis restart.
    throttle: databaseThrottle(parts.db, now),
    canisters: parts.canisters.clients,
    notifier: withDevOutbox(parts.notifier, config.DEV_OUTBOX_FILE, now),
    opener: await createOpener(parts.keys.hpkePrivateKey),
    outbox,
    frontendOrigins: frontendOrigins(config),
    events,
    audit,
    passwords: passwordHasher(parts.passwordCost),
    now,
  };
  // The user canister's operations (decisions B24–B28), shared by registration, verification, recovery and expiry.
  registerUserOperations({
    outbox,
    user: ctx.canisters.user,
    sendVerification: async (enc, token, expiresAt) => {
      const email = (await ctx.opener.open('email', enc.email_encrypted)).trim();
      const name = await ctx.opener.open('name', enc.name_encrypted);
      return sendVerification(ctx, { userId: enc.user_id, email, name, token, expiresAt, requestId: randomUUID() });
    },
    rolesOnVerification: verificationRoles(ctx),
    announceVerified: async (trx, userId, o) => {
      await ctx.events.publish('MemberVerified', { user_id: userId }, { trx, sourceId: `verified:${userId}` });
      const entry = { actor: SYSTEM, subject: userId, outcome: 'success', requestId: o.requestId } as const;
      if (o.bootstrapAdmin) await audit.record(undefined, { ...entry, event: 'roles.bootstrap_admin_granted', detail: { role: 'admin' } }, trx);
    },
    // The welcome email follows MemberVerified: the verified page answers once it went out (5 s at most, decision N13).
    kickEvents: () => ctx.events.settle(),
    now,
  });

  await registerOpenApi(app, BRIDGE_VERSION);
  await app.register(fastifyCors, corsOptions(ctx.frontendOrigins));

  app.setErrorHandler(bridgeErrorHandler(() => parts.databaseFailure?.()));
  auditRefusals(app, audit);
  let appNotFound: ((reply: FastifyReply) => FastifyReply) | undefined;
  app.setNotFoundHandler((req, reply) => {
    // Decision F24: a person who followed a wrong link sees the app's page, an API client keeps JSON.
    const path = req.url.split('?')[0]!;
    if (appNotFound && req.method === 'GET' && /\btext\/html\b/.test(req.headers.accept ?? '') && !path.startsWith('/api/')) return appNotFound(reply);
    return sendError(req, reply, new HttpError(404, 'NOT_FOUND', `no route ${req.method} ${path}`));
  });
  // Decision B55: what Ajv lets through as a number must still be one (Infinity, 1e400).
  app.addHook('preHandler', refuseNonFiniteNumbers);

  // Decision S2: the session and role checks every feature uses; `req.session` is what a guard accepted.
  app.decorateRequest('session', null);
  const guards = createGuards({ sessions: ctx.sessions, frontendOrigins: ctx.frontendOrigins, publicUrl: config.PUBLIC_URL });
  const blindIndex = (email: string) => emailBlindIndex(ctx.keys.blindIndexKey, email);
  const sendVerificationEmail = (m: Parameters<typeof sendVerification>[1]) => sendVerification(ctx, m);
  // Decisions B92, B93, V35, V36, B107: what one member can make the bridge do, per window.
  const memberLimit = memberLimiter({
    throttle: ctx.throttle,
    audit,
    limits: {
      proposals: config.PROPOSAL_LIMIT_PER_HOUR,
      delegation_changes: config.DELEGATION_CHANGE_LIMIT_PER_HOUR,
      member_searches: config.MEMBER_SEARCH_LIMIT_PER_MINUTE,
      faucet_grants: config.DEV_FAUCET_PER_DAY,
    },
    refused: metrics.memberLimited,
  });

  livenessRoute(app, () => parts.databaseFailure?.());
  openApiRoute(app);
  pageAssets(app);
  await app.register(authRoutes, {
    config,
    db: ctx.db,
    sessions: ctx.sessions,
    throttle: ctx.throttle,
    membership: ctx.canisters.membership,
    blindIndex,
    passwords: ctx.passwords,
    frontendOrigins: ctx.frontendOrigins,
    guards,
    audit,
    signIn: metrics.signIn,
  });
  await app.register(loginPage, { config, frontendOrigins: ctx.frontendOrigins });
  await app.register(registration, { ctx });
  await app.register(verification, { ctx });
  await app.register(roles, { db: ctx.db, sessions: ctx.sessions, guards, audit });
  await app.register(accountRecovery, { ctx, blindIndex, sendVerification: sendVerificationEmail, passwordProblem });
  await app.register(adminUsers, {
    db: ctx.db,
    membership: ctx.canisters.membership,
    blindIndex,
    guards,
    openEmail: (sealed) => ctx.opener.open('email', sealed),
    openName: (sealed) => ctx.opener.open('name', sealed),
    nameIndex: (name) => nameIndex(ctx.keys.blindIndexKey, name),
  });
  await app.register(adminSessions, { db: ctx.db, sessions: ctx.sessions, guards, audit });
  await app.register(members, { db: ctx.db, guards, audit, daoName: config.BRAND_DAO_NAME, limit: memberLimit });
  await app.register(payments, { ctx, guards });
  await app.register(adminNotifications, { db: ctx.db, user: ctx.canisters.user, guards });
  await app.register(adminOutbox, { outbox, guards });
  await app.register(testEmail, { accessToken: config.ACCESS_TOKEN, brandDomain: config.EMAIL_BRAND_DOMAIN, notifier: ctx.notifier });
  const jobs = await registerBackground(app, { parts, ctx, guards, outbox, events, metrics });
  await registerAudit(app, { parts, ctx, guards, jobs, audit });
  await registerMemberFeatures(app, { parts, ctx, guards, jobs, metrics, memberLimit });
  await registerAi(app, { parts, ctx, guards, jobs, metrics });
  registerObservability(app, metrics, { db: parts.db, redis: parts.redis, canisters: ctx.canisters, notifier: parts.notifier }, now);
  await app.register(portal, {
    dir: config.PORTAL_DIR ?? DEFAULT_PORTAL_DIR,
    exposeNotFound: (send) => (appNotFound = send),
    brand: {
      name: config.BRAND_DAO_NAME,
      primary_color: config.BRAND_DAO_PRIMARY_COLOR,
      background_color: config.BRAND_DAO_BACKGROUND_COLOR,
      logo_url: config.BRAND_DAO_LOGO_URL ?? null,
    },
  });
  return app;
}

/** `lent` and `embeddedInitdb`: tests only, for the embedded database (decisions R24, R25). */
/** `onProgress`: what a long database open is doing (decision R32), beside the log's lines. */
export interface OpenBridgeOptions extends Pick<OpenDatabaseOptions, 'lent' | 'embeddedInitdb' | 'onProgress'> {
  now?: () => number;
  logStream?: DestinationStream;
  notifier?: NotificationClient;
  canisterClock?: () => bigint;
  scheduler?: boolean;
  interceptCall?: (from: string, to: string, method: string) => void;
  /** Tests only: see BridgeParts.outboxFaults. */
  outboxFaults?: FaultHook;
  ai?: AiTestOptions;
  /** Tests only: see BridgeParts.jobTimer. */
  jobTimer?: boolean;
  /** Tests only: the embedded ledger in archive mode on first open (decision L43). */
  ledgerArchive?: { localBlocks: bigint };
  /** Tests only: told of each sync of the embedded database's files; a throw stands for a failed sync (decision P16). */
  embeddedSyncFault?: (fd: number) => void;
  /** The metrics registry (decision B69); `npm start` passes the one the three services share. */
  metrics?: Metrics;
  /** Tests only: see BridgeParts.passwordCost. */
  passwordCost?: Argon2Cost;
  /** Tests only: see BridgeParts.closeIdleMs. */
  closeIdleMs?: number;
}

/** Opens every dependency from configuration: database, session store, canisters, notification client, keys. */
export async function openBridge(config: BridgeConfig, env: NodeJS.ProcessEnv, options: OpenBridgeOptions = {}) {
  refuseDevOptionsOnIc(config, env);
  // Decision E16: lines written while a request or job run goes on carry its trace id, whichever logger wrote them.
  const log = createLogger(config.LOG_LEVEL, 'bridge', BRIDGE_VERSION, options.logStream, { traceFromContext: true });
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
  const metrics = bridgeMetrics(options.metrics ?? new Metrics(), options.now);
  let databaseFailure: Error | undefined;
  const database = await openBridgeDatabase(config, options, log, metrics, (err) => (databaseFailure = err));
  const bound = await bindBridgeCanisterSet(config, env, database, log, options.now ?? Date.now, (e) => (databaseFailure = e));
  const { sessionStore, redis } = await openSessionStore(config, database);
  const canisters = await bound.orRelease(
    openCanisters(env, config.DATA_DIR, bound.set, {
      fsync: config.CANISTERS_FSYNC,
      ...(options.canisterClock && { clock: options.canisterClock }),
      ...(options.scheduler !== undefined && { scheduler: options.scheduler }),
      ...(options.interceptCall && { interceptCall: options.interceptCall }),
      ...(options.ledgerArchive && { ledgerArchive: options.ledgerArchive }),
      treasuryDom: config.EMBEDDED_TREASURY_DOM,
      devVotingMinutes: config.DEV_VOTING_MINUTES,
    }),
  );
  bound.stopOnLoss(() => canisters.close());
  const notifier = options.notifier ?? notificationClientFromEnv(log.logger, env);
  const app = await bound.orRelease(
    buildApp({
      config,
      db: database.db,
      sessionStore,
      canisters: { ...canisters, clients: timedCanisters(canisters.clients, metrics) },
      notifier,
      keys,
      log,
      metrics,
      databaseFailure: () => databaseFailure,
      ...(redis && { redis }),
      ...(options.now && { now: options.now }),
      ...(options.outboxFaults && { outboxFaults: options.outboxFaults }),
      ...(options.ai && { ai: options.ai }),
      ...(options.jobTimer === false && { jobTimer: false }),
      ...(options.passwordCost && { passwordCost: options.passwordCost }),
      ...(options.closeIdleMs !== undefined && { closeIdleMs: options.closeIdleMs }),
    }),
  );
  // Decision B115: `npm run backup` asks this bridge for a consistent copy of DATA_DIR over a socket there.
  const backups = await serveBackups(config.DATA_DIR, database.kind === 'pglite' ? (database.db as Kysely<unknown>) : undefined, canisters.platform?.host, log);
  app.addHook('onClose', async () => {
    await backups?.close();
    log.flush();
    canisters.close();
    redis?.disconnect();
    await bound.binding.release();
    await database.close();
    releaseLock();
  });
  return { app, canisters, db: database.db, dbKind: database.kind, redis };
}
