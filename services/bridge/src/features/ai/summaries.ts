// The summary cache (spec 2 AI resources): keyed by proposal_id, valid while the SHA-256 of the body
// it was made from matches and AI_CACHE_TTL_SECONDS lasts. Only proposals read from the governance
// canister are cached, from the canister's own title and body, so no member can plant a summary for
// a real proposal by posting a made-up body (decision A2). Concurrent misses of one proposal share a
// single inference call.
import type { Db } from '../../core/db/schema.ts';
import type { Inference } from './inference.ts';
import { bodyHash, summaryPrompt, tidySummary, SUMMARY_MAX_TOKENS } from './summary.ts';

export interface SummaryResult {
  summary: string;
  cached: boolean;
  model: string;
  latency_ms: number;
}

export interface ProposalText {
  id: string;
  title: string;
  body: string;
}

export interface Summaries {
  /** A fresh cache entry for this proposal and body, if any. */
  lookup(p: ProposalText): Promise<SummaryResult | undefined>;
  /** From the cache, else made by the model and cached. */
  forProposal(p: ProposalText): Promise<SummaryResult>;
  /** Made by the model for text that is not a stored proposal; never cached. */
  uncached(title: string, body: string): Promise<SummaryResult>;
}

export function createSummaries(o: { db: Db; inference: Inference; ttlMs: number; now(): number }): Summaries {
  const inflight = new Map<string, Promise<SummaryResult>>();
  const make = async (title: string, body: string): Promise<SummaryResult> => {
    const r = await o.inference.chat(
      { messages: summaryPrompt(title, body), max_tokens: SUMMARY_MAX_TOKENS, temperature: 0.2 },
      'summarize',
    );
    return { summary: tidySummary(r.content), cached: false, model: r.model, latency_ms: r.latency_ms };
  };
  const lookup = async (p: ProposalText): Promise<SummaryResult | undefined> => {
    const row = await o.db.selectFrom('ai_summaries').selectAll().where('proposal_id', '=', p.id).executeTakeFirst();
    if (!row || row.body_sha256 !== bodyHash(p.body)) return undefined;
    if (new Date(row.created_at).getTime() + o.ttlMs <= o.now()) return undefined;
    return { summary: row.summary, cached: true, model: row.model, latency_ms: 0 };
  };
  return {
    lookup,
    async forProposal(p) {
      const hit = await lookup(p);
      if (hit) return hit;
      const key = `${p.id}:${bodyHash(p.body)}`;
      let pending = inflight.get(key);
      if (!pending) {
        pending = (async () => {
          const made = await make(p.title, p.body);
          const row = {
            proposal_id: p.id,
            body_sha256: bodyHash(p.body),
            summary: made.summary,
            model: made.model,
            created_at: new Date(o.now()),
          };
          await o.db
            .insertInto('ai_summaries')
            .values(row)
            .onConflict((oc) =>
              oc.column('proposal_id').doUpdateSet({
                body_sha256: row.body_sha256,
                summary: row.summary,
                model: row.model,
                created_at: row.created_at,
              }),
            )
            .execute();
          return made;
        })().finally(() => inflight.delete(key));
        inflight.set(key, pending);
      }
      return pending;
    },
    uncached: make,
  };
}
