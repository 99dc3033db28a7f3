// One schema and one migration set for PostgreSQL (DATABASE_URL) and PGlite (embedded default under
// the data directory), applied at start-up. Kysely builds the queries for both.
import { Kysely, Migrator, PostgresDialect, sql, type Migration } from 'kysely';
import pg from 'pg';
import * as initial from './migrations/001-initial.ts';
import * as outbox from './migrations/011-outbox.ts';
import * as registrationOutbox from './migrations/012-registration-outbox.ts';
import * as paymentIntentUnique from './migrations/010-payment-intent-unique.ts';
import * as priceOracle from './migrations/002-price-oracle.ts';
import * as passwordResets from './migrations/005-password-resets.ts';
import * as bridgeEvents from './migrations/020-bridge-events.ts';
import * as jobs from './migrations/021-jobs.ts';
import * as inbox from './migrations/040-inbox.ts';
import * as memberEmails from './migrations/041-member-emails.ts';
import * as ai from './migrations/050-ai.ts';
import * as audit from './migrations/060-audit.ts';
import * as displayNames from './migrations/061-display-names.ts';
import * as wallet from './migrations/062-wallet.ts';
import * as proposalEventsIndex from './migrations/064-proposal-events-index.ts';
import * as displayNameKeys from './migrations/065-display-name-keys.ts';
import * as auditRetention from './migrations/066-audit-retention.ts';
import * as registrationNameIndex from './migrations/067-registration-name-index.ts';
import * as delegateStatements from './migrations/068-delegate-statements.ts';
import * as canisterSet from './migrations/070-canister-set.ts';
import * as activityTimes from './migrations/071-activity-times.ts';
import * as keyFingerprints from './migrations/072-key-fingerprints.ts';
import * as activityCategoryLabels from './migrations/073-activity-category-labels.ts';
import { pgliteDialect, type Lite } from './pglite-dialect.ts';
import { auditRemovalRight, grantAppRole, type RemovalRight } from './roles.ts';
import type { Database } from './schema.ts';
import type { EmbeddedUpgrade } from './embedded.ts';

export type { Database } from './schema.ts';
export type Db = Kysely<Database>;

const MIGRATIONS: Record<string, Migration> = {
  '001-initial': initial,
  '002-price-oracle': priceOracle,
  '005-password-resets': passwordResets,
  '010-payment-intent-unique': paymentIntentUnique,
  '011-outbox': outbox,
  '012-registration-outbox': registrationOutbox,
  '020-bridge-events': bridgeEvents,
  '021-jobs': jobs,
  '040-inbox': inbox,
  '041-member-emails': memberEmails,
  '050-ai': ai,
  '060-audit': audit,
  '061-display-names': displayNames,
  '062-wallet': wallet,
  '064-proposal-events-index': proposalEventsIndex,
  '065-display-name-keys': displayNameKeys,
  '066-audit-retention': auditRetention,
  '067-registration-name-index': registrationNameIndex,
  '068-delegate-statements': delegateStatements,
  '070-canister-set': canisterSet,
  '071-activity-times': activityTimes,
  '072-key-fingerprints': keyFingerprints,
  '073-activity-category-labels': activityCategoryLabels,
};

/** The release's migrations by name: a database at this release's level has run exactly these (decision P22). */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS);

