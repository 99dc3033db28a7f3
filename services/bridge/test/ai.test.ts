// The AI endpoints (spec 2 AI endpoint shapes, AI errors; decisions A1–A18) against a local OpenAI-compatible
// server: health, the session rule, validation (422), the summary cache (hits, TTL, body-hash
// invalidation, poisoning), drafts as validated structured output with one retry, embeddings of 4096
// floats asked for as floats, the per-member rate limit, and the unconfigured bridge.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { CIRCUIT_OPEN_BODY } from '../src/features/ai/routes.ts';
import { bridge, type Bridge, type Jar } from './harness.ts';
import { startFakeInference, type FakeInference } from './fake-inference.ts';

const HOUR = 3_600_000;

describe('AI endpoints against an OpenAI-compatible server (spec 2)', () => {
  let fake: FakeInference;
  let h: Bridge;
  let jar: Jar;
  let proposalId: string;
  const post = (url: string, payload: object, j: Jar | null = jar) =>
    h.request({ method: 'POST', url, payload, ...(j && { jar: j }) });

  before(async () => {
    fake = await startFakeInference();
    h = await bridge(undefined, { INFERENCE_URL: fake.url, AI_RATE_LIMIT_PER_MINUTE: '1000' });
    ({ jar } = await h.member('ada@example.org'));
    const created = await h.opened.canisters.clients.governance.create_proposal({
      title: 'Solar panels for the hall',
      body: 'Install solar panels on the community hall roof for 12,000 USD.',
      category: 'General',
    });
    assert.ok('Ok' in created);
    proposalId = String(created.Ok);
  });
  after(async () => {
    await h.close();
    await fake.close();
  });

  it('GET /api/ai/health: status, circuit, model_available, inference_host, default_model, without a session', async () => {
    const r = await h.request({ method: 'GET', url: '/api/ai/health' });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), {
      status: 'ok',
      circuit: 'CLOSED',
      model_available: true,
      inference_host: new URL(fake.url).host,
      default_model: 'draft-7b-q4',
    });
    fake.models = ['embed-3b'];
    try {
      const d = (await h.request({ method: 'GET', url: '/api/ai/health' })).json() as {
        status: string;
        model_available: boolean;
      };
      assert.deepEqual([d.status, d.model_available], ['degraded', false], 'the default model is not on the server');
    } finally {
      fake.models = ['draft-7b-q4', 'embed-3b'];
    }
  });

  it('spec 2 AI errors: every AI endpoint but health needs the session (401 UNAUTHORIZED), before validation', async () => {
    const n = fake.requests.filter((r) => !/Solar panels/.test(JSON.stringify(r.body))).length;
    for (const url of ['/api/ai/summarize', '/api/ai/search', '/api/ai/draft', '/api/ai/embed']) {
      const r = await post(url, {}, null);
      assert.equal(r.statusCode, 401, url);
      assert.equal(r.json().code, 'UNAUTHORIZED', url);
      assert.equal(typeof r.json().error, 'string');
    }
    assert.equal(
      fake.requests.filter((r) => !/Solar panels/.test(JSON.stringify(r.body))).length,
      n,
      'nothing but the background embedding of the proposal',
    );
  });

  it('spec 2 AI errors: 422 VALIDATION_ERROR for a missing or invalid proposal_id or body; nothing is asked of the model', async () => {
    const n = fake.requests.filter((r) => !/Solar panels/.test(JSON.stringify(r.body))).length;
    const bad = [
      { title: 't', body: 'b' },
      { proposal_id: 'abc', title: 't', body: 'b' },
      { proposal_id: '99999999999999999999', title: 't', body: 'b' },
      { proposal_id: '1', title: 't' },
      { proposal_id: '1', title: 't', body: '' },
      { proposal_id: '1', body: 'b' },
    ];
    for (const payload of bad) {
      const r = await post('/api/ai/summarize', payload);
      assert.equal(r.statusCode, 422, JSON.stringify(payload));
      assert.equal(r.json().code, 'VALIDATION_ERROR');
    }
    for (const [url, payload] of [
      ['/api/ai/search', { query: '' }],
      ['/api/ai/search', { query: 'x', limit: 51 }],
      ['/api/ai/search', { query: 'x', threshold: 1.5 }],
      ['/api/ai/draft', { intent: 'x', category: 'Nope' }],
      ['/api/ai/embed', {}],
    ] as const) {
      assert.equal((await post(url, payload)).statusCode, 422, `${url} ${JSON.stringify(payload)}`);
    }
    assert.equal(
      fake.requests.filter((r) => !/Solar panels/.test(JSON.stringify(r.body))).length,
      n,
      'nothing but the background embedding of the proposal',
    );
  });

  it('summarize: cached by proposal_id (latency_ms 0 when cached), expires after AI_CACHE_TTL_SECONDS, invalidated by a new body hash', async () => {
    const before = fake.chatCalls().length;
    const first = await post('/api/ai/summarize', {
      proposal_id: proposalId,
      title: 'Solar panels for the hall',
      body: 'Install solar panels on the community hall roof for 12,000 USD.',
    });
    assert.equal(first.statusCode, 200, first.body);
    const a = first.json() as { summary: string; cached: boolean; model: string; latency_ms: number };
    assert.equal(a.cached, false);
    assert.equal(a.model, 'draft-7b-q4');
    assert.ok(Number.isInteger(a.latency_ms), 'whole milliseconds of the inference call');
    const sentences = a.summary.match(/[.!?](\s|$)/g)?.length ?? 0;
    assert.ok(sentences >= 1 && sentences <= 3, a.summary);
    const second = (
      await post('/api/ai/summarize', {
        proposal_id: proposalId,
        title: 'x',
        body: 'Install solar panels on the community hall roof for 12,000 USD.',
      })
    ).json();
    assert.deepEqual(second, { summary: a.summary, cached: true, model: a.model, latency_ms: 0 });
    assert.equal(fake.chatCalls().length, before + 1, 'the hit made no inference call');

    h.advance(HOUR + 1_000);
    assert.equal(
      (await post('/api/ai/summarize', { proposal_id: proposalId, title: 't', body: 'b' })).json().cached,
      false,
      'the TTL (3600 s) has passed',
    );
    assert.equal(
      (await post('/api/ai/summarize', { proposal_id: proposalId, title: 't', body: 'b' })).json().cached,
      true,
    );

    // The entry was made from another body (the canister's body changed since): a miss.
    await sql`update ai_summaries set body_sha256 = ${'0'.repeat(64)} where proposal_id = ${proposalId}`.execute(
      h.opened.db,
    );
    assert.equal(
      (await post('/api/ai/summarize', { proposal_id: proposalId, title: 't', body: 'b' })).json().cached,
      false,
      'the body hash changed',
    );
  });

  it('decision A2: a member cannot poison the shared cache: a real proposal is summarised from its canister body; a made-up one is never cached', async () => {
    const n = fake.chatCalls().length;
    await sql`delete from ai_summaries`.execute(h.opened.db);
    const r = await post('/api/ai/summarize', {
      proposal_id: proposalId,
      title: 'Send all funds to me',
      body: 'Transfer the whole treasury to mallory.',
    });
    assert.equal(r.statusCode, 200);
    const asked = JSON.stringify(fake.chatCalls()[n]!.body.messages);
    assert.match(asked, /community hall roof/, "the canister's body was summarised");
    assert.doesNotMatch(asked, /mallory/, 'the posted body was not');
    const row = await h.opened.db
      .selectFrom('ai_summaries')
      .selectAll()
      .where('proposal_id', '=', proposalId)
      .executeTakeFirstOrThrow();
    assert.doesNotMatch(row.summary, /mallory|funds to me/i);

    const ghost = { proposal_id: '424242', title: 'Draft idea', body: 'A community garden behind the hall.' };
    const g1 = (await post('/api/ai/summarize', ghost)).json();
    const g2 = (await post('/api/ai/summarize', ghost)).json();
    assert.deepEqual(
      [g1.cached, g2.cached],
      [false, false],
      'not a proposal on the canister: summarised as posted, not cached',
    );
    assert.match(JSON.stringify(fake.chatCalls().at(-1)!.body.messages), /community garden/);
    assert.equal(
      await h.opened.db
        .selectFrom('ai_summaries')
        .select('proposal_id')
        .where('proposal_id', '=', '424242')
        .executeTakeFirst(),
      undefined,
    );
  });

  it('draft: structured output (json_schema) validated; one malformed answer is retried, two give 502 DRAFT_MALFORMED', async () => {
    const n = fake.chatCalls().length;
    const ok = await post('/api/ai/draft', {
      intent: 'Plant trees along the river',
      category: 'General',
      max_tokens: 600,
    });
    assert.equal(ok.statusCode, 200, ok.body);
    const d = ok.json() as {
      draft: { title: string; body: string; suggested_budget: number | null; tags: string[] };
      model: string;
      latency_ms: number;
    };
    assert.ok(d.draft.title && d.draft.body.includes('##'));
    assert.ok(Array.isArray(d.draft.tags));
    assert.equal(d.model, 'draft-7b-q4');
    const sent = fake.chatCalls()[n]!.body as {
      response_format: { type: string; json_schema: { schema: { required: string[] } } };
      max_tokens: number;
    };
    assert.equal(sent.response_format.type, 'json_schema');
    assert.deepEqual(sent.response_format.json_schema.schema.required, ['title', 'body', 'suggested_budget', 'tags']);
    assert.equal(sent.max_tokens, 600);

    fake.faults.push('bad-json-content');
    const retried = await post('/api/ai/draft', { intent: 'Repair the bridge', category: 'TreasuryPayout' });
    assert.equal(retried.statusCode, 200);
    assert.equal(fake.chatCalls().length, n + 3, 'one retry');

    fake.replies.push('{"title": "x"}', 'not json at all');
    const failed = await post('/api/ai/draft', { intent: 'Repair the bridge', category: 'General' });
    assert.equal(failed.statusCode, 502);
    assert.equal(failed.json().code, 'DRAFT_MALFORMED');
    assert.match(failed.json().error, /did not return a valid draft/);
  });

  it('decision A18: a draft with ordinary deviations is repaired or the field dropped, and returned without a retry', async () => {
    const draft = (fields: Record<string, unknown>) =>
      JSON.stringify({
        title: 'Solar roof',
        body: '## Summary\n\nPanels.',
        suggested_budget: 1000,
        tags: ['energy'],
        ...fields,
      });
    const cases: Array<
      [Record<string, unknown>, Partial<{ title: string; suggested_budget: number | null; tags: string[] }>]
    > = [
      [{ suggested_budget: '$1,200' }, { suggested_budget: 1200 }],
      [{ suggested_budget: '1,500.50 USD' }, { suggested_budget: 1500.5 }],
      [{ suggested_budget: 'USD 300' }, { suggested_budget: 300 }],
      [{ suggested_budget: '2.5k dollars' }, { suggested_budget: 2500 }],
      [{ suggested_budget: '750' }, { suggested_budget: 750 }],
      [{ suggested_budget: '1000 DOM' }, { suggested_budget: null }],
      [{ suggested_budget: '€500' }, { suggested_budget: null }],
      [{ suggested_budget: 'a few thousand' }, { suggested_budget: null }],
      [{ suggested_budget: -5 }, { suggested_budget: null }],
      [{ suggested_budget: { amount: 5 } }, { suggested_budget: null }],
      [{ suggested_budget: undefined }, { suggested_budget: null }],
      [{ tags: 'Energy, Solar ,energy' }, { tags: ['energy', 'solar'] }],
      [
        { tags: Array.from({ length: 11 }, (_, i) => `t${i}`) },
        { tags: Array.from({ length: 10 }, (_, i) => `t${i}`) },
      ],
      [{ tags: [1, 'Ok', '', 'x'.repeat(41)] }, { tags: ['ok'] }],
      [{ tags: null }, { tags: [] }],
      [{ title: 'T'.repeat(200) }, { title: 'T'.repeat(200) }],
      [{ title: 'T'.repeat(201) }, { title: 'T'.repeat(200) }],
      [{ notes: 'an extra field', confidence: 0.9 }, { suggested_budget: 1000 }],
    ];
    for (const [fields, expected] of cases) {
      const n = fake.chatCalls().length;
      fake.replies.push(draft(fields));
      const r = await post('/api/ai/draft', { intent: 'Solar roof', category: 'General' });
      assert.equal(r.statusCode, 200, `${JSON.stringify(fields)}: ${r.body}`);
      const d = r.json().draft as Record<string, unknown>;
      assert.deepEqual(
        Object.keys(d).sort(),
        ['body', 'suggested_budget', 'tags', 'title'],
        'unknown fields are dropped',
      );
      for (const [k, v] of Object.entries(expected))
        assert.deepEqual(d[k], v, `${JSON.stringify(fields).slice(0, 80)}: ${k}`);
      assert.equal(fake.chatCalls().length, n + 1, 'no retry');
    }
    // What cannot be repaired is still asked again, then refused.
    fake.replies.push(draft({ body: '  ' }), draft({ title: 42 }));
    const failed = await post('/api/ai/draft', { intent: 'Solar roof', category: 'General' });
    assert.deepEqual([failed.statusCode, failed.json().code], [502, 'DRAFT_MALFORMED']);
    fake.replies.push('[1, 2]', draft({ title: undefined }));
    assert.equal((await post('/api/ai/draft', { intent: 'Solar roof', category: 'General' })).statusCode, 502);
  });

  it('embed: 4096 floats asked for with encoding_format "float"; another size is refused (502 EMBEDDING_DIMENSIONS), base64 too', async () => {
    const r = await post('/api/ai/embed', { text: 'solar panels' });
    assert.equal(r.statusCode, 200);
    const e = r.json() as { embedding: number[]; dimensions: number; model: string };
    assert.equal(e.dimensions, 4096);
    assert.equal(e.embedding.length, 4096);
    assert.equal(e.model, 'embed-3b');
    assert.equal(fake.embedCalls().at(-1)!.body.encoding_format, 'float');

    // Faults keyed to this test's input: the embedding sweep (kicked by the proposal an earlier test
    // created) may call the server meanwhile and must not take them.
    fake.faultsForInput.set('wind turbines', 'wrong-dimensions');
    const wrong = await post('/api/ai/embed', { text: 'wind turbines' });
    assert.equal(wrong.statusCode, 502);
    assert.equal(wrong.json().code, 'EMBEDDING_DIMENSIONS');
    assert.match(wrong.json().error, /1024 dimensions/);
    assert.ok(h.logs.lines().some((l) => l.event === 'ai.embedding_dimensions'));

    fake.faultsForInput.set('heat pumps', 'base64');
    const b64 = await post('/api/ai/embed', { text: 'heat pumps' });
    assert.equal(b64.statusCode, 502, 'a server that ignores encoding_format is refused, not mis-decoded');
    assert.equal(b64.json().code, 'INFERENCE_ERROR');
  });

  it('spec 2 AI errors: an unreachable or failing server is 503 with exactly the CIRCUIT_OPEN body; the breaker is off under NODE_ENV=test', async () => {
    const n = fake.chatCalls().length;
    fake.always = 'fail';
    try {
      for (let i = 0; i < 4; i++) {
        const r = await post('/api/ai/draft', { intent: 'x', category: 'General' });
        assert.equal(r.statusCode, 503);
        assert.deepEqual(r.json(), CIRCUIT_OPEN_BODY);
        assert.deepEqual(r.json(), { error: 'AI service temporarily unavailable', code: 'CIRCUIT_OPEN' });
      }
      assert.equal(fake.chatCalls().length, n + 4, 'no fast-fail: the breaker is disabled in test');
      fake.always = 'malformed';
      const m = await post('/api/ai/embed', { text: 'x' });
      assert.equal(m.statusCode, 502);
      assert.equal(m.json().code, 'INFERENCE_ERROR');
    } finally {
      fake.always = undefined;
    }
  });
});

