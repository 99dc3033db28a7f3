// The member's inbox (decisions N1–N12): each member's digest preference (spec 3 "User
// digest preference"; no row = `none`, the digest is opt-in) and the activity feed the digest and
// GET /api/me/activity read, one row per item, unique per producer key so a replayed event adds nothing.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('digest_preferences')
    .addColumn('user_id', 'uuid', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('digest_frequency', 'text', (c) =>
      c
        .notNull()
        .defaultTo('none')
        .check(sql`digest_frequency in ('daily', 'weekly', 'none')`),
    )
    .addColumn('vote_reminders', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('opted_in_at', 'timestamptz')
    .addColumn('last_digest_sent_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index digest_preferences_due on digest_preferences (digest_frequency, last_digest_sent_at) where digest_frequency <> 'none'`.execute(
    db,
  );
  await db.schema
    .createTable('activity_items')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('source_key', 'text', (c) => c.notNull().unique())
    .addColumn('audience', 'text', (c) => c.notNull().check(sql`audience in ('all', 'active', 'user')`))
    .addColumn('user_id', 'uuid', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('category', 'text', (c) => c.notNull().check(sql`char_length(category) between 1 and 32`))
    .addColumn('title', 'text', (c) => c.notNull().check(sql`char_length(title) between 1 and 200`))
    .addColumn('body', 'text', (c) => c.check(sql`char_length(body) <= 500`))
    .addColumn('deep_link', 'text', (c) => c.check(sql`deep_link like 'https://%'`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addCheckConstraint('activity_items_user_audience', sql`(audience = 'user') = (user_id is not null)`)
    .execute();
  await db.schema.createIndex('activity_items_time').on('activity_items').columns(['created_at', 'id']).execute();
  await db.schema
    .createIndex('activity_items_user_time')
    .on('activity_items')
    .columns(['user_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('activity_items').execute();
  await db.schema.dropTable('digest_preferences').execute();
}
