// The bridge's one migration set, for PostgreSQL and PGlite alike, and how it runs: in order of name,
// each step told before it runs (decision R32). A database at this release's level has run exactly
// MIGRATION_NAMES (decision P22).
import { Kysely, Migrator, type Migration } from 'kysely';
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
import type { Db } from './schema.ts';

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
 * `inTransaction`: the caller's transaction holds the whole run (`npm run migrate` restores rows into the
 * same one, decision P22), so the migrator opens none of its own.
 */
export async function migrate(
  db: Kysely<unknown> | Db,
  onProgress?: (progress: DatabaseProgress) => void,
  inTransaction = false,
): Promise<void> {
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
    throw new Error(`database migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}
