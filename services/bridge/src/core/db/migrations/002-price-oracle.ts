// The price oracle's stored aggregates (decision O10): one row per published aggregate with
// the sources used and every observation of that poll, so a proposal's source_url can cite it.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('price_aggregates')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .addColumn('price_usd', 'double precision', (c) => c.notNull().check(sql`price_usd > 0`))
    .addColumn('confidence', 'text', (c) => c.notNull().check(sql`confidence in ('high', 'medium', 'low')`))
    .addColumn('dispersion', 'double precision', (c) => c.notNull())
    .addColumn('sources', 'jsonb', (c) => c.notNull())
    .addColumn('observations', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('price_aggregates_timestamp')
    .on('price_aggregates')
    .columns(['timestamp', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('price_aggregates').execute();
}
