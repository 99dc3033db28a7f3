// The AI endpoints (spec 2 "AI endpoint shapes", decisions A1–A18): summaries, semantic search, drafts and
// embeddings through the bridge, which alone talks to the inference server. Every endpoint but
// health needs the session (401 UNAUTHORIZED). Errors of this scope have the spec's AI shape
// `{error: <message>, code}` (decision A3); an unreachable server or open circuit is exactly
// `{"error": "AI service temporarily unavailable", "code": "CIRCUIT_OPEN"}`.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { CanisterClients } from '@domdao/canisters';
import type { Session } from '../../core/auth/sessions.ts';
import type { Throttle } from '../../core/auth/brute-force.ts';
import type { Db } from '../../core/db/schema.ts';
import { frameworkClientError, HttpError } from '../../core/http/errors.ts';
import type { EventLog } from '../../core/events/bus.ts';
import { JobBusyError } from '../../core/jobs/types.ts';
import type { JobRunner } from '../../core/jobs/runner.ts';
import type { Alerts } from './alerts.ts';
import { CircuitOpenError } from './circuit.ts';
import { DRAFT_RESPONSE_FORMAT, draftPrompt, parseDraft, type Draft } from './draft.ts';
import { createEmbeddingSweep } from './embedding-sweep.ts';
import { InferenceError } from './inference-client.ts';
import { EMBEDDING_DIMENSIONS, WrongDimensionsError, type Inference } from './inference.ts';
import { QueueFullError } from './model-queue.ts';
import { allProposals } from './proposals.ts';
import { createSummaries } from './summaries.ts';
import { createVectorStore } from './vector-store.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { API_TOKEN_ACTOR, type AuditRecorder } from '../../core/audit/log.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import type { ErrorCode } from '../../core/http/error-codes.ts';
import {
  getAiHealthDoc,
  summarizeProposalDoc,
  searchProposalsDoc,
  draftProposalDoc,
  embedTextDoc,
  reindexSummariesDoc,
} from './route-docs.ts';

type Governance = Pick<CanisterClients['governance'], 'get_proposal' | 'list_proposals'>;

export interface AiOptions {
  inference: Inference;
  /** Cross-site rule and the session (401 UNAUTHORIZED). */
  requireSession(req: FastifyRequest): Promise<Session>;
  throttle: Throttle;
  /** Inference-backed requests per member per minute (decision A9). */
  ratePerMinute: number;
  governance: Governance;
  db: Db;
  cacheTtlMs: number;
  now(): number;
  alerts: Alerts;
  /** X-API-Token of POST /api/ai/admin/reindex; unset = 503. */
  apiToken: string | undefined;
  /** A reindex an X-API-Token holder triggers is audited (decision B61). */
  audit: AuditRecorder;
  jobs: JobRunner;
  events: EventLog;
  /** Proposal categories a draft may be asked for. */
  categories: readonly string[];
}

export const CIRCUIT_OPEN_BODY = { error: 'AI service temporarily unavailable', code: 'CIRCUIT_OPEN' } as const;
/** Decision A8: one nightly summary reindex at 03:30 UTC, once across instances (jobs seam). */
export const REINDEX_JOB = 'ai:reindex';
export const REINDEX_EVERY_MS = 86_400_000;
export const REINDEX_OFFSET_MS = 3.5 * 3_600_000;
/** Decision A17: the embedding sweep catching proposals the ProposalCreated kick missed. */
export const EMBED_SWEEP_JOB = 'ai:embed-sweep';
export const EMBED_SWEEP_EVERY_MS = 10 * 60_000;
/** Decision A9: bodies are bounded (a proposal body is at most 50,000 characters). */
export const AI_BODY_LIMIT = 64 * 1024;

const ID = Type.String({ pattern: '^[0-9]{1,20}$', description: 'proposal id (decimal nat64)' });
export const SummarizeBody = Type.Object(
  { proposal_id: ID, title: Type.String({ maxLength: 200 }), body: Type.String({ minLength: 1, maxLength: 50_000 }) },
  { additionalProperties: false },
);
export const SearchBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 2_000 }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
    threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 0.75 })),
  },
  { additionalProperties: false },
);
export const DraftBody = Type.Object(
  {
    intent: Type.String({ minLength: 1, maxLength: 4_000 }),
    category: Type.String({ minLength: 1, maxLength: 64 }),
    max_tokens: Type.Optional(Type.Integer({ minimum: 64, maximum: 4_096, default: 1_024 })),
  },
  { additionalProperties: false },
);
export const EmbedBody = Type.Object(
  { text: Type.String({ minLength: 1, maxLength: 20_000 }) },
  { additionalProperties: false },
);

const aiError = (
  reply: FastifyReply,
  status: number,
  code: ErrorCode,
  error: string,
  headers: Record<string, string> = {},
) => {
  for (const [k, v] of Object.entries(headers)) reply.header(k, v);
  return reply.code(status).send({ error, code });
};

function nat64(id: string): bigint | undefined {
  const n = BigInt(id);
  return n > 0xffff_ffff_ffff_ffffn ? undefined : n;
}

