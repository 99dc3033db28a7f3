// Registration and payments through the outbox (decisions B24–B27): the user's
// live verification token (its SHA-256, so a link finds its user and its operation order) and when it
// expires (an expired unverified registration is removed); a payment waits as `pending` while its
// upgrade call is under way.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('verification_token_hash', 'bytea').execute();
  await db.schema.alterTable('users').addColumn('verification_expires_at', 'timestamptz').execute();
  await sql`update users set verification_expires_at = created_at + interval '24 hours' where email_verified_at is null`.execute(
    db,
  );
  await db.schema.createIndex('users_verification_token_hash').on('users').column('verification_token_hash').execute();
  await sql`alter table payments drop constraint payments_status_check`.execute(db);
  await sql`alter table payments add constraint payments_status_check check (status in ('pending', 'applied', 'escrow'))`.execute(
    db,
  );
}
