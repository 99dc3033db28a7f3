// Only the retention job removes audit rows, and only past retention (decision B98, issue 45 item 9).
// A setting any session can set no longer opens audit_log to DELETE: the trigger lets one through only
// while the statement runs with the table owner's rights and the retention marker set, which is what
// audit_log_purge (SECURITY DEFINER, owned by the owner) does around its own DELETE. PostgreSQL 15
// lets only a superuser put a placeholder in a function's SET clause, so the body sets the marker.
// The function deletes rows older than the earlier of its caller's cutoff and the server's clock
// minus the floor: the retention the migration step records (core/audit/retention.ts) in a table
// only the owner writes.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const schema = (await sql<{ s: string }>`select quote_ident(current_schema()) as s`.execute(db)).rows[0]!.s;
  await sql`
    create table audit_retention_floor (
      id boolean primary key default true check (id),
      days integer not null check (days between 1 and 3650)
    )`.execute(db);
  // Catalog names qualified: the caller's search_path (a pg_temp table named pg_class) cannot answer for them.
  await sql`
    create or replace function audit_log_append_only() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE'
        and pg_catalog.current_setting('domdao.audit_retention', true) = 'on'
        and (select c.relowner from pg_catalog.pg_class c where c.oid = tg_relid) = (select r.oid from pg_catalog.pg_roles r where r.rolname = current_user) then
        return old;
      end if;
      raise exception 'audit_log is append-only: % refused', tg_op using errcode = 'insufficient_privilege';
    end $$`.execute(db);
  // pg_temp last: a caller's temporary table never stands in for the floor or the log. Whole days of
  // 24 hours, as the bridge counts them, whatever the session's time zone.
  await sql`
    create function audit_log_purge(cutoff timestamptz, batch integer) returns integer
    language plpgsql strict security definer
    set search_path = ${sql.raw(schema)}, pg_temp
    as $$
    declare
      floor_days integer;
      deleted integer;
    begin
      if batch < 1 or batch > 100000 then
        raise exception 'audit_log_purge: batch % is outside 1 to 100000', batch using errcode = 'invalid_parameter_value';
      end if;
      select days into floor_days from audit_retention_floor;
      if floor_days is null then
        raise exception 'audit_log_purge: no retention floor is recorded (the migration step writes it)' using errcode = 'object_not_in_prerequisite_state';
      end if;
      perform pg_catalog.set_config('domdao.audit_retention', 'on', true);
      delete from audit_log where id in (
        select id from audit_log
        where at < least(cutoff, pg_catalog.now() - pg_catalog.make_interval(hours => 24 * floor_days))
        order by id limit batch);
      get diagnostics deleted = row_count;
      perform pg_catalog.set_config('domdao.audit_retention', '', true);
      return deleted;
    end $$`.execute(db);
  await sql`revoke execute on function audit_log_purge(timestamptz, integer) from public`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function audit_log_purge(timestamptz, integer)`.execute(db);
  await sql`drop table audit_retention_floor`.execute(db);
  // 060's trigger body: the marker alone lets a DELETE through again.
  await sql`
    create or replace function audit_log_append_only() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' and current_setting('domdao.audit_retention', true) = 'on' then
        return old;
      end if;
      raise exception 'audit_log is append-only: % refused', tg_op using errcode = 'insufficient_privilege';
    end $$`.execute(db);
}
