// The price aggregate (decisions O1–O6): pure functions, no I/O. Invalid and too-old
// observations are dropped, the weighted median is taken, outliers further than outlierPct from it
// are rejected and the median recomputed over what remains; too few sources means no aggregate.

export type Confidence = 'high' | 'medium' | 'low';

/** What one source said in one poll. `price` is whatever the adapter read (validated here). */
export interface Observation {
  name: string;
  weight: number;
  /** Unix milliseconds the value is from: the source's own timestamp, or the fetch time. */
  observedAt: number | null;
  maxAgeMs: number;
  price: unknown;
  /** Set when the fetch itself failed (timeout, HTTP status, malformed body…). */
  error?: string;
}

export type Verdict = 'used' | 'failed' | 'invalid' | 'too_old' | 'outlier';

export interface JudgedObservation {
  name: string;
  weight: number;
  price: number | null;
  observed_at: number | null;
  status: Verdict;
  error?: string;
}

export interface AggregateOptions {
  now: number;
  /** Reject prices further than this percentage from the weighted median (decision O3). */
  outlierPct: number;
  /** Fewer agreeing sources than this: no aggregate (decision O4). */
  minSources: number;
}

export interface Aggregate {
  price_usd: number;
  /** Unix seconds of the computation (decision O7). */
  timestamp: number;
  sources: Array<{ name: string; price: number; weight: number }>;
  confidence: Confidence;
  /** Weighted median absolute deviation relative to the price (decision O5). */
  dispersion: number;
}

export type AggregateResult =
  | { ok: true; aggregate: Aggregate; observations: JudgedObservation[] }
  | { ok: false; reason: string; observations: JudgedObservation[] };

/** Observations timestamped this far in the future are invalid (clock skew allowance). */
export const FUTURE_SKEW_MS = 60_000;
/** Confidence thresholds (decision O5). */
export const CONFIDENCE = { highMaxDispersion: 0.005, highMinSources: 3, mediumMaxDispersion: 0.02 } as const;

interface Weighted {
  price: number;
  weight: number;
  name: string;
}

/**
 * Weighted median: the price at which half the total weight is reached, walking prices upwards.
 * Tie rule (decision O2): when the weight at or below a price is exactly half the total, the median
 * is the midpoint of that price and the next one, so equal weights give the textbook median.
 */
export function weightedMedian(items: ReadonlyArray<{ price: number; weight: number; name?: string }>): number {
  if (items.length === 0) throw new Error('weighted median of nothing');
  const sorted = [...items].sort(
    (a, b) => a.price - b.price || (a.name ?? '').localeCompare(b.name ?? '') || a.weight - b.weight,
  );
  const total = sorted.reduce((s, x) => s + x.weight, 0);
  const half = total / 2;
  const epsilon = total * 1e-12;
  let cumulative = 0;
  for (let i = 0; i < sorted.length; i++) {
    cumulative += sorted[i]!.weight;
    if (Math.abs(cumulative - half) <= epsilon && i + 1 < sorted.length)
      return (sorted[i]!.price + sorted[i + 1]!.price) / 2;
    if (cumulative > half) return sorted[i]!.price;
  }
  return sorted[sorted.length - 1]!.price;
}

export function validPrice(p: unknown): number | null {
  return typeof p === 'number' && Number.isFinite(p) && p > 0 ? p : null;
}

export function confidenceOf(dispersion: number, sources: number): Confidence {
  if (dispersion <= CONFIDENCE.highMaxDispersion && sources >= CONFIDENCE.highMinSources) return 'high';
  if (dispersion <= CONFIDENCE.mediumMaxDispersion) return 'medium';
  return 'low';
}

export function aggregate(observations: readonly Observation[], opts: AggregateOptions): AggregateResult {
  const judged: JudgedObservation[] = observations.map((o) => {
    const price = validPrice(o.price);
    const base = { name: o.name, weight: o.weight, price, observed_at: o.observedAt };
    if (o.error !== undefined) return { ...base, price: null, status: 'failed' as const, error: o.error };
    if (price === null)
      return {
        ...base,
        status: 'invalid' as const,
        error: `not a positive finite price: ${JSON.stringify(o.price) ?? String(o.price)}`.slice(0, 200),
      };
    if (o.observedAt === null || !Number.isFinite(o.observedAt))
      return { ...base, status: 'invalid' as const, error: 'no valid timestamp' };
    if (o.observedAt > opts.now + FUTURE_SKEW_MS)
      return { ...base, status: 'invalid' as const, error: 'timestamp in the future' };
    if (opts.now - o.observedAt > o.maxAgeMs) return { ...base, status: 'too_old' as const };
    return { ...base, status: 'used' as const };
  });
  const fresh = (): Weighted[] =>
    judged.filter((j) => j.status === 'used').map((j) => ({ price: j.price!, weight: j.weight, name: j.name }));
  let kept = fresh();
  if (kept.length === 0) return { ok: false, reason: 'no fresh valid observation', observations: judged };
  const first = weightedMedian(kept);
  for (const j of judged) {
    if (j.status === 'used' && Math.abs(j.price! - first) / first > opts.outlierPct / 100) j.status = 'outlier';
  }
  kept = fresh();
  if (kept.length < opts.minSources) {
    return {
      ok: false,
      reason: `${kept.length} agreeing fresh source(s), at least ${opts.minSources} required`,
      observations: judged,
    };
  }
  const price = weightedMedian(kept);
  const dispersion =
    weightedMedian(kept.map((k) => ({ price: Math.abs(k.price - price), weight: k.weight, name: k.name }))) / price;
  return {
    ok: true,
    aggregate: {
      price_usd: price,
      timestamp: Math.floor(opts.now / 1000),
      sources: kept.map((k) => ({ name: k.name, price: k.price, weight: k.weight })),
      confidence: confidenceOf(dispersion, kept.length),
      dispersion,
    },
    observations: judged,
  };
}
