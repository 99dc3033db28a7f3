// The price oracle (decisions O1–O15): a background poller fetches every source concurrently, aggregates,
// stores the aggregate, then publishes it in memory; requests only read memory (decision O12). Other
// modules (the price-proposal job) read `latest()`: the spec's response plus the stored record's id
// and URL, usable as a SetDomPrice proposal's source_url.
import { sql, type Kysely } from 'kysely';
import { aggregate, type Aggregate, type Confidence, type JudgedObservation } from './aggregate.ts';
import { observe, SOURCE_KINDS, type SourceConfig, type SourceKind } from './sources.ts';

/** GET /api/price/dom-usd (spec 1 "Oracle price response"). */
export interface PriceResponse {
  price_usd: number;
  timestamp: number;
  source: 'aggregate';
  sources: Array<{ name: string; price: number; weight: number }>;
  confidence: Confidence;
  stale: boolean;
}

export interface LatestPrice {
  response: PriceResponse;
  /** Id of the stored aggregate (GET /api/price/dom-usd/records/:id). */
  record_id: number;
  /** Absolute URL of that record: the source_url of a price proposal. */
  record_url: string;
}

export interface StoredAggregate {
  id: number;
  price_usd: number;
  timestamp: number;
  source: 'aggregate';
  sources: Array<{ name: string; price: number; weight: number }>;
  confidence: Confidence;
  dispersion: number;
  observations: JudgedObservation[];
}

export interface HistoryQuery {
  from: number;
  to: number;
  limit: number;
  after_id?: number | undefined;
}

export type PollOutcome =
  | { ok: true; record_id: number; aggregate: Aggregate }
  | { ok: false; reason: string; observations: JudgedObservation[] };

export interface PriceOracle {
  /** The last published aggregate with `stale` computed now; undefined before the first one. */
  latest(): LatestPrice | undefined;
  /** Polls now (joins a poll already running). The poller calls this; tests and jobs may too. */
  pollNow(): Promise<PollOutcome>;
  record(id: number): Promise<StoredAggregate | undefined>;
  history(q: HistoryQuery): Promise<StoredAggregate[]>;
  /** Loads the last stored aggregate, polls once and keeps polling every pollMs (unref'd timer). */
  start(): Promise<void>;
  /** Stops polling and aborts a poll in flight. */
  stop(): Promise<void>;
  readonly sourceCount: number;
}

export interface PriceOracleOptions {
  db: Kysely<unknown>;
  sources: SourceConfig[];
  pollMs: number;
  outlierPct: number;
  minSources: number;
  stalenessMs: number;
  now: () => number;
  /** Base of record_url (the bridge's PUBLIC_URL). */
  publicUrl: string;
  log?: { info(o: object, msg: string): void; warn(o: object, msg: string): void; error(o: object, msg: string): void };
  kinds?: Record<string, SourceKind>;
  /** Told of every poll's judged observations (the bridge's metrics: each source's age, decision B69). */
  onObservations?: (observations: JudgedObservation[]) => void;
}

interface Row {
  id: string | number;
  timestamp: string | number;
  price_usd: number;
  confidence: Confidence;
  dispersion: number;
  sources: StoredAggregate['sources'] | string;
  observations: JudgedObservation[] | string;
}

interface Tables {
  price_aggregates: Row & { created_at: Date };
}

const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

function fromRow(r: Row): StoredAggregate {
  return {
    id: Number(r.id),
    price_usd: Number(r.price_usd),
    timestamp: Number(r.timestamp),
    source: 'aggregate',
    sources: json(r.sources),
    confidence: r.confidence,
    dispersion: Number(r.dispersion),
    observations: json(r.observations),
  };
}

