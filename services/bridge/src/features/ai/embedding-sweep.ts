// Proposal embeddings kept current (spec 2: new proposals are embedded asynchronously after
// creation; decision A17). The governance follower's ProposalCreated event kicks a sweep; a scheduled
// sweep catches whatever a kick missed (a proposal created while the inference server was down, or
// directly on the canister). A sweep walks the canister's proposals and embeds, in batches, those
// with no stored embedding or one made from another body. The canister is the durable record of what
// needs embedding, so nothing is lost when a sweep stops half-way.
import type { CanisterClients } from '@domdao/canisters';
import type { Inference } from './inference.ts';
import { allProposals, embeddingText, excerpt } from './proposals.ts';
import { bodyHash } from './summary.ts';
import type { VectorStore } from './vector-store.ts';

export const EMBED_BATCH = 16;

export interface SweepResult {
  embedded: number;
  current: number;
}

export interface EmbeddingSweep {
  /** Walks every proposal once; throws when inference fails (what was embedded stays). */
  sweep(signal?: AbortSignal): Promise<SweepResult>;
  /** A sweep in the background (one at a time; a kick during a sweep runs another after it). */
  kick(): void;
  /** Resolves when no background sweep is running. */
  idle(): Promise<void>;
}

export function createEmbeddingSweep(o: {
  governance: Pick<CanisterClients['governance'], 'list_proposals'>;
  inference: Inference;
  store: VectorStore;
  now(): number;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}): EmbeddingSweep {
  let running: Promise<void> | undefined;
  let again = false;
  const sweep = async (signal?: AbortSignal): Promise<SweepResult> => {
    let embedded = 0;
    let current = 0;
    for await (const page of allProposals(o.governance, signal)) {
      const stored = await o.store.hashes(page.map((p) => p.id));
      const todo = page.filter((p) => stored.get(p.id) !== bodyHash(p.body));
      current += page.length - todo.length;
      for (let i = 0; i < todo.length; i += EMBED_BATCH) {
        if (signal?.aborted) return { embedded, current };
        const batch = todo.slice(i, i + EMBED_BATCH);
        const r = await o.inference.embed(batch.map(embeddingText), 'embed-proposals');
        await o.store.upsert(
          batch.map((p, k) => ({
            proposal_id: p.id,
            title: p.title,
            excerpt: excerpt(p.body),
            body_sha256: bodyHash(p.body),
            model: r.model,
            embedding: r.embeddings[k]!,
          })),
          new Date(o.now()),
        );
        embedded += batch.length;
      }
    }
    if (embedded) o.log.info({ event: 'ai.embedded', embedded, current }, `embedded ${embedded} proposals`);
    return { embedded, current };
  };
  const loop = async () => {
    do {
      again = false;
      try {
        await sweep();
      } catch (e) {
        o.log.warn(
          { event: 'ai.embed_sweep_failed', err: (e as Error).message },
          'embedding sweep stopped; the scheduled sweep retries',
        );
        return;
      }
    } while (again);
  };
  return {
    sweep,
    kick() {
      if (!o.inference.configured) return;
      if (running) {
        again = true;
        return;
      }
      running = loop().finally(() => (running = undefined));
    },
    async idle() {
      while (running) await running;
    },
  };
}
