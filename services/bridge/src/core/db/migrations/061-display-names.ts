// Display names (decision F22): the member's chosen name (unique ignoring case) and the default derived
// from their principal, filled in here for accounts that registered before.
import { sql, type Kysely } from 'kysely';
import { defaultDisplayName } from '../../identity/display-names.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users add column display_name text`.execute(db);
  await sql`alter table users add column default_name text`.execute(db);
  const rows = await sql<{ id: string; principal: string }>`select id, principal from users`.execute(db);
  for (const r of rows.rows) await sql`update users set default_name = ${defaultDisplayName(r.principal)} where id = ${r.id}`.execute(db);
  await sql`alter table users alter column default_name set not null`.execute(db);
  await sql`create unique index users_display_name_unique on users (lower(display_name)) where display_name is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index users_display_name_unique`.execute(db);
  await sql`alter table users drop column display_name`.execute(db);
  await sql`alter table users drop column default_name`.execute(db);
}
