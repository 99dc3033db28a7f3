// Price sources (decisions O8, O9): one adapter per `kind` in a registry, so more kinds (an exchange's
// own API, a canister) are one entry each. Their configuration (the JSON list, each kind's schema) is
// read in core/price-sources.ts, which the bridge's configuration checks at start-up (decision S27).
import type { TObject } from '@sinclair/typebox';
import {
  FixedSource,
  JsonHttpSource,
  type FixedSourceConfig,
  type JsonHttpSourceConfig,
  type SourceConfig,
} from '../../core/price-sources.ts';
import type { Observation } from './aggregate.ts';

export {
  parsePriceSources,
  type FixedSourceConfig,
  type JsonHttpSourceConfig,
  type SourceConfig,
} from '../../core/price-sources.ts';

/** What a source reports in one fetch: the price as read (validated by the aggregate) and its time. */
export interface Reading {
  price: unknown;
  /** Unix ms of the value; undefined = the fetch time. */
  observedAt?: number | null;
}

export interface SourceKind {
  schema: TObject;
  read(source: SourceConfig, signal: AbortSignal): Promise<Reading>;
}

/** Bodies larger than this are refused (a price is a few bytes; this bounds memory per poll). */
export const MAX_BODY_BYTES = 256 * 1024;

export class SourceError extends Error {}

/** RFC 6901: "" is the whole document; ~1 is "/", ~0 is "~"; array members by decimal index. */
export function resolvePointer(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  let cur: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      cur = cur[Number(token)];
    } else if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, token))
      cur = (cur as Record<string, unknown>)[token];
    else return undefined;
  }
  return cur;
}

/** Many exchanges send prices as decimal strings ("0.1234"): accepted when strictly numeric (decision O9). */
export function numericValue(v: unknown): unknown {
  if (typeof v === 'string' && /^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(v.trim())) return Number(v.trim());
  return v;
}

/** Unix seconds (number or numeric string) or ISO 8601 with a date and a time; anything else: null. */
export function timestampValue(v: unknown): number | null {
  const n = numericValue(v);
  if (typeof n === 'number') return Number.isFinite(n) && n > 0 ? n * 1000 : null;
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(v)) {
    const t = Date.parse(v);
    return Number.isNaN(t) ? null : t;
  }
  return null;
}

/** Reads at most MAX_BODY_BYTES, also when the length is not declared (chunked). */
async function readBounded(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new SourceError(`body larger than ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function readJsonHttp(source: SourceConfig, signal: AbortSignal): Promise<Reading> {
  const s = source as JsonHttpSourceConfig;
  const res = await fetch(s.url, { signal, headers: { accept: 'application/json' }, redirect: 'error' });
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw new SourceError(`HTTP ${res.status}`);
  }
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) {
    await res.body?.cancel().catch(() => undefined);
    throw new SourceError(`body larger than ${MAX_BODY_BYTES} bytes`);
  }
  const text = await readBounded(res);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new SourceError('malformed JSON');
  }
  const price = resolvePointer(doc, s.price_pointer);
  if (price === undefined) throw new SourceError(`nothing at ${s.price_pointer}`);
  if (s.timestamp_pointer === undefined) return { price: numericValue(price) };
  return { price: numericValue(price), observedAt: timestampValue(resolvePointer(doc, s.timestamp_pointer)) };
}

export const SOURCE_KINDS: Record<string, SourceKind> = {
  'json-http': { schema: JsonHttpSource, read: readJsonHttp },
  fixed: { schema: FixedSource, read: async (s) => ({ price: (s as FixedSourceConfig).price }) },
};

/** One fetch of one source, never throwing: failures become an observation with `error`. */
export async function observe(
  source: SourceConfig,
  now: () => number,
  kinds: Record<string, SourceKind> = SOURCE_KINDS,
  stop?: AbortSignal,
): Promise<Observation> {
  const base = { name: source.name, weight: source.weight, maxAgeMs: source.max_age_seconds * 1000 };
  try {
    const timeout = AbortSignal.timeout(source.timeout_ms);
    const reading = await kinds[source.kind]!.read(source, stop ? AbortSignal.any([timeout, stop]) : timeout);
    return { ...base, price: reading.price, observedAt: reading.observedAt === undefined ? now() : reading.observedAt };
  } catch (e) {
    const err = e as Error;
    const message =
      err.name === 'TimeoutError'
        ? `timeout after ${source.timeout_ms} ms`
        : err instanceof SourceError
          ? err.message
          : `fetch failed: ${(err.cause as Error | undefined)?.message ?? err.message}`;
    return { ...base, price: null, observedAt: null, error: message };
  }
}