export function createPriceOracle(opts: PriceOracleOptions): PriceOracle {
  const db = opts.db as unknown as Kysely<Tables>;
  const kinds = opts.kinds ?? SOURCE_KINDS;
  const base = opts.publicUrl.replace(/\/+$/, '');
  let current: { stored: StoredAggregate; computedAt: number } | undefined;
  let inflight: Promise<PollOutcome> | undefined;
  let queued: Promise<PollOutcome> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const stopController = new AbortController();

  async function poll(): Promise<PollOutcome> {
    const observations = await Promise.all(opts.sources.map((s) => observe(s, opts.now, kinds, stopController.signal)));
    const now = opts.now();
    const result = aggregate(observations, { now, outlierPct: opts.outlierPct, minSources: opts.minSources });
    opts.onObservations?.(result.observations);
    if (!result.ok) {
      opts.log?.warn(
        { event: 'price.poll.no_aggregate', reason: result.reason, observations: result.observations },
        'price poll: no aggregate',
      );
      return { ok: false, reason: result.reason, observations: result.observations };
    }
    const a = result.aggregate;
    // Published only once stored: every price served has a record a proposal can cite (decision O10).
    const row = await db
      .insertInto('price_aggregates')
      .values({
        timestamp: a.timestamp,
        price_usd: a.price_usd,
        confidence: a.confidence,
        dispersion: a.dispersion,
        sources: JSON.stringify(a.sources),
        observations: JSON.stringify(result.observations),
      } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
    const stored: StoredAggregate = {
      id: Number(row.id),
      price_usd: a.price_usd,
      timestamp: a.timestamp,
      source: 'aggregate',
      sources: a.sources,
      confidence: a.confidence,
      dispersion: a.dispersion,
      observations: result.observations,
    };
    if (!current || stored.timestamp >= current.stored.timestamp) current = { stored, computedAt: now };
    return { ok: true, record_id: stored.id, aggregate: a };
  }

  /**
   * A poll that reads the sources after this call. With one under way (it may have read them before),
   * the next starts when it ends, shared by every caller meanwhile: never two at once, never stale.
   */
  const pollNow = (): Promise<PollOutcome> => {
    if (stopped) return Promise.resolve({ ok: false, reason: 'the oracle is stopped', observations: [] });
    if (inflight) {
      queued ??= inflight.then(() => {
        queued = undefined;
        return pollNow();
      });
      return queued;
    }
    inflight = poll()
      .catch((e: Error): PollOutcome => {
        opts.log?.error({ event: 'price.poll.failed', err: e.message }, 'price poll failed');
        return { ok: false, reason: `poll failed: ${e.message}`, observations: [] };
      })
      .finally(() => {
        inflight = undefined;
      });
    return inflight;
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      void pollNow().finally(schedule);
    }, opts.pollMs);
    timer.unref();
  };

  return {
    get sourceCount() {
      return opts.sources.length;
    },
    latest() {
      if (!current) return undefined;
      const s = current.stored;
      // Stale (decision O11): the last good aggregate is older than the staleness window. Its price and
      // timestamp stay (the spec types price_usd as a number; the timestamp says how old), confidence low.
      const stale = opts.now() - current.computedAt > opts.stalenessMs;
      return {
        response: {
          price_usd: s.price_usd,
          timestamp: s.timestamp,
          source: 'aggregate',
          sources: s.sources,
          confidence: stale ? 'low' : s.confidence,
          stale,
        },
        record_id: s.id,
        record_url: `${base}/api/price/dom-usd/records/${s.id}`,
      };
    },
    pollNow,
    async record(id) {
      const r = await db
        .selectFrom('price_aggregates')
        .selectAll()
        .where('id', '=', id as never)
        .executeTakeFirst();
      return r ? fromRow(r) : undefined;
    },
    async history(q) {
      let query = db
        .selectFrom('price_aggregates')
        .selectAll()
        .where('timestamp', '<', q.to as never);
      query =
        q.after_id === undefined
          ? query.where('timestamp', '>=', q.from as never)
          : query.where(sql<boolean>`(timestamp, id) > (${q.from}, ${q.after_id})`);
      const rows = await query.orderBy('timestamp').orderBy('id').limit(q.limit).execute();
      return rows.map(fromRow);
    },
    async start() {
      if (opts.sources.length === 0) {
        opts.log?.warn(
          { event: 'price.no_sources' },
          'price oracle: no PRICE_SOURCES configured; GET /api/price/dom-usd answers 503',
        );
        return;
      }
      // After a restart the last stored aggregate is served (stale once old) until the first poll.
      const last = await db
        .selectFrom('price_aggregates')
        .selectAll()
        .orderBy('timestamp', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (last && !current) current = { stored: fromRow(last), computedAt: Number(last.timestamp) * 1000 };
      void pollNow().finally(schedule);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      stopController.abort();
      await inflight;
    },
  };
}
