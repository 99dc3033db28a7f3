// The outbox (decisions B20–B23): one row per cross-system operation, written in the
// same transaction as the bridge's own change; the canister call runs after the commit under the
// row's op_id, and the reconciler finishes or compensates what a crash left pending.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('bridge_outbox')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('op_id', 'text', (c) => c.notNull().unique())
    .addColumn('aggregate', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('state', 'text', (c) =>
      c
        .notNull()
        .defaultTo('pending')
        .check(sql`state in ('pending', 'done', 'compensated')`),
    )
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('result', 'jsonb')
    .addColumn('lease_token', 'text')
    .addColumn('lease_until', 'timestamptz')
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('bridge_outbox_pending')
    .on('bridge_outbox')
    .columns(['state', 'next_attempt_at'])
    .execute();
  await db.schema.createIndex('bridge_outbox_aggregate').on('bridge_outbox').columns(['aggregate', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('bridge_outbox').execute();
}
