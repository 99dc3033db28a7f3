// Opens every dependency of the bridge from configuration (database, canister set, session store,
// canisters, notification client, keys) and builds the app on them (decision S23).
import type { Kysely } from 'kysely';
import type { DestinationStream } from 'pino';
import { notificationClientFromEnv, type NotificationClient } from '@domdao/notification-client';
import { createLogger, Metrics, type ServiceLogger } from '@domdao/service-kit';
import { lockDirectory } from '@domdao/canisters/embedded';
import type { BridgeConfig } from '../config.ts';
import type { Argon2Cost } from '../core/auth/passwords.ts';
import { keyFingerprints, loadKeys } from '../core/keys.ts';
import { bridgeMetrics } from '../core/metrics/meters.ts';
import type { FaultHook } from '../core/outbox/types.ts';
import { buildApp } from './app.ts';
import { bindBridgeCanisterSet } from './canister-set.ts';
import { openCanisters, refuseDevOptionsOnIc } from './canisters.ts';
import { openBridgeDatabase, type DatabaseOpenOptions } from './database.ts';
import { serveBackups } from './backup.ts';
import { timedCanisters } from './observability.ts';
import { BRIDGE_VERSION, type AiTestOptions } from './parts.ts';
import { openSessionStore } from './session-store.ts';

export interface OpenBridgeOptions extends DatabaseOpenOptions {
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
  /** The metrics registry (decision B69); `npm start` passes the one the three services share. */
  metrics?: Metrics;
  /** Tests only: see BridgeParts.passwordCost. */
  passwordCost?: Argon2Cost;
  /** Tests only: see BridgeParts.closeIdleMs. */
  closeIdleMs?: number;
  /** Tests only: awaited at each step of a live backup (LiveSources.pause). */
  backupPause?: (step: 'after-database' | 'before-manifest') => Promise<void>;
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

async function openBridgeLocked(
  config: BridgeConfig,
  env: NodeJS.ProcessEnv,
  options: OpenBridgeOptions,
  log: ServiceLogger,
  releaseLock: () => void,
) {
  const keys = await loadKeys(config);
  const metrics = bridgeMetrics(options.metrics ?? new Metrics(), options.now);
  let databaseFailure: Error | undefined;
  const database = await openBridgeDatabase(config, options, log, metrics, (err) => (databaseFailure = err));
  const bound = await bindBridgeCanisterSet(
    config,
    env,
    database,
    log,
    options.now ?? Date.now,
    (e) => (databaseFailure = e),
    keyFingerprints(keys),
  );
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
  // Decision B121: on unless BACKUP_SOCKET=false.
  const backups = config.BACKUP_SOCKET
    ? await serveBackups(
        config.DATA_DIR,
        database.kind === 'pglite' ? (database.db as Kysely<unknown>) : undefined,
        canisters.platform?.host,
        log,
        options.backupPause,
      )
    : undefined;
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