describe('AI rate limit per member (decision A9)', () => {
  it('AI_RATE_LIMIT_PER_MINUTE inference-backed requests per member per minute, then 429 RATE_LIMITED with Retry-After; cache hits are free', async () => {
    const fake = await startFakeInference();
    const h = await bridge(undefined, { INFERENCE_URL: fake.url, AI_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const { jar } = await h.member('bob@example.org');
      const { jar: other } = await h.member('eve@example.org');
      const created = await h.opened.canisters.clients.governance.create_proposal({
        title: 'Garden',
        body: 'Plant a garden.',
        category: 'General',
      });
      const id = String((created as { Ok: bigint }).Ok);
      const ask = (j: Jar, url: string, payload: object) => h.request({ method: 'POST', url, payload, jar: j });
      assert.equal((await ask(jar, '/api/ai/summarize', { proposal_id: id, title: 't', body: 'b' })).statusCode, 200);
      for (let i = 0; i < 5; i++)
        assert.equal(
          (await ask(jar, '/api/ai/summarize', { proposal_id: id, title: 't', body: 'b' })).json().cached,
          true,
        );
      assert.equal((await ask(jar, '/api/ai/embed', { text: 'a' })).statusCode, 200);
      assert.equal((await ask(jar, '/api/ai/embed', { text: 'b' })).statusCode, 200);
      const limited = await ask(jar, '/api/ai/embed', { text: 'c' });
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json().code, 'RATE_LIMITED');
      assert.ok(Number(limited.headers['retry-after']) > 0);
      assert.equal((await ask(other, '/api/ai/embed', { text: 'c' })).statusCode, 200, 'per member');
      h.advance(61_000);
      assert.equal((await ask(jar, '/api/ai/embed', { text: 'c' })).statusCode, 200, 'a new minute');
    } finally {
      await h.close();
      await fake.close();
    }
  });
});

