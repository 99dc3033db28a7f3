// Proposal embeddings and semantic search (spec 2 POST /api/ai/search; decisions A13–A16).
// With pgvector: candidates from the HNSW index on the binary-quantized copy (Hamming distance), then
// re-ranked by exact cosine on the full vectors. Without it (a PostgreSQL server whose pgvector is not
// installed) the same answer by an exact scan. Vectors are stored unit length, so cosine = dot product.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../core/db/schema.ts';

export interface StoredEmbedding {
  proposal_id: string;
  title: string;
  excerpt: string;
  body_sha256: string;
  model: string;
  embedding: number[];
}

export interface SearchHit {
  proposal_id: string;
  title: string;
  score: number;
  excerpt: string;
}

export type VectorMode = 'pgvector' | 'exact';

/** Candidates the quantized index hands to the exact re-rank (decision A14): recall against cost. */
export function candidateCount(limit: number): number {
  return Math.min(1000, Math.max(500, limit * 40));
}

const literal = (v: number[]) => `[${v.join(',')}]`;

export interface VectorStore {
  mode(): Promise<VectorMode>;
  upsert(rows: StoredEmbedding[], now: Date, trx?: Transaction<Database>): Promise<void>;
  /** proposal_id → body hash of what is stored, for the given ids. */
  hashes(ids: string[]): Promise<Map<string, string>>;
  search(query: number[], limit: number, threshold: number): Promise<SearchHit[]>;
  count(): Promise<number>;
}

export function createVectorStore(db: Kysely<Database>): VectorStore {
  let mode: Promise<VectorMode> | undefined;
  // Asked through the caller's transaction when there is one: PGlite has a single connection.
  const detect = (on: Kysely<Database> | Transaction<Database> = db) =>
    (mode ??= sql<{
      t: string;
    }>`select format_type(atttypid, atttypmod) as t from pg_attribute where attrelid = 'ai_embeddings'::regclass and attname = 'embedding'`
      .execute(on)
      .then((r) => (r.rows[0]?.t.startsWith('vector') ? 'pgvector' : 'exact')));
  return {
    mode: () => detect(),
    async upsert(rows, now, trx) {
      if (rows.length === 0) return;
      const run = trx ?? db;
      const m = await detect(run);
      for (const r of rows) {
        const vec =
          m === 'pgvector'
            ? sql`${literal(r.embedding)}::vector`
            : sql`${literal(r.embedding).replace('[', '{').replace(']', '}')}::real[]`;
        await sql`
          insert into ai_embeddings (proposal_id, title, excerpt, body_sha256, model, embedding, embedded_at)
          values (${r.proposal_id}, ${r.title}, ${r.excerpt}, ${r.body_sha256}, ${r.model}, ${vec}, ${now})
          on conflict (proposal_id) do update set title = excluded.title, excerpt = excluded.excerpt, body_sha256 = excluded.body_sha256,
            model = excluded.model, embedding = excluded.embedding, embedded_at = excluded.embedded_at`.execute(run);
      }
    },
    async hashes(ids) {
      if (ids.length === 0) return new Map();
      const r = await sql<{
        proposal_id: string;
        body_sha256: string;
      }>`select proposal_id, body_sha256 from ai_embeddings where proposal_id in (${sql.join(ids)})`.execute(db);
      return new Map(r.rows.map((x) => [x.proposal_id, x.body_sha256]));
    },
    async search(query, limit, threshold) {
      const m = await detect();
      if (m === 'exact') {
        const q = literal(query).replace('[', '{').replace(']', '}');
        const r = await sql<SearchHit>`
          select proposal_id, title, excerpt, score from (
            select proposal_id, title, excerpt, (select sum(a * b) from unnest(embedding, ${q}::real[]) as t(a, b))::float8 as score from ai_embeddings
          ) s where score >= ${threshold} order by score desc, proposal_id limit ${limit}`.execute(db);
        return r.rows.map((h) => ({ ...h, score: clamp(h.score) }));
      }
      const q = literal(query);
      const candidates = candidateCount(limit);
      // ef_search bounds what the HNSW scan returns: at least the candidates the re-rank needs.
      return db.transaction().execute(async (trx) => {
        await sql`select set_config('hnsw.ef_search', ${String(candidates)}, true)`.execute(trx);
        // The query vector appears twice (each a 4096-number literal to parse): codes, then exact distance.
        const r = await sql<SearchHit>`
          select proposal_id, title, excerpt, 1 - d as score from (
            select proposal_id, title, excerpt, embedding <=> ${q}::vector as d from (
              select proposal_id, title, excerpt, embedding from ai_embeddings
              order by binary_quantize(embedding)::bit(4096) <~> binary_quantize(${q}::vector) limit ${candidates}
            ) c
          ) s where 1 - d >= ${threshold} order by d, proposal_id limit ${limit}`.execute(trx);
        return r.rows.map((h) => ({ ...h, score: clamp(Number(h.score)) }));
      });
    },
    async count() {
      const r = await sql<{ n: string }>`select count(*) as n from ai_embeddings`.execute(db);
      return Number(r.rows[0]?.n ?? 0);
    },
  };
}

/** Spec 2: score is a cosine similarity reported in 0.0–1.0 (rounding can stray past 1). */
function clamp(x: number): number {
  return Math.min(1, Math.max(0, Number(x)));
}
