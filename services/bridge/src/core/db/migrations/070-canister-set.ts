// The canister set a database belongs to (decisions B100–B103, V40, V41): one row naming the set
// recorded at the first start (and, with embedded canisters on PostgreSQL, the live bridge holding it),
// and on every row whose meaning depends on one set's canister state (events copied from the canisters,
// outbox operations, the wallet's index of the ledger) the set it was written for. Rows written before
// this migration (or by an older bridge meanwhile) carry '' and are given the recorded set at a start.
import { sql, type Kysely } from 'kysely';

const TAGGED = [
  'bridge_events',
  'bridge_outbox',
  'wallet_ledger_blocks',
  'wallet_account_blocks',
  'wallet_ledger_cursor',
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('bridge_canister_set')
    .addColumn('id', 'smallint', (c) =>
      c
        .primaryKey()
        .defaultTo(1)
        .check(sql`id = 1`),
    )
    .addColumn('set_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('embedded', 'ic')`))
    .addColumn('description', 'jsonb', (c) => c.notNull())
    .addColumn('recorded_at', 'timestamptz', (c) => c.notNull())
    .addColumn('holder', 'jsonb')
    .execute();
  for (const table of TAGGED) {
    await sql`alter table ${sql.table(table)} add column canister_set text not null default ''`.execute(db);
    // A start finds the rows to adopt through this index: empty once they are, so the look costs nothing.
    await sql`create index ${sql.id(`${table}_unbound`)} on ${sql.table(table)} (canister_set) where canister_set = ''`.execute(
      db,
    );
  }
  await sql`alter table wallet_ledger_cursor add column ledger_id text not null default ''`.execute(db);
  // Decision V40: a canister event is unique within its set, not across sets.
  await sql`alter table bridge_events drop constraint bridge_events_source_id`.execute(db);
  await sql`alter table bridge_events add constraint bridge_events_source_id unique (canister_set, source, source_id)`.execute(
    db,
  );
  // Decision B103: a block index is a position in one ledger's log.
  await sql`alter table wallet_ledger_blocks drop constraint wallet_ledger_blocks_pkey`.execute(db);
  await sql`alter table wallet_ledger_blocks add constraint wallet_ledger_blocks_pkey primary key (canister_set, block_index)`.execute(
    db,
  );
  await sql`alter table wallet_account_blocks drop constraint wallet_account_blocks_pk`.execute(db);
  await sql`alter table wallet_account_blocks add constraint wallet_account_blocks_pk primary key (canister_set, account, block_index)`.execute(
    db,
  );
  await sql`alter table wallet_ledger_cursor drop constraint wallet_ledger_cursor_pkey`.execute(db);
  await sql`alter table wallet_ledger_cursor add constraint wallet_ledger_cursor_pkey primary key (canister_set, id)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table wallet_ledger_cursor drop constraint wallet_ledger_cursor_pkey`.execute(db);
  await sql`alter table wallet_ledger_cursor add constraint wallet_ledger_cursor_pkey primary key (id)`.execute(db);
  await sql`alter table wallet_account_blocks drop constraint wallet_account_blocks_pk`.execute(db);
  await sql`alter table wallet_account_blocks add constraint wallet_account_blocks_pk primary key (account, block_index)`.execute(
    db,
  );
  await sql`alter table wallet_ledger_blocks drop constraint wallet_ledger_blocks_pkey`.execute(db);
  await sql`alter table wallet_ledger_blocks add constraint wallet_ledger_blocks_pkey primary key (block_index)`.execute(
    db,
  );
  await sql`alter table bridge_events drop constraint bridge_events_source_id`.execute(db);
  await sql`alter table bridge_events add constraint bridge_events_source_id unique (source, source_id)`.execute(db);
  await sql`alter table wallet_ledger_cursor drop column ledger_id`.execute(db);
  for (const table of TAGGED) await sql`alter table ${sql.table(table)} drop column canister_set`.execute(db);
  await db.schema.dropTable('bridge_canister_set').execute();
}