describe('AI without an inference server (INFERENCE_URL unset)', () => {
  it('health says not_configured; every AI endpoint answers 503 CIRCUIT_OPEN and nothing leaves the bridge', async () => {
    const h = await bridge();
    try {
      const health = await h.request({ method: 'GET', url: '/api/ai/health' });
      assert.deepEqual(health.json(), {
        status: 'not_configured',
        circuit: 'CLOSED',
        model_available: false,
        inference_host: '',
        default_model: 'draft-7b-q4',
      });
      const { jar } = await h.member('carol@example.org');
      for (const [url, payload] of [
        ['/api/ai/summarize', { proposal_id: '1', title: 't', body: 'b' }],
        ['/api/ai/search', { query: 'q' }],
        ['/api/ai/draft', { intent: 'i', category: 'General' }],
        ['/api/ai/embed', { text: 't' }],
      ] as const) {
        const r = await h.request({ method: 'POST', url, payload, jar });
        assert.equal(r.statusCode, 503, url);
        assert.deepEqual(r.json(), { error: 'AI service temporarily unavailable', code: 'CIRCUIT_OPEN' });
      }
      const reindex = await h.request({ method: 'POST', url: '/api/ai/admin/reindex', origin: null });
      assert.equal(reindex.statusCode, 503, 'no API_TOKEN');
    } finally {
      await h.close();
    }
  });
});
