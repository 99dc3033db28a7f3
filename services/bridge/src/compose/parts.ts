// What the composition root builds the bridge from (decision S23): the parts openBridge opens and
// buildApp wires, the version, and what the app carries for the features registered after it.
import type { Redis } from 'ioredis';
import type { NotificationClient } from '@domdao/notification-client';
import type { Metrics, ServiceLogger } from '@domdao/service-kit';
import type { BridgeConfig } from '../config.ts';
import type { Argon2Cost } from '../core/auth/passwords.ts';
import type { SessionStore } from '../core/auth/session-store.ts';
import type { Db } from '../core/db/schema.ts';
import type { EventLog } from '../core/events/bus.ts';
import type { FundsFollower } from '../core/events/funds-follower.ts';
import type { JobRunner } from '../core/jobs/runner.ts';
import type { BridgeKeys } from '../core/keys.ts';
import type { BridgeMetrics } from '../core/metrics/meters.ts';
import type { FaultHook } from '../core/outbox/types.ts';
import type { Outbox } from '../core/outbox/queue.ts';
import type { Alerts } from '../features/ai/alerts.ts';
import type { Inference } from '../features/ai/inference.ts';
import type { PriceOracle } from '../features/oracle/oracle.ts';
import type { OpenedCanisters } from './canisters.ts';

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
