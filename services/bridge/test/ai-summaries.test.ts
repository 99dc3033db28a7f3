// The summary cache and its in-flight sharing (spec 2 AI resources, decision A2): an entry lives
// exactly AI_CACHE_TTL_SECONDS; concurrent misses share one inference call only when they are for the
// same proposal AND the same body. Driven directly with a controlled clock and an inference whose
// answers the test releases, so the calls are really in flight together.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createSummaries } from '../src/features/ai/summaries.ts';
import type { Inference } from '../src/features/ai/inference.ts';
import { openTemplateDatabase } from './embedded-template.ts';

type Database = Awaited<ReturnType<typeof openTemplateDatabase>>;

/** An inference whose chat answers wait until the test releases them; each answer names the body it was asked about. */
function heldInference() {
  const calls: Array<{ body: string; release: () => void }> = [];
  let waiter: (() => void) | undefined;
  const inference = {
    async chat(req: { messages: Array<{ content: string }> }) {
      const body = req.messages.at(-1)!.content.split('Body:\n')[1]!;
      await new Promise<void>((release) => {
        calls.push({ body, release });
        waiter?.();
      });
      return { content: `About ${body}.`, model: 'm', latency_ms: 5 };
    },
  } as unknown as Inference;
  /** Resolves once `n` calls are waiting. */
  const waiting = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (calls.length >= n ? resolve() : (waiter = check));
      check();
    });
  return { inference, calls, waiting };
}

describe('summary cache (spec 2 AI resources, decision A2)', () => {
  let database: Database;
  let now = Date.parse('2026-03-10T12:00:00Z');
  const TTL = 3_600_000;
  before(async () => {
    database = await openTemplateDatabase();
  });
  after(() => database.close());
  const make = (inference: Inference) => createSummaries({ db: database.db, inference, ttlMs: TTL, now: () => now });

  it('an entry is a hit one ms before AI_CACHE_TTL_SECONDS has passed and a miss at it', async () => {
    await sql`delete from ai_summaries`.execute(database.db);
    const f = heldInference();
    const s = make(f.inference);
    const p = { id: '1', title: 't', body: 'Solar panels.' };
    const made = s.forProposal(p);
    await f.waiting(1);
    f.calls[0]!.release();
    assert.equal((await made).cached, false);
    now += TTL - 1;
    assert.equal((await s.lookup(p))?.cached, true, 'one ms before the TTL');
    now += 1;
    assert.equal(await s.lookup(p), undefined, 'at the TTL');
  });

  it('two misses of one proposal with different bodies in flight together: two inference calls, each answered from its own body', async () => {
    await sql`delete from ai_summaries`.execute(database.db);
    const f = heldInference();
    const s = make(f.inference);
    const a = s.forProposal({ id: '7', title: 't', body: 'Body A' });
    const b = s.forProposal({ id: '7', title: 't', body: 'Body B' });
    await f.waiting(2);
    for (const c of f.calls) c.release();
    assert.deepEqual([(await a).summary, (await b).summary], ['About Body A.', 'About Body B.']);
  });

  it('two misses of two proposals with one body: two calls; two misses of one proposal and one body: one call, shared', async () => {
    await sql`delete from ai_summaries`.execute(database.db);
    const f = heldInference();
    const s = make(f.inference);
    const x = s.forProposal({ id: '8', title: 't', body: 'Same' });
    const y = s.forProposal({ id: '9', title: 't', body: 'Same' });
    await f.waiting(2);
    const shared = s.forProposal({ id: '8', title: 't', body: 'Same' });
    for (const c of f.calls) c.release();
    await Promise.all([x, y, shared]);
    assert.equal(f.calls.length, 2, 'the third call shared the first one in flight');
    assert.deepEqual(
      (await database.db.selectFrom('ai_summaries').select('proposal_id').orderBy('proposal_id').execute()).map(
        (r) => r.proposal_id,
      ),
      ['8', '9'],
    );
  });
});
