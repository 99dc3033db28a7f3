// The bridge service (spec 2 part 1): health, single sign-on sessions, roles, registration, the
// upgrade to Active membership, and the test email. buildApp wires what openBridge (open-bridge.ts)
// opened; the parts it takes are parts.ts, the later feature groups ai.ts, audit.ts, background.ts and
// members.ts (decision S23: none of them imports this file).
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifyCors from '@fastify/cors';
import { drainOnClose, lingerAfterEarlyAnswers, Metrics, parseTrustProxy, requestIdFor } from '@domdao/service-kit';
import { passwordProblem } from '@domdao/registration/password-policy';
import { frontendOrigins } from '../config.ts';
import { AuditLog, SYSTEM } from '../core/audit/log.ts';
import { databaseThrottle } from '../core/auth/brute-force.ts';
import { corsOptions } from '../core/auth/cors.ts';
import { createGuards } from '../core/auth/guards.ts';
import { memberLimiter } from '../core/auth/member-limits.ts';
import { passwordHasher } from '../core/auth/passwords.ts';
import { sealer } from '../core/auth/seal.ts';
import { sessionManager } from '../core/auth/sessions.ts';
import type { BridgeContext } from '../core/context.ts';
import { withDevOutbox } from '../core/email/dev-outbox.ts';
import { EventLog } from '../core/events/bus.ts';
import { compiledSchemas } from '../core/http/compiled-schemas.ts';
import { bridgeErrorHandler, livenessRoute, unreadableUrl } from '../core/http/error-handler.ts';
import { HttpError, sendError } from '../core/http/errors.ts';
import { refuseNonFiniteNumbers } from '../core/http/finite-numbers.ts';
import { openApiRoute, registerOpenApi } from '../core/http/openapi.ts';
import { pageAssets } from '../core/http/page-assets.ts';
import { emailBlindIndex } from '../core/identity/email.ts';
import { nameIndex } from '../core/identity/registration-name-index.ts';
import { createOpener } from '../core/identity/sealed-fields.ts';
import { bridgeMetrics } from '../core/metrics/meters.ts';
import { Outbox } from '../core/outbox/queue.ts';
import { registerUserOperations } from '../core/outbox/user-operations.ts';
import accountRecovery from '../features/account-recovery/routes.ts';
import adminNotifications from '../features/admin-notifications/routes.ts';
import adminOutbox from '../features/admin-outbox/routes.ts';
import adminSessions from '../features/admin-sessions/routes.ts';
import adminUsers from '../features/admin-users/routes.ts';
import members from '../features/members/routes.ts';
import payments from '../features/payments/routes.ts';
import portal, { DEFAULT_PORTAL_DIR } from '../features/portal/routes.ts';
import apiDocs from '../features/api-docs/routes.ts';
import registration from '../features/registration/routes.ts';
import roles from '../features/roles/routes.ts';
import loginPage from '../features/sign-in/login-page.ts';
import authRoutes from '../features/sign-in/routes.ts';
import testEmail from '../features/test-email/routes.ts';
import verification from '../features/verification/routes.ts';
import { sendVerification, verificationSender } from '../features/verification/send.ts';
import { verificationRoles } from '../features/verification/roles.ts';
import { registerAi } from './ai.ts';
import { auditRefusals, registerAudit } from './audit.ts';
import { registerBackground } from './background.ts';
import { registerMemberFeatures } from './members.ts';
import { observeBridgeRequests, registerObservability } from './observability.ts';
import { BRIDGE_VERSION, START_STEP_TIMEOUT_MS, type BridgeParts } from './parts.ts';

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
    // Decision B52: the attempt counters live in the database whatever holds the sessions, so a lockout outlives a
    // Redis restart.
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
    sendVerification: verificationSender(ctx),
    rolesOnVerification: verificationRoles(ctx),
    announceVerified: async (trx, userId, o) => {
      await ctx.events.publish('MemberVerified', { user_id: userId }, { trx, sourceId: `verified:${userId}` });
      const entry = { actor: SYSTEM, subject: userId, outcome: 'success', requestId: o.requestId } as const;
      if (o.bootstrapAdmin)
        await audit.record(
          undefined,
          { ...entry, event: 'roles.bootstrap_admin_granted', detail: { role: 'admin' } },
          trx,
        );
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
    if (
      appNotFound &&
      req.method === 'GET' &&
      /\btext\/html\b/.test(req.headers.accept ?? '') &&
      !path.startsWith('/api/')
    )
      return appNotFound(reply);
    return sendError(req, reply, new HttpError(404, 'NOT_FOUND', `no route ${req.method} ${path}`));
  });
  // Decision B55: what Ajv lets through as a number must still be one (Infinity, 1e400).
  app.addHook('preHandler', refuseNonFiniteNumbers);

  // Decision S2: the session and role checks every feature uses; `req.session` is what a guard accepted.
  app.decorateRequest('session', null);
  const guards = createGuards({
    sessions: ctx.sessions,
    frontendOrigins: ctx.frontendOrigins,
    publicUrl: config.PUBLIC_URL,
  });
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
  await app.register(testEmail, {
    accessToken: config.ACCESS_TOKEN,
    brandDomain: config.EMAIL_BRAND_DOMAIN,
    notifier: ctx.notifier,
  });
  const jobs = await registerBackground(app, { parts, ctx, guards, outbox, events, metrics });
  await registerAudit(app, { parts, ctx, guards, jobs, audit });
  await registerMemberFeatures(app, { parts, ctx, guards, jobs, metrics, memberLimit });
  await registerAi(app, { parts, ctx, guards, jobs, metrics });
  registerObservability(
    app,
    metrics,
    { db: parts.db, redis: parts.redis, canisters: ctx.canisters, notifier: parts.notifier },
    now,
  );
  await app.register(apiDocs);
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