export interface OpenDatabaseOptions {
  /** postgres://… — PostgreSQL; otherwise PGlite. */
  url?: string;
  /**
   * PostgreSQL: the owner of the tables (decision B97). The migration step runs as it, on a connection
   * closed afterwards, and grants `url`'s role what the bridge needs; without it `url`'s role runs it.
   */
  migrationUrl?: string;
  /** Run as the owner after the migrations, at every open (the audit retention floor, decision B98). */
  ownerStep?: (owner: Kysely<unknown>) => Promise<void>;
  /** PGlite data directory; in memory when absent. */
  dir?: string;
  /**
   * PostgreSQL: told about an idle pooled connection that died (a server restart). Without a
   * listener the pool's `error` event would end the process (decision B17).
   */
  onPoolError?: (err: Error) => void;
  /** PGlite: told once an earlier release's PostgreSQL 17 directory has been carried over (decision P13). */
  onEmbeddedUpgrade?: (upgrade: EmbeddedUpgrade) => void;
  /** PGlite in a directory: every commit fsynced before its answer (default true, decision P16). */
  embeddedFsync?: boolean;
  /** PGlite: told once a sync of its directory failed; every later statement is refused (decision P16). */
  onEmbeddedSyncFailed?: (err: Error) => void;
  /** PGlite, tests only: told of each sync of its files; a throw stands for a failed sync. */
  onEmbeddedSync?: (fd: number) => void;
  /**
   * PGlite, tests only (decision R24): an instance opened elsewhere, used instead of `dir`; migrated
   * here, and `close()` hands it back through `release` instead of closing it.
   */
  lent?: LentDatabase;
  /** PGlite, tests only (decision R25): makes initdb's output in place of its child process. */
  embeddedInitdb?: (building: string) => Promise<void>;
  /** Told what a long open is doing (decision R32): the embedded database's creation, each migration step. */
  onProgress?: (progress: DatabaseProgress) => void;
}

/** Decision R32: what opening the database is doing, for a person watching the first start. */
export type DatabaseProgress =
  | { step: 'creating'; dir: string }
  | { step: 'created'; ms: number }
  | { step: 'migration'; name: string; index: number; of: number }
  | { step: 'migrated'; count: number; ms: number };

/** Decision R32: a progress step in a line a person reads (the `npm start` terminal, the log's message). */
export function databaseProgressLine(p: DatabaseProgress): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  switch (p.step) {
    case 'creating':
      return `creating the database in ${p.dir} (first start, about a minute)…`;
    case 'created':
      return `database created in ${seconds(p.ms)}; bringing it to this release's schema…`;
    case 'migration':
      return `database step ${p.index} of ${p.of}: ${p.name}`;
    case 'migrated':
      return `database ready: ${p.count} ${p.count === 1 ? 'step' : 'steps'} in ${seconds(p.ms)}`;
  }
}

/** An embedded database lent to one bridge at a time (decision R24). */
export interface LentDatabase {
  lite: Lite;
  /** Called once the bridge is done with it (its close), after its last statement. */
  release(): Promise<void>;
}

/** The migration step failed for want of a privilege: its role does not own the tables (decision B97). */
export class MigrationPrivilegeError extends Error {
  constructor(
    readonly role: string,
    readonly detail: string,
  ) {
    super(`the migration step failed as ${role}: ${detail}`);
    this.name = 'MigrationPrivilegeError';
  }
}

