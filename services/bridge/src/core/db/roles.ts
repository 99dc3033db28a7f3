// The database roles (decision B97): the owner, which the migration step runs as, owns the tables and
// the retention function; the app role the bridge serves as gets, after every migration step, what
// it uses and no more: it may read and append to audit_log but not update, delete or truncate it, and
// it reads the floor and the migrations' bookkeeping without writing them.
import { sql, type Kysely } from 'kysely';

/** Tables the app role reads only (and audit_log, which it also appends to). */
const READ_ONLY = ['audit_retention_floor', 'kysely_migration', 'kysely_migration_lock'];

/** Grants `role` what the bridge needs on everything the owner has made so far, in one transaction. */
export async function grantAppRole(owner: Kysely<unknown>, role: string): Promise<void> {
  await owner.transaction().execute(async (tx) => {
    // Instances starting together: concurrent GRANTs on one object fail ("tuple concurrently updated").
    await sql`select pg_advisory_xact_lock(hashtext('domdao.grant_app_role'))`.execute(tx);
    const who = sql.id(role);
    const schema = sql.raw(
      (await sql<{ s: string }>`select quote_ident(current_schema()) as s`.execute(tx)).rows[0]!.s,
    );
    await sql`grant usage on schema ${schema} to ${who}`.execute(tx);
    await sql`grant select, insert, update, delete on all tables in schema ${schema} to ${who}`.execute(tx);
    await sql`grant usage, select on all sequences in schema ${schema} to ${who}`.execute(tx);
    // Also what an operator granted by the advice before decision B98 (DELETE on audit_log).
    await sql`revoke update, delete, truncate, references, trigger on audit_log from ${who}`.execute(tx);
    for (const table of READ_ONLY)
      await sql`revoke insert, update, delete, truncate, references, trigger on ${sql.id(table)} from ${who}`.execute(
        tx,
      );
    await sql`grant execute on function audit_log_purge(timestamptz, integer) to ${who}`.execute(tx);
  });
}

export type RemovalRight = 'superuser' | 'owner' | 'createrole';

/**
 * Why the connected role could remove audit rows itself (decision B99), or undefined when it cannot:
 * a superuser, the owner of audit_log or a member of it, or a role with CREATEROLE (before PostgreSQL
 * 16 it may grant itself the owner role).
 */
export async function auditRemovalRight(
  db: Kysely<unknown>,
): Promise<{ role: string; reason: RemovalRight } | undefined> {
  const r = await sql<{ role: string; superuser: boolean; owner: boolean; createrole: boolean }>`
    select current_user as role, r.rolsuper as superuser, pg_has_role(current_user, c.relowner, 'MEMBER') as owner,
      r.rolcreaterole and pg_catalog.current_setting('server_version_num')::int < 160000 as createrole
    from pg_catalog.pg_class c, pg_catalog.pg_roles r
    where c.oid = 'audit_log'::regclass and r.rolname = current_user`.execute(db);
  const row = r.rows[0];
  if (!row) return undefined;
  if (row.superuser) return { role: row.role, reason: 'superuser' };
  if (row.owner) return { role: row.role, reason: 'owner' };
  if (row.createrole) return { role: row.role, reason: 'createrole' };
  return undefined;
}
