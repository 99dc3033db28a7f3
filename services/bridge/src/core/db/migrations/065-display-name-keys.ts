// Look-alike display names (decisions B89–B91): each chosen name's look-alike key, unique. Names chosen
// before that break the new rules (invisible characters, mark stacks) or look like a name chosen
// earlier go back to their default (the account registered first keeps a contested name), each with an
// audit row (`members.display_name_reset`, actor `system`, the member as subject). Reserved names
// depend on the configured DAO name and are given up at start-up instead (features/members).
import { sql, type Kysely } from 'kysely';
import { invisibleProblem, lookalikeKey, marksProblem, type LookalikeRefusal } from '../../identity/display-name-rules.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users add column display_name_key text`.execute(db);
  const rows = await sql<{ id: string; display_name: string }>`
    select id, display_name from users where display_name is not null order by created_at, id`.execute(db);
  const taken = new Set<string>();
  for (const r of rows.rows) {
    const key = lookalikeKey(r.display_name);
    const reason: LookalikeRefusal | undefined = invisibleProblem(r.display_name)
      ? 'invisible'
      : marksProblem(r.display_name)
        ? 'combining_marks'
        : taken.has(key)
          ? 'lookalike'
          : undefined;
    if (reason === undefined) {
      taken.add(key);
      await sql`update users set display_name_key = ${key} where id = ${r.id}`.execute(db);
      continue;
    }
    await sql`update users set display_name = null where id = ${r.id}`.execute(db);
    await sql`insert into audit_log (at, event, actor, subject, request_id, client, outcome, detail)
      values (now(), 'members.display_name_reset', 'system', ${r.id}, null, 'internal', 'success', ${JSON.stringify({ reason })}::jsonb)`.execute(db);
  }
  await sql`create unique index users_display_name_key_unique on users (display_name_key) where display_name_key is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index users_display_name_key_unique`.execute(db);
  await sql`alter table users drop column display_name_key`.execute(db);
}
