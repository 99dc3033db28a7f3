// The member's wallet (decisions B75, B76, L41): a member's DOM transfers, each recorded before its
// ledger call (the record carries the call's created_at_time and memo, so a retry sends the very same
// transfer and the ledger's deduplication answers Duplicate), and the ledger's blocks indexed per
// account by the bridge's ledger follower, so a member's history is read from here, never by reading
// the ledger's whole log per request.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('wallet_transfers')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('from_principal', 'text', (c) => c.notNull())
    .addColumn('to_principal', 'text', (c) => c.notNull())
    .addColumn('amount_e8s', sql`numeric(40, 0)`, (c) => c.notNull())
    .addColumn('fee_e8s', sql`numeric(40, 0)`, (c) => c.notNull())
    .addColumn('memo', 'bytea', (c) => c.notNull())
    .addColumn('created_at_time', sql`numeric(20, 0)`, (c) => c.notNull())
    .addColumn('state', 'text', (c) =>
      c
        .notNull()
        .defaultTo('pending')
        .check(sql`state in ('pending', 'done', 'failed')`),
    )
    .addColumn('block_index', 'bigint')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('wallet_transfers_key', ['user_id', 'idempotency_key'])
    .execute();
  await sql`create index wallet_transfers_pending on wallet_transfers (from_principal) where state = 'pending'`.execute(
    db,
  );

  // The ledger's blocks as the follower read them (one row a block) and, per account that sent or
  // received in a block, one index row: a member's history is one index range scan.
  await db.schema
    .createTable('wallet_ledger_blocks')
    .addColumn('block_index', 'bigint', (c) => c.primaryKey())
    .addColumn('btype', 'text', (c) => c.notNull())
    .addColumn('ts', sql`numeric(20, 0)`, (c) => c.notNull())
    .addColumn('from_account', 'text')
    .addColumn('to_account', 'text')
    .addColumn('spender_account', 'text')
    .addColumn('amount_e8s', sql`numeric(40, 0)`, (c) => c.notNull())
    .addColumn('fee_e8s', sql`numeric(40, 0)`, (c) => c.notNull())
    .addColumn('memo', 'bytea')
    .execute();
  await db.schema
    .createTable('wallet_account_blocks')
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('block_index', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('wallet_account_blocks_pk', ['account', 'block_index'])
    .execute();
  await db.schema
    .createTable('wallet_ledger_cursor')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('next_block', 'bigint', (c) => c.notNull())
    .addColumn('skipped_blocks', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('wallet_ledger_cursor').execute();
  await db.schema.dropTable('wallet_account_blocks').execute();
  await db.schema.dropTable('wallet_ledger_blocks').execute();
  await db.schema.dropTable('wallet_transfers').execute();
}
