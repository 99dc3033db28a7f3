// The bridge's background work, wired by buildApp (decisions O1–O23, V1–V4, V16–V21, N22, B22): the
// price oracle and its routes, the governance and funds followers, the scheduled jobs and their routes,
// the price-proposal job, and when each starts and stops.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { BridgeParts } from './parts.ts';
import type { Guards } from '../core/auth/guards.ts';
import type { BridgeContext } from '../core/context.ts';
import type { EventLog } from '../core/events/bus.ts';
import { FundsFollower } from '../core/events/funds-follower.ts';
import { GovernanceFollower } from '../core/events/governance-follower.ts';
import { JobRunner } from '../core/jobs/runner.ts';
import jobRoutes from '../core/jobs/routes.ts';
import type { Outbox } from '../core/outbox/queue.ts';
import type { BridgeMetrics } from '../core/metrics/meters.ts';
import { expireUnverifiedRegistrations } from '../core/outbox/user-operations.ts';
import priceOracleRoutes from '../features/oracle/routes.ts';
import { createPriceOracle } from '../features/oracle/oracle.ts';
import { parsePriceSources } from '../core/price-sources.ts';
import priceJob from '../features/price-job/routes.ts';

/** How often each bridge instance reads the governance admin event log (decision V3). */
const GOVERNANCE_FOLLOW_MS = 1_000;
/** The campaign and treasury canisters are compared with what was published (decision N22): less often. */
const FUNDS_FOLLOW_MS = 5_000;

export interface BackgroundParts {
  parts: BridgeParts;
  ctx: BridgeContext;
  guards: Guards;
  outbox: Outbox;
  events: EventLog;
  metrics: BridgeMetrics;
}

/** Registers the background work; returns the job runner the member features define their jobs on. */
export async function registerBackground(
  app: FastifyInstance,
  { parts, ctx, guards, outbox, events, metrics }: BackgroundParts,
): Promise<JobRunner> {
  const { config } = parts;
  const now = ctx.now;
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
    onObservations: (observations) => metrics.priceObserved(observations),
  });
  app.decorate('priceOracle', priceOracle);
  await app.register(priceOracleRoutes, { oracle: priceOracle, retryAfterSeconds: config.PRICE_POLL_SECONDS, now });
  const governanceFollower = new GovernanceFollower({
    db: parts.db,
    events,
    governance: ctx.canisters.governance,
    pollMs: GOVERNANCE_FOLLOW_MS,
    log: app.log,
    onPass: () => metrics.followerPassed('governance', Date.now()),
  });
  const fundsFollower = new FundsFollower({
    db: parts.db,
    events,
    campaign: ctx.canisters.campaign,
    treasury: ctx.canisters.treasury,
    pollMs: FUNDS_FOLLOW_MS,
    log: app.log,
    onPass: () => metrics.followerPassed('funds', Date.now()),
  });
  app.decorate('events', events);
  app.decorate('fundsFollower', fundsFollower);
  // Scheduled jobs (decisions V16–V21): features define theirs while the app is built; the runner
  // looks for due slots once the app is ready and stops (finishing runs in flight) on close.
  const jobs = new JobRunner({
    db: parts.db,
    now,
    instanceId: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    log: app.log,
    onRunFinished: (job, status, seconds) => metrics.jobFinished(job, status, seconds),
  });
  app.decorate('jobs', jobs);
  // Decision B26: expired unverified registrations leave the database and (through the outbox) the canister.
  jobs.define({
    name: 'accounts:expire-unverified',
    everyMs: 3_600_000,
    run: async () => ({ detail: { removed: await expireUnverifiedRegistrations(parts.db, outbox, now()) } }),
  });
  if (parts.jobTimer !== false) app.addHook('onReady', async () => jobs.start());
  await app.register(jobRoutes, { jobs, admin: guards.admin });
  await app.register(priceJob, {
    jobs,
    oracle: priceOracle,
    governance: ctx.canisters.governance,
    settings: {
      intervalMs: config.PRICE_PROPOSAL_INTERVAL_SECONDS * 1000,
      minChangePct: config.PRICE_PROPOSAL_MIN_CHANGE_PCT,
      heartbeatMs: config.PRICE_PROPOSAL_HEARTBEAT_HOURS * 3_600_000,
      tickLifetimeMs: config.PRICE_TICK_LIFETIME_HOURS * 3_600_000,
    },
    apiToken: config.API_TOKEN,
    audit: ctx.audit,
    requireAdmin: guards.requireAdmin,
    log: app.log,
  });
  app.addHook('onReady', async () => governanceFollower.start());
  app.addHook('onReady', async () => fundsFollower.start());
  // Features register their operations while the app is built; what a crash left is reconciled once
  // the app is ready, then every OUTBOX_RECONCILE_SECONDS (decision B22).
  app.decorate('outbox', outbox);
  app.addHook('onReady', async () => outbox.start());
  app.addHook('onClose', async () => {
    await outbox.close();
    await jobs.close();
    await governanceFollower.close();
    await fundsFollower.close();
    await events.close();
  });
  return jobs;
}