export default async function aiRoutes(app: BridgeApp, o: AiOptions): Promise<void> {
  const summaries = createSummaries({ db: o.db, inference: o.inference, ttlMs: o.cacheTtlMs, now: o.now });
  const store = createVectorStore(o.db);
  const sweep = createEmbeddingSweep({
    governance: o.governance,
    inference: o.inference,
    store,
    now: o.now,
    log: app.log,
  });

  // New proposals are embedded asynchronously (spec 2): the event only kicks the sweep, which works
  // outside the delivery transaction (an inference call must not hold a database transaction open).
  o.events.subscribe('ai:embed', ['ProposalCreated'], async () => sweep.kick());
  o.jobs.define({
    name: EMBED_SWEEP_JOB,
    everyMs: EMBED_SWEEP_EVERY_MS,
    run: async (ctx) => {
      if (!o.inference.configured) return { outcome: 'skipped', detail: { reason: 'INFERENCE_URL is not set' } };
      return { detail: { ...(await sweep.sweep(ctx.signal)) } };
    },
  });
  o.jobs.define({
    name: REINDEX_JOB,
    everyMs: REINDEX_EVERY_MS,
    offsetMs: REINDEX_OFFSET_MS,
    run: async (ctx) => {
      if (!o.inference.configured) return { outcome: 'skipped', detail: { reason: 'INFERENCE_URL is not set' } };
      let summarised = 0;
      let current = 0;
      for await (const page of allProposals(o.governance, ctx.signal)) {
        for (const p of page) {
          if (ctx.signal.aborted) break;
          if (await summaries.lookup(p)) current++;
          else {
            await summaries.forProposal(p);
            summarised++;
          }
        }
      }
      const embeddings = await sweep.sweep(ctx.signal);
      return { detail: { summarised, current, embedded: embeddings.embedded } };
    },
  });
  app.addHook('onClose', async () => sweep.idle());

  app.setErrorHandler((err: FastifyError | Error, req, reply) => {
    if (err instanceof CircuitOpenError) return reply.code(503).header('retry-after', '30').send(CIRCUIT_OPEN_BODY);
    if (err instanceof InferenceError) {
      if (err.kind === 'unavailable') return reply.code(503).header('retry-after', '30').send(CIRCUIT_OPEN_BODY);
      req.log.warn(
        { event: 'ai.inference_bad_answer', kind: err.kind, err: err.message },
        'the inference server gave an unusable answer',
      );
      return aiError(reply, 502, 'INFERENCE_ERROR', 'the AI model gave an unusable answer; try again');
    }
    if (err instanceof WrongDimensionsError) {
      req.log.error({ event: 'ai.embedding_dimensions', got: err.got, model: err.model }, err.message);
      return aiError(reply, 502, 'EMBEDDING_DIMENSIONS', err.message);
    }
    if (err instanceof QueueFullError)
      return aiError(reply, 503, 'AI_BUSY', 'the AI service is busy; try again shortly', { 'retry-after': '10' });
    if (err instanceof HttpError) return aiError(reply, err.status, err.code, err.message, err.headers);
    const fe = err as FastifyError;
    if (fe.statusCode !== undefined && fe.statusCode >= 400 && fe.statusCode < 500) {
      // A body that is not JSON is a validation failure like any other here: 422 (decisions A3, B55).
      const e = frameworkClientError(fe);
      return aiError(reply, e.status === 400 ? 422 : e.status, e.code, e.message);
    }
    throw err;
  });

  /** Session first (401 before 422), then the body (422 VALIDATION_ERROR, spec 2 AI errors). */
  const member = async (req: FastifyRequest): Promise<Session> => {
    const s = await o.requireSession(req);
    const v = req.validationError;
    if (v)
      throw new HttpError(
        422,
        'VALIDATION_ERROR',
        `${v.validationContext ?? 'body'}${v.message.replace(/^(body|params|querystring)/, '')}`,
      );
    return s;
  };
  /** Decision A9: inference-backed requests per member per minute; cache hits are free. */
  const spend = async (s: Session) => {
    const wait = await o.throttle.reserve([{ key: `ai:${s.user_id}`, limit: o.ratePerMinute, windowMs: 60_000 }]);
    if (wait > 0)
      throw new HttpError(429, 'RATE_LIMITED', `too many AI requests; try again in ${wait} seconds`, {
        'retry-after': String(wait),
      });
  };
  const needInference = () => {
    if (!o.inference.configured) throw new CircuitOpenError();
  };
  const route = { bodyLimit: AI_BODY_LIMIT, attachValidation: true } as const;

  app.get('/api/ai/health', { schema: routeSchema(getAiHealthDoc) }, async () => o.inference.health());

  app.post(
    '/api/ai/summarize',
    { ...route, schema: { ...routeSchema(summarizeProposalDoc), body: SummarizeBody } },
    async (req) => {
      const s = await member(req);
      const b = req.body;
      const id = nat64(b.proposal_id);
      if (id === undefined) throw new HttpError(422, 'VALIDATION_ERROR', 'proposal_id: out of range (nat64)');
      needInference();
      const stored = await o.governance.get_proposal(id);
      if (stored) {
        const p = { id: b.proposal_id, title: stored.title, body: stored.body };
        const hit = await summaries.lookup(p);
        o.alerts.summaryLookup(hit !== undefined);
        if (hit) return hit;
        await spend(s);
        return summaries.forProposal(p);
      }
      // Not (yet) a proposal on the canister: summarised as posted, never cached (decision A2).
      await spend(s);
      return summaries.uncached(b.title, b.body);
    },
  );

  app.post(
    '/api/ai/draft',
    { ...route, schema: { ...routeSchema(draftProposalDoc), body: DraftBody } },
    async (req) => {
      const s = await member(req);
      const b = req.body;
      if (!o.categories.includes(b.category))
        throw new HttpError(422, 'VALIDATION_ERROR', `category: one of ${o.categories.join(', ')}`);
      needInference();
      await spend(s);
      // Decision A10: structured output, checked again; a malformed answer is retried once.
      let problem = '';
      let latency = 0;
      for (let attempt = 1; attempt <= 2; attempt++) {
        const r = await o.inference.chat(
          {
            messages: draftPrompt(b.intent, b.category),
            max_tokens: b.max_tokens ?? 1024,
            temperature: 0.4,
            response_format: DRAFT_RESPONSE_FORMAT,
          },
          'draft',
        );
        latency += r.latency_ms;
        const parsed = parseDraft(r.content);
        if ('draft' in parsed) {
          if (parsed.repaired.length > 0)
            req.log.info(
              { event: 'ai.draft_repaired', attempt, fields: parsed.repaired },
              "the model's draft was repaired (decision A18)",
            );
          return { draft: parsed.draft satisfies Draft, model: r.model, latency_ms: latency };
        }
        problem = parsed.problem;
        req.log.warn({ event: 'ai.draft_malformed', attempt, problem }, 'the model returned a malformed draft');
      }
      throw new HttpError(
        502,
        'DRAFT_MALFORMED',
        `the AI model did not return a valid draft twice (${problem}); try again or rephrase the intent`,
      );
    },
  );

  app.post('/api/ai/embed', { ...route, schema: { ...routeSchema(embedTextDoc), body: EmbedBody } }, async (req) => {
    const s = await member(req);
    const b = req.body;
    needInference();
    await spend(s);
    const r = await o.inference.embed([b.text], 'embed');
    return { embedding: r.embeddings[0]!, dimensions: EMBEDDING_DIMENSIONS, model: r.model };
  });

  app.post(
    '/api/ai/search',
    { ...route, schema: { ...routeSchema(searchProposalsDoc), body: SearchBody } },
    async (req) => {
      const s = await member(req);
      const b = req.body;
      needInference();
      await spend(s);
      const q = await o.inference.embed([b.query], 'search');
      const t0 = performance.now();
      const results = await store.search(q.embeddings[0]!, b.limit ?? 10, b.threshold ?? 0.75);
      return { results, query_embedding_ms: q.latency_ms, search_ms: Math.round((performance.now() - t0) * 10) / 10 };
    },
  );

  app.post('/api/ai/admin/reindex', { schema: routeSchema(reindexSummariesDoc) }, async (req, reply) => {
    const token = req.headers['x-api-token'];
    if (!o.apiToken) throw new HttpError(503, 'NOT_CONFIGURED', 'API_TOKEN is not set: the reindex endpoint is off');
    if (typeof token !== 'string' || !safeEqual(token, o.apiToken))
      throw new HttpError(401, 'UNAUTHORIZED', 'a valid X-API-Token header is required');
    needInference();
    // Decision A8: the same durable job as the nightly run; answered when it finishes within a
    // second, else 202 (its run is at GET /api/admin/jobs/runs?job=ai:reindex).
    const run = o.jobs.runNow(REINDEX_JOB, { waitMs: 0 });
    run.catch(() => undefined);
    const triggered = (outcome: 'success' | 'failure', detail: Record<string, string>) =>
      o.audit.record(req, { event: 'ai.reindex_triggered', actor: API_TOKEN_ACTOR, outcome, detail });
    const first = await Promise.race([
      run.then((r) => ({ r })),
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 1000)),
    ]).catch(async (e: unknown) => {
      if (e instanceof JobBusyError) {
        await triggered('failure', { status: 'busy' });
        throw new HttpError(409, 'REINDEX_RUNNING', 'a reindex is already running');
      }
      throw e;
    });
    await triggered(first?.r.status === 'failed' ? 'failure' : 'success', {
      status: first ? first.r.status : 'running',
      ...(first && { run_id: first.r.id }),
    });
    if (first)
      return reply
        .code(200)
        .send({ job: REINDEX_JOB, run_id: first.r.id, status: first.r.status, detail: first.r.detail ?? null });
    return reply.code(202).send({ job: REINDEX_JOB, status: 'running' });
  });
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
