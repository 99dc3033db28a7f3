// Every email the bridge sends a member at a moment of their life (decisions N13–N20): one
// row per email under its idempotency key, so a failed send is visible to admins and retried.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('email_deliveries')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('template', 'text', (c) => c.notNull())
    .addColumn('user_id', 'uuid', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('event_seq', 'bigint')
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('sent', 'failed')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index email_deliveries_retry on email_deliveries (next_attempt_at) where status = 'failed'`.execute(
    db,
  );
  await db.schema
    .createIndex('email_deliveries_user')
    .on('email_deliveries')
    .columns(['user_id', 'template', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('email_deliveries').execute();
}
