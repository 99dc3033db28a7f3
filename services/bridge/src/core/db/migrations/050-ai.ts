// AI storage (decisions A13–A16): the summary cache and the proposal embeddings.
// Embeddings are 4096-dimension vectors (spec 2). pgvector's HNSW index stops at 2,000 dimensions, so
// the index is on a binary-quantized copy (`binary_quantize(embedding)::bit(4096)`, Hamming distance)
// and searches re-rank its candidates by exact cosine. PGlite bundles pgvector; on a PostgreSQL server
// without the extension available the vectors are `real[]` and searched exactly (decision A15).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ai_summaries')
    .addColumn('proposal_id', 'text', (c) => c.primaryKey())
    .addColumn('body_sha256', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  const available = await sql<{ name: string }>`select name from pg_available_extensions where name = 'vector'`.execute(
    db,
  );
  const pgvector = available.rows.length > 0;
  if (pgvector) await sql`create extension if not exists vector`.execute(db);
  await sql`
    create table ai_embeddings (
      proposal_id text primary key,
      title text not null,
      excerpt text not null,
      body_sha256 text not null,
      model text not null,
      embedding ${sql.raw(pgvector ? 'vector(4096)' : 'real[]')} not null,
      embedded_at timestamptz not null
    )`.execute(db);
  if (pgvector)
    await sql`create index ai_embeddings_bq_hnsw on ai_embeddings using hnsw ((binary_quantize(embedding)::bit(4096)) bit_hamming_ops)`.execute(
      db,
    );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ai_embeddings').execute();
  await db.schema.dropTable('ai_summaries').execute();
}
