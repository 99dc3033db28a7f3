// The price oracle's HTTP face (decisions O11–O13; spec 1 "Oracle price response"): the current aggregate from
// memory, the stored history for charts, and one stored aggregate (what a proposal's source_url cites).
// Registered by app.ts with the oracle it built; starts polling when the app is ready, stops on close.
import { Type } from '@sinclair/typebox';
import { HttpError, sendError } from '../../core/http/errors.ts';
import type { PriceOracle, StoredAggregate } from './oracle.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { StrictErrorBody } from '../../core/http/route-doc.ts';

export interface PriceOracleRoutesOptions {
  oracle: PriceOracle;
  /** Retry-After of the 503 before the first aggregate: the poll interval in seconds. */
  retryAfterSeconds: number;
  now: () => number;
}

/** History page size cap and default (decision O13). */
export const HISTORY_MAX_LIMIT = 1000;
export const HISTORY_DEFAULT_LIMIT = 200;

const SourceItem = Type.Object({ name: Type.String(), price: Type.Number(), weight: Type.Number() });
const Confidence = Type.Union([Type.Literal('high'), Type.Literal('medium'), Type.Literal('low')], {
  description: 'from the weighted median absolute deviation and the number of sources (decision O5)',
});
const PriceBody = Type.Object({
  price_usd: Type.Number({
    description: 'weighted median of the agreeing fresh sources; when stale, the last good aggregate (decision O11)',
  }),
  timestamp: Type.Integer({ description: 'Unix seconds the aggregate was computed' }),
  source: Type.Literal('aggregate'),
  sources: Type.Array(SourceItem, { description: 'the sources used' }),
  confidence: Confidence,
  stale: Type.Boolean({ description: 'true when no aggregate was computed within PRICE_STALENESS_SECONDS' }),
});
const Observation = Type.Object({
  name: Type.String(),
  weight: Type.Number(),
  price: Type.Union([Type.Number(), Type.Null()]),
  observed_at: Type.Union([Type.Number({ description: 'Unix ms' }), Type.Null()]),
  status: Type.Union(['used', 'failed', 'invalid', 'too_old', 'outlier'].map((s) => Type.Literal(s))),
  error: Type.Optional(Type.String()),
});
const Record_ = Type.Object({
  id: Type.Integer(),
  price_usd: Type.Number(),
  timestamp: Type.Integer({ description: 'Unix seconds' }),
  source: Type.Literal('aggregate'),
  sources: Type.Array(SourceItem),
  confidence: Confidence,
  dispersion: Type.Number({ description: 'weighted median absolute deviation / price' }),
  observations: Type.Array(Observation, { description: 'every source of that poll with its verdict' }),
});
const HistoryItem = Type.Object({
  id: Type.Integer(),
  price_usd: Type.Number(),
  timestamp: Type.Integer(),
  confidence: Confidence,
  sources: Type.Array(SourceItem),
});
const HistoryQuery = Type.Object({
  from: Type.Optional(
    Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Unix seconds, inclusive (default 0)' }),
  ),
  to: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Unix seconds, exclusive (default: now + 1)',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: HISTORY_MAX_LIMIT,
      description: `page size (default ${HISTORY_DEFAULT_LIMIT}, at most ${HISTORY_MAX_LIMIT})`,
    }),
  ),
  after_id: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'cursor: with `from`, continues after this record (use `next`)',
    }),
  ),
});

const UNAVAILABLE =
  '503: PRICE_UNAVAILABLE before the first aggregate (no sources configured, or none agreed yet; decision O12), with Retry-After';

