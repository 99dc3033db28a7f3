// Semantic search and the embeddings behind it (spec 2 POST /api/ai/search; decisions A13–A17), on
// PGlite (pgvector: HNSW over binary codes, exact re-rank) and PostgreSQL (pgvector when the server
// has it, else the exact path): new proposals embedded asynchronously through the governance
// follower, the sweep catching what a failed kick missed, ranking and threshold checked against a
// brute-force cosine; the reindex endpoint (X-API-Token) and the nightly job once across instances.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { EMBED_SWEEP_JOB, REINDEX_JOB } from '../src/features/ai/routes.ts';
import { bridge, sameSetInstance, type Bridge } from './harness.ts';
import { fakeEmbedding, startFakeInference } from './fake-inference.ts';

const API_TOKEN = 'test-api-token-0123456789';

async function eventually(check: () => Promise<boolean>, what: string, ms = 15_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}`);
}

function cosine(a: number[], b: number[]) {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

const PROPOSALS = [
  {
    title: 'Solar panels for the community hall',
    body: 'Install solar panels on the community hall roof to cut the electricity bill.',
  },
  { title: 'Repair the river bridge', body: 'The wooden bridge over the river needs new planks and railings.' },
  { title: 'Community garden', body: 'Grow vegetables in a community garden behind the hall, open to every member.' },
  {
    title: 'Solar lights on the river path',
    body: 'Put solar powered lights along the river path for safety at night.',
  },
  { title: 'Annual members picnic', body: 'A picnic in the park for members and their families in June.' },
];

const count = async (h: Bridge) =>
  Number((await sql<{ n: string }>`select count(*) as n from ai_embeddings`.execute(h.opened.db)).rows[0]!.n);

for (const db of ['pglite', 'postgres'] as const) {
  describe(`AI search on ${db}`, () => {
    it('new proposals are embedded asynchronously (ProposalCreated); results ranked by cosine, at or above the threshold, as brute force says', async () => {
      const fake = await startFakeInference();
      const h = await bridge(
        { db, sessions: 'database' },
        { INFERENCE_URL: fake.url, AI_RATE_LIMIT_PER_MINUTE: '1000' },
      );
      try {
        const { jar } = await h.member('ada@example.org');
        const gov = h.opened.canisters.clients.governance;
        const ids: string[] = [];
        for (const p of PROPOSALS)
          ids.push(String(((await gov.create_proposal({ ...p, category: 'General' })) as { Ok: bigint }).Ok));
        await eventually(async () => (await count(h)) === PROPOSALS.length, 'the follower to embed every new proposal');
        const search = async (payload: object) => {
          const r = await h.request({ method: 'POST', url: '/api/ai/search', payload, jar });
          assert.equal(r.statusCode, 200, r.body);
          return r.json() as {
            results: Array<{ proposal_id: string; title: string; score: number; excerpt: string }>;
            query_embedding_ms: number;
            search_ms: number;
          };
        };
        const brute = (query: string, threshold: number, limit: number) =>
          PROPOSALS.map((p, i) => ({
            id: ids[i]!,
            score: cosine(fakeEmbedding(query), fakeEmbedding(`${p.title}\n\n${p.body}`)),
          }))
            .filter((x) => x.score >= threshold)
            .sort((a, b) => b.score - a.score)
            .slice(0, limit);
        for (const [query, threshold, limit] of [
          ['solar panels community hall', 0, 10],
          ['solar panels community hall roof electricity', 0.75, 10],
          ['river', 0.1, 2],
          ['bridge over the river planks', 0.5, 10],
        ] as const) {
          const got = await search({ query, threshold, limit });
          const want = brute(query, threshold, limit);
          assert.deepEqual(
            got.results.map((r) => r.proposal_id),
            want.map((w) => w.id),
            `${query} @ ${threshold}`,
          );
          for (const [i, r] of got.results.entries()) {
            assert.ok(Math.abs(r.score - want[i]!.score) < 1e-4, `${r.score} vs ${want[i]!.score}`);
            assert.ok(r.score >= 0 && r.score <= 1);
            assert.ok(r.score >= threshold);
          }
          assert.equal(typeof got.query_embedding_ms, 'number');
          assert.equal(typeof got.search_ms, 'number');
        }
        const top = (await search({ query: 'solar panels community hall', threshold: 0 })).results[0]!;
        assert.deepEqual([top.proposal_id, top.title], [ids[0], PROPOSALS[0]!.title]);
        assert.match(top.excerpt, /^Install solar panels/);
        const defaults = await search({ query: 'solar panels community hall' });
        assert.ok(
          defaults.results.every((r) => r.score >= 0.75),
          'default threshold 0.75',
        );
        assert.deepEqual(
          defaults.results.map((r) => r.proposal_id),
          brute('solar panels community hall', 0.75, 10).map((w) => w.id),
        );
        // Every embedding request asked for floats.
        assert.ok(fake.embedCalls().every((c) => c.body.encoding_format === 'float'));
      } finally {
        await h.close();
        await fake.close();
      }
    });

    it('a proposal created while the server failed is embedded by the sweep job; reindex needs X-API-Token and summarises every proposal once', async () => {
      const fake = await startFakeInference();
      const h = await bridge({ db, sessions: 'database' }, { INFERENCE_URL: fake.url, API_TOKEN });
      try {
        const gov = h.opened.canisters.clients.governance;
        await h.app.ready(); // the governance follower starts with the app
        await h.app.jobs.tick();
        fake.always = 'fail';
        const missed = String(
          ((await gov.create_proposal({ ...PROPOSALS[2]!, category: 'General' })) as { Ok: bigint }).Ok,
        );
        await eventually(async () => fake.embedCalls().length > 0, 'the kick to try');
        await new Promise((r) => setTimeout(r, 100));
        assert.equal(await count(h), 0, 'the server failed: nothing stored');
        fake.always = undefined;
        const run = await h.app.jobs.runNow(EMBED_SWEEP_JOB);
        assert.equal(run.status, 'succeeded');
        assert.deepEqual(run.detail, { embedded: 1, current: 0 });
        assert.equal(await count(h), 1);
        assert.equal((await h.app.jobs.runNow(EMBED_SWEEP_JOB)).detail!.current, 1, 'a second sweep finds it current');

        const reindex = (headers: Record<string, string> = {}) =>
          h.request({ method: 'POST', url: '/api/ai/admin/reindex', origin: null, headers });
        /** The finished run's detail: answered at once (200) or, on a slow machine, 202 and read from the run history. */
        const reindexed = async () => {
          const r = await reindex({ 'x-api-token': API_TOKEN });
          assert.ok(r.statusCode === 200 || r.statusCode === 202, r.body);
          if (r.statusCode === 200) return r.json().detail;
          assert.deepEqual(r.json(), { job: REINDEX_JOB, status: 'running' });
          let run;
          await eventually(
            async () => (run = (await h.app.jobs.runs({ job: REINDEX_JOB, limit: 1 }))[0])?.status !== 'running',
            'the reindex run to finish',
          );
          return run!.detail;
        };
        const none = await reindex();
        assert.equal(none.statusCode, 401);
        assert.equal(none.json().code, 'UNAUTHORIZED');
        assert.equal((await reindex({ 'x-api-token': 'wrong-token-0123456789' })).statusCode, 401);
        await gov.create_proposal({ ...PROPOSALS[0]!, category: 'General' });
        const chats = fake.chatCalls().length;
        const done = (await reindexed()) as { summarised: number; current: number; embedded: number };
        assert.deepEqual([done.summarised, done.current], [2, 0]);
        assert.ok(
          done.embedded <= 1,
          'the new proposal is embedded by the reindex unless its ProposalCreated kick did it first',
        );
        await eventually(async () => (await count(h)) === 2, 'both proposals embedded');
        assert.equal(fake.chatCalls().length, chats + 2);
        const rows = await h.opened.db.selectFrom('ai_summaries').select('proposal_id').execute();
        assert.deepEqual(rows.map((r) => r.proposal_id).sort(), ['1', '2'].sort());
        assert.ok(rows.some((r) => r.proposal_id === missed));
        assert.deepEqual(await reindexed(), { summarised: 0, current: 2, embedded: 0 });
        const runs = await h.app.jobs.runs({ job: REINDEX_JOB });
        assert.ok(runs.filter((r) => r.trigger === 'manual').length === 2, 'each reindex is a durable job run');
      } finally {
        await h.close();
        await fake.close();
      }
    });
  });
}

describe('nightly reindex across instances (decision A8)', () => {
  it('two bridge instances on one PostgreSQL database and one set of canisters: the 03:30 UTC slot runs once', async () => {
    const fake = await startFakeInference();
    const a = await bridge({ db: 'postgres', sessions: 'database' }, { INFERENCE_URL: fake.url });
    // Decision B101: instances share a canister set (IC canisters in a deployment), never a database with sets of their
    // own.
    const b = await sameSetInstance(a);
    try {
      await Promise.all([a.app.ready(), b.app.ready()]);
      await a.opened.canisters.clients.governance.create_proposal({ ...PROPOSALS[0]!, category: 'General' });
      await a.opened.canisters.clients.governance.create_proposal({ ...PROPOSALS[1]!, category: 'General' });
      // 2026-03-10T12:00Z → the next nightly slot, 2026-03-11T03:30Z (one clock for both).
      a.advance(15.5 * 3_600_000);
      await Promise.all([a.app.jobs.tick(), b.app.jobs.tick(), a.app.jobs.tick(), b.app.jobs.tick()]);
      const runs = await a.opened.db
        .selectFrom('job_runs')
        .selectAll()
        .where('job', '=', REINDEX_JOB)
        .where('slot', '=', '2026-03-11T03:30:00.000Z')
        .execute();
      assert.equal(runs.length, 1, 'one run of the slot across both instances');
      assert.equal(runs[0]!.status, 'succeeded');
      assert.equal((runs[0]!.detail as { summarised: number }).summarised, 2, 'both proposals of the one set');
      const all = await a.opened.db.selectFrom('job_runs').select(['slot']).where('job', '=', REINDEX_JOB).execute();
      assert.equal(new Set(all.map((r) => r.slot)).size, all.length, 'never two runs of one slot');
    } finally {
      await b.close();
      await a.close();
      await fake.close();
    }
  });
});