export interface OpenedDatabase {
  db: Db;
  kind: 'postgres' | 'pglite';
  pool?: pg.Pool;
  /** PostgreSQL: why the serving role could remove audit rows itself (decision B99), if it could. */
  removalRight?: { role: string; reason: RemovalRight } | undefined;
  close(): Promise<void>;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<OpenedDatabase> {
  let db: Db;
  let kind: 'postgres' | 'pglite';
  let extra = async () => undefined as void;
  let pool: pg.Pool | undefined;
  if (options.url) {
    kind = 'postgres';
    // A bounded connect wait: during an outage requests fail fast with 503 instead of queueing.
    pool = new pg.Pool({ connectionString: options.url, max: 10, connectionTimeoutMillis: 5_000 });
    const onPoolError = options.onPoolError ?? (() => undefined);
    pool.on('error', onPoolError);
    // A connection that dies while checked out rejects its query (the caller handles that) and also
    // emits `error` on its client, where pg-pool listens only while the client is idle: without this
    // listener that emission ends the process (CI saw it in the decision B17 outage test).
    pool.on('connect', (client) => client.on('error', () => undefined));
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  } else if (options.lent) {
    kind = 'pglite';
    const lent = options.lent;
    db = new Kysely<Database>({ dialect: pgliteDialect(lent.lite) });
    extra = () => lent.release();
  } else {
    kind = 'pglite';
    // Loaded only here, so a deployment on PostgreSQL never loads PGlite (decision P13).
    const { openEmbedded } = await import('./embedded.ts');
    const lite = await openEmbedded(options.dir, {
      migrate: migrateLite,
      ...(options.onProgress && { onProgress: options.onProgress }),
      ...(options.onEmbeddedUpgrade && { onUpgrade: options.onEmbeddedUpgrade }),
      ...(options.embeddedFsync !== undefined && { fsync: options.embeddedFsync }),
      ...(options.onEmbeddedSyncFailed && { onSyncFailed: options.onEmbeddedSyncFailed }),
      ...(options.onEmbeddedSync && { onSync: options.onEmbeddedSync }),
      ...(options.embeddedInitdb && { initdb: options.embeddedInitdb }),
    });
    db = new Kysely<Database>({ dialect: pgliteDialect(lite) });
    extra = () => lite.close();
  }
  try {
    await migrationStep(db, options);
  } catch (e) {
    if (kind === 'postgres') await db.destroy();
    throw e;
  }
  return {
    db,
    kind,
    ...(pool && { pool, removalRight: await auditRemovalRight(db as Kysely<unknown>) }),
    async close() {
      await db.destroy();
      await extra();
    },
  };
}

/** The migrations on a PGlite instance (the embedded database's own, or one opened elsewhere). */
export async function migrateLite(lite: Lite): Promise<void> {
  const k = new Kysely<unknown>({ dialect: pgliteDialect(lite) });
  try {
    await migrate(k);
  } finally {
    await k.destroy();
  }
}

/**
 * Decision B97: the migrations and `ownerStep` as the owner; with a separate owner, then the app role's
 * grants. A refusal for want of a privilege names the role that lacked it.
 */
async function migrationStep(db: Db, options: OpenDatabaseOptions): Promise<void> {
  let pool: pg.Pool | undefined;
  const owner = options.migrationUrl
    ? new Kysely<unknown>({
        dialect: new PostgresDialect({ pool: (pool = new pg.Pool({ connectionString: options.migrationUrl, max: 1, connectionTimeoutMillis: 5_000 })) }),
      })
    : (db as Kysely<unknown>);
  pool?.on('error', () => undefined);
  const roleOf = async (k: Kysely<unknown>) => (await sql<{ role: string }>`select current_user as role`.execute(k)).rows[0]!.role;
  try {
    const ownerRole = await roleOf(owner);
    try {
      await migrate(owner, options.onProgress);
      await options.ownerStep?.(owner);
      if (options.migrationUrl) {
        const appRole = await roleOf(db as Kysely<unknown>);
        if (appRole !== ownerRole) await grantAppRole(owner, appRole);
      }
    } catch (e) {
      const cause = e instanceof Error && e.cause !== undefined ? e.cause : e;
      if ((cause as { code?: string }).code === '42501') throw new MigrationPrivilegeError(ownerRole, (e as Error).message);
      throw e;
    }
  } finally {
    if (owner !== db) await owner.destroy();
  }
}

/**
 * `inTransaction`: the caller's transaction holds the whole run (`npm run migrate` restores rows into the
 * same one, decision P22), so the migrator opens none of its own.
 */
export async function migrate(db: Kysely<unknown> | Db, onProgress?: (progress: DatabaseProgress) => void, inTransaction = false): Promise<void> {
  // Decision R32: each step that runs is told before it runs (a new database runs them all).
  let migrations = MIGRATIONS;
  let of = 0;
  let index = 0;
  if (onProgress) {
    migrations = Object.fromEntries(
      Object.entries(MIGRATIONS).map(([name, m]) => [
        name,
        {
          ...m,
          up: (k: Kysely<unknown>) => {
            onProgress({ step: 'migration', name, index: ++index, of });
            return m.up(k);
          },
        },
      ]),
    );
  }
  // Features add migrations in numbered ranges of their own (decision R12), so a database that ran a
  // later range must still accept an earlier one that arrives afterwards.
  const migrator = new Migrator({
    db: db as Kysely<unknown>,
    provider: { getMigrations: async () => migrations },
    allowUnorderedMigrations: true,
    ...(inTransaction && { disableTransactions: true }),
  });
  const started = Date.now();
  if (onProgress) of = (await migrator.getMigrations()).filter((m) => m.executedAt === undefined).length;
  const { error, results } = await migrator.migrateToLatest();
  if (onProgress && index > 0 && !error) onProgress({ step: 'migrated', count: index, ms: Date.now() - started });
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a migration may throw anything; its text is what we can show
    throw new Error(`database migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