export default async function priceOracleRoutes(app: BridgeApp, opts: PriceOracleRoutesOptions): Promise<void> {
  const { oracle } = opts;
  app.addHook('onReady', () => oracle.start());
  app.addHook('onClose', () => oracle.stop());

  // The body is serialized once per (record, stale) and reused: a memory read (decision O12).
  let cached: { etag: string; body: string } | undefined;
  app.get(
    '/api/price/dom-usd',
    {
      schema: {
        summary: 'The DOM/USD price aggregate (spec 1 Oracle price response); never fetches on the request path',
        operationId: 'getDomUsdPrice',
        description: 'Public; a memory read of the last aggregate the oracle stored, with an ETag per aggregate.',
        security: [],
        tags: ['price'],
        response: {
          200: { description: 'the last aggregate; ETag per aggregate, Cache-Control: no-cache', ...PriceBody },
          304: { description: 'If-None-Match matched' },
          503: { description: UNAVAILABLE, ...StrictErrorBody },
        },
      },
    },
    async (req, reply) => {
      const latest = oracle.latest();
      if (!latest) {
        return sendError(
          req,
          reply,
          new HttpError(
            503,
            'PRICE_UNAVAILABLE',
            oracle.sourceCount === 0 ? 'no price sources are configured' : 'no price aggregate yet; try again shortly',
            {
              'retry-after': String(opts.retryAfterSeconds),
              'cache-control': 'no-store',
            },
          ),
        );
      }
      const etag = `W/"${latest.record_id}-${latest.response.stale ? 's' : 'f'}"`;
      if (cached?.etag !== etag) cached = { etag, body: JSON.stringify(latest.response) };
      reply.header('etag', etag).header('cache-control', 'no-cache');
      const inm = req.headers['if-none-match'];
      if (inm !== undefined && (inm === etag || inm.split(',').some((t) => t.trim() === etag)))
        return reply.code(304).send();
      return reply.type('application/json; charset=utf-8').send(cached.body);
    },
  );

  app.get(
    '/api/price/dom-usd/history',
    {
      schema: {
        summary: 'Stored aggregates for charts, oldest first, keyset-paged (decision O13)',
        operationId: 'listDomUsdPriceHistory',
        description: 'Public; the stored aggregates, paged by the `next` URL.',
        security: [],
        tags: ['price'],
        querystring: HistoryQuery,
        response: {
          200: {
            description: 'a page; `next` is the URL of the following page, null on the last',
            ...Type.Object({ items: Type.Array(HistoryItem), next: Type.Union([Type.String(), Type.Null()]) }),
          },
          400: { description: 'VALIDATION_ERROR', ...StrictErrorBody },
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const from = q.from ?? 0;
      const to = q.to ?? Math.floor(opts.now() / 1000) + 1;
      const limit = q.limit ?? HISTORY_DEFAULT_LIMIT;
      if (to < from)
        return sendError(req, reply, new HttpError(400, 'VALIDATION_ERROR', 'querystring/to must not be before from'));
      const rows: StoredAggregate[] = await oracle.history({ from, to, limit: limit + 1, after_id: q.after_id });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const next =
        rows.length > limit && last
          ? `/api/price/dom-usd/history?from=${last.timestamp}&to=${to}&limit=${limit}&after_id=${last.id}`
          : null;
      reply.header('cache-control', 'no-cache');
      return {
        items: page.map((r) => ({
          id: r.id,
          price_usd: r.price_usd,
          timestamp: r.timestamp,
          confidence: r.confidence,
          sources: r.sources,
        })),
        next,
      };
    },
  );

  app.get(
    '/api/price/dom-usd/records/:id',
    {
      schema: {
        summary: 'One stored aggregate with every observation of its poll: the source_url of a price proposal',
        operationId: 'getDomUsdPriceRecord',
        description: 'Public; an immutable record, the source_url a price proposal cites.',
        security: [],
        tags: ['price'],
        params: Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }),
        response: {
          200: { description: 'the record (immutable)', ...Record_ },
          400: { description: 'VALIDATION_ERROR', ...StrictErrorBody },
          404: { description: 'PRICE_RECORD_NOT_FOUND', ...StrictErrorBody },
        },
      },
    },
    async (req, reply) => {
      const { id } = req.params;
      const record = await oracle.record(id);
      if (!record) return sendError(req, reply, new HttpError(404, 'PRICE_RECORD_NOT_FOUND', `no price record ${id}`));
      reply.header('cache-control', 'public, max-age=31536000, immutable');
      return record;
    },
  );
}
