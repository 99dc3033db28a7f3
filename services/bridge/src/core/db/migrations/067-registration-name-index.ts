// Decision B106: the keyed index of the registration name's words (identity/registration-name-index.ts),
// for the admin console's search. Filled at registration; earlier accounts are filled by the admin
// users feature at start-up (the key is not the database's to know).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users add column name_index bytea[]`.execute(db);
  await sql`create index users_name_index on users using gin (name_index)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index users_name_index`.execute(db);
  await sql`alter table users drop column name_index`.execute(db);
}
