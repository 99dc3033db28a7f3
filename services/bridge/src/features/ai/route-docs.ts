// What the OpenAPI document says of this feature's routes (decision B124): each route's schema spreads its
// doc through routeSchema() beside the handler.
import { Type } from '@sinclair/typebox';
import { AiErrorBody, Json, type RouteDoc } from '../../core/http/route-doc.ts';

const AiError = (codes: string) => ({ description: codes, ...AiErrorBody });
const AI_COMMON = {
  401: AiError('UNAUTHORIZED: sign in first (or SESSION_REQUIRED: a bearer token without the cookie)'),
  403: AiError('CSRF_REJECTED: the Origin (or Referer) is not a configured front end (decision B8)'),
  422: AiError('VALIDATION_ERROR'),
  429: AiError('RATE_LIMITED, with Retry-After (AI_RATE_LIMIT_PER_MINUTE per member; decision A9)'),
  502: AiError(
    'INFERENCE_ERROR (an unusable model answer), EMBEDDING_DIMENSIONS (the model returned another size than 4096)',
  ),
  503: AiError(
    'CIRCUIT_OPEN: `{"error": "AI service temporarily unavailable", "code": "CIRCUIT_OPEN"}` (inference unreachable, circuit open, or INFERENCE_URL unset); AI_BUSY (queue full)',
  ),
};

export const getAiHealthDoc: RouteDoc = {
  operationId: 'getAiHealth',
  description: "The inference server's state as the bridge sees it; no credential needed.",
  security: 'public',
  summary: 'Inference health: status, circuit, model_available, inference_host, default_model (spec 2)',
  tag: 'ai',
  responses: {
    200: Json(
      'health',
      Type.Object({
        status: Type.String({ description: 'ok, degraded, unavailable or not_configured' }),
        circuit: Type.String({ description: 'CLOSED, OPEN or HALF-OPEN' }),
        model_available: Type.Boolean(),
        inference_host: Type.String(),
        default_model: Type.String(),
      }),
    ),
  },
};

export const summarizeProposalDoc: RouteDoc = {
  operationId: 'summarizeProposal',
  description: 'Session required; a cached summary is answered without calling the model (decision A2).',
  summary: 'A 1–3 sentence summary of a proposal, cached by proposal_id (spec 2; decision A2)',
  tag: 'ai',
  security: 'session',
  responses: {
    200: Json(
      'the summary',
      Type.Object({
        summary: Type.String(),
        cached: Type.Boolean(),
        model: Type.String(),
        latency_ms: Type.Number({ description: '0 when cached' }),
      }),
    ),
    ...AI_COMMON,
  },
};

export const searchProposalsDoc: RouteDoc = {
  operationId: 'searchProposals',
  description: 'Session required; ranks proposals by cosine similarity of their embeddings (decisions A13–A16).',
  summary: 'Semantic search of proposals by cosine similarity (spec 2; decisions A13–A16)',
  tag: 'ai',
  security: 'session',
  responses: {
    200: Json(
      'results best first, score ≥ threshold',
      Type.Object({
        results: Type.Array(
          Type.Object({
            proposal_id: Type.String(),
            title: Type.String(),
            score: Type.Number(),
            excerpt: Type.String(),
          }),
        ),
        query_embedding_ms: Type.Number(),
        search_ms: Type.Number(),
      }),
    ),
    ...AI_COMMON,
  },
};

export const draftProposalDoc: RouteDoc = {
  operationId: 'draftProposal',
  description:
    "Session required; the model's structured output is validated and repaired, with one retry (decisions A10, A18).",
  summary:
    'A proposal draft from an intent: structured output, validated and repaired, one retry (spec 2; decisions A10, A18)',
  tag: 'ai',
  security: 'session',
  responses: {
    200: Json(
      'the draft',
      Type.Object({
        draft: Type.Object({
          title: Type.String(),
          body: Type.String({ description: 'Markdown' }),
          suggested_budget: Type.Union([Type.Number(), Type.Null()], {
            description: 'USD; null when no money is needed or the model gave no amount readable as USD (decision A18)',
          }),
          tags: Type.Array(Type.String()),
        }),
        model: Type.String(),
        latency_ms: Type.Number(),
      }),
    ),
    ...AI_COMMON,
    502: AiError('DRAFT_MALFORMED (two unusable answers), INFERENCE_ERROR'),
  },
};

export const embedTextDoc: RouteDoc = {
  operationId: 'embedText',
  description: 'Session required; the embedding of the text as the inference server computes it.',
  summary: 'The 4096-dimension embedding of a text (spec 2)',
  tag: 'ai',
  security: 'session',
  responses: {
    200: Json(
      'the embedding',
      Type.Object({ embedding: Type.Array(Type.Number()), dimensions: Type.Literal(4096), model: Type.String() }),
    ),
    ...AI_COMMON,
  },
};

export const reindexSummariesDoc: RouteDoc = {
  operationId: 'reindexSummaries',
  description: 'X-API-Token required (spec 2 Authentication rule 3); unset API_TOKEN, the route answers 503.',
  summary: 'Run the summary reindex job now (spec 2; decision A8)',
  tag: 'ai',
  security: 'apiToken',
  responses: {
    200: Json(
      'the run finished within a second',
      Type.Object({
        job: Type.String(),
        run_id: Type.String(),
        status: Type.String(),
        detail: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
      }),
    ),
    202: Json(
      'the run goes on; see GET /api/admin/jobs/runs?job=ai:reindex',
      Type.Object({ job: Type.String(), status: Type.Literal('running') }),
    ),
    401: AiError('UNAUTHORIZED: no or wrong X-API-Token'),
    409: AiError('REINDEX_RUNNING'),
    503: AiError('NOT_CONFIGURED (API_TOKEN unset) or CIRCUIT_OPEN'),
  },
};
