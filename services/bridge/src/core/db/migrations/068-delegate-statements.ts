// Delegate statements (decision B108): what a member who offers to be a delegate says about themselves,
// shown to members choosing a delegate. One a member, gone with the account.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('delegate_statements')
    .addColumn('user_id', 'uuid', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('principal', 'text', (c) => c.notNull().unique())
    .addColumn('statement', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index delegate_statements_newest on delegate_statements (updated_at desc, principal desc)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('delegate_statements').execute();
}
