// Opening the bridge's database: PostgreSQL (DATABASE_URL) or PGlite (embedded default under the data
// directory), one schema (schema.ts) and one migration set (migrate.ts) applied at start-up. Kysely
// builds the queries for both.
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { migrate, migrateLite, type DatabaseProgress } from './migrate.ts';
import { pgliteDialect, type Lite } from './pglite-dialect.ts';
import { auditRemovalRight, grantAppRole, type RemovalRight } from './roles.ts';
import type { Database, Db } from './schema.ts';
import type { EmbeddedUpgrade } from './embedded.ts';

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

/**
 * Decision B97: the migrations and `ownerStep` as the owner; with a separate owner, then the app role's
 * grants. A refusal for want of a privilege names the role that lacked it.
 */
async function migrationStep(db: Db, options: OpenDatabaseOptions): Promise<void> {
  let pool: pg.Pool | undefined;
  const owner = options.migrationUrl
    ? new Kysely<unknown>({
        dialect: new PostgresDialect({
          pool: (pool = new pg.Pool({
            connectionString: options.migrationUrl,
            max: 1,
            connectionTimeoutMillis: 5_000,
          })),
        }),
      })
    : (db as Kysely<unknown>);
  pool?.on('error', () => undefined);
  const roleOf = async (k: Kysely<unknown>) =>
    (await sql<{ role: string }>`select current_user as role`.execute(k)).rows[0]!.role;
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
      if ((cause as { code?: string }).code === '42501')
        throw new MigrationPrivilegeError(ownerRole, (e as Error).message);
      throw e;
    }
  } finally {
    if (owner !== db) await owner.destroy();
  }
}
