// The bridge's database from configuration: PostgreSQL (DATABASE_URL, migrated as DATABASE_MIGRATION_URL's
// role when set, decision B97) or the embedded PGlite under DATA_DIR; the audit retention floor recorded
// as the owner (decision B98); a serving role that could remove audit rows refused in production (B99).
import { ConfigError } from '@domdao/config';
import type { ServiceLogger } from '@domdao/service-kit';
import type { BridgeConfig } from '../config.ts';
import { recordRetentionFloor } from '../core/audit/retention.ts';
import { databaseProgressLine, type DatabaseProgress } from '../core/db/migrate.ts';
import {
  MigrationPrivilegeError,
  openDatabase,
  type OpenDatabaseOptions,
  type OpenedDatabase,
} from '../core/db/connect.ts';
import type { BridgeMetrics } from '../core/metrics/meters.ts';

/** `lent` and `embeddedInitdb`: tests only, for the embedded database (decisions R24, R25). */
/** `onProgress`: what a long database open is doing (decision R32), beside the log's lines. */
export interface DatabaseOpenOptions extends Pick<OpenDatabaseOptions, 'lent' | 'embeddedInitdb' | 'onProgress'> {
  /** Tests only: told of each sync of the embedded database's files; a throw stands for a failed sync (decision P16). */
  embeddedSyncFault?: (fd: number) => void;
}

const ROLES_DOC = 'docs/operations/postgres.md "Database roles"';

export async function openBridgeDatabase(
  config: BridgeConfig,
  options: DatabaseOpenOptions,
  log: ServiceLogger,
  metrics: BridgeMetrics,
  onFailed: (err: Error) => void,
): Promise<OpenedDatabase> {
  const ownerStep = (owner: Parameters<typeof recordRetentionFloor>[0]) =>
    recordRetentionFloor(owner, config.AUDIT_RETENTION_DAYS);
  // Decision R32: a first start creates the database and runs every migration, which takes a while.
  const onProgress = (p: DatabaseProgress) => {
    log.logger.info({ event: `database.${p.step}`, ...p }, databaseProgressLine(p));
    options.onProgress?.(p);
  };
  let database: OpenedDatabase;
  try {
    database = await openDatabase(
      config.DATABASE_URL
        ? {
            url: config.DATABASE_URL,
            ...(config.DATABASE_MIGRATION_URL && { migrationUrl: config.DATABASE_MIGRATION_URL }),
            ownerStep,
            onProgress,
            onPoolError: (err) =>
              log.logger.warn(
                { event: 'database.connection_lost', err: err.message },
                'an idle database connection was closed; it will be reopened on demand',
              ),
          }
        : {
            ...(options.lent && { lent: options.lent }),
            ...(options.embeddedInitdb && { embeddedInitdb: options.embeddedInitdb }),
            dir: `${config.DATA_DIR}/pglite`,
            ownerStep,
            onProgress,
            embeddedFsync: config.EMBEDDED_DATABASE_FSYNC,
            ...(options.embeddedSyncFault && { onEmbeddedSync: options.embeddedSyncFault }),
            onEmbeddedSyncFailed: (err) => {
              onFailed(err);
              metrics.embeddedSyncFailed();
              log.logger.fatal(
                { event: 'database.sync_failed', err: err.message },
                'the embedded database could not sync its files: it refuses every statement (nothing unsynced was acknowledged); restart the bridge, which recovers it from its log, once the disk is sound',
              );
            },
            onEmbeddedUpgrade: (u) =>
              log.logger.warn(
                { event: 'database.upgraded', from: 17, to: 18, tables: u.tables, rows: u.rows, backup: u.backup },
                'the embedded database was carried over from PostgreSQL 17; the old directory is kept as the backup named here',
              ),
          },
    );
  } catch (e) {
    if (!(e instanceof MigrationPrivilegeError)) throw e;
    throw new ConfigError([
      config.DATABASE_MIGRATION_URL
        ? `DATABASE_MIGRATION_URL: the migration step failed as ${e.role}: ${e.detail}; it must be the role that owns the bridge's tables (${ROLES_DOC}, decision B97)`
        : `DATABASE_URL: the migration step failed as ${e.role}: ${e.detail}; when that role does not own the bridge's tables, set DATABASE_MIGRATION_URL to the URL of the one that does (${ROLES_DOC}, decision B97)`,
    ]);
  }
  const right = database.removalRight;
  if (right) {
    const what = {
      owner: 'owns audit_log',
      superuser: 'is a superuser',
      createrole: 'has CREATEROLE (it can make itself the owner)',
    }[right.reason];
    if (config.NODE_ENV === 'production') {
      await database.close();
      throw new ConfigError([
        `DATABASE_URL: connects as ${right.role}, which ${what} and so could remove audit rows; in production the bridge serves as a role that owns none of its tables, with DATABASE_MIGRATION_URL set to the owner's URL (${ROLES_DOC}, decision B99)`,
      ]);
    }
    log.logger.warn(
      { event: 'database.role_can_remove_audit', role: right.role, reason: right.reason },
      `the bridge serves as ${right.role}, which ${what} and so could remove audit rows: production refuses this (${ROLES_DOC})`,
    );
  }
  return database;
}
