// Price sources (decisions O8, O9): configured as a JSON list (PRICE_SOURCES, or a file named
// by PRICE_SOURCES_FILE), validated at start-up with TypeBox, one adapter per `kind` in a registry so
// more kinds (an exchange's own API, a canister) are one entry each.
import { readFileSync } from 'node:fs';
import { Type, type Static, type TObject } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Observation } from './aggregate.ts';

const Common = {
  name: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$', description: 'unique name, shown in the price response' }),
  weight: Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000, description: 'weight in the weighted median' }),
  timeout_ms: Type.Integer({ minimum: 50, maximum: 60_000, default: 5_000, description: 'per-fetch timeout' }),
  max_age_seconds: Type.Integer({ minimum: 1, maximum: 86_400, default: 300, description: 'older observations are dropped' }),
};

const JsonPointer = Type.String({ pattern: '^(/.*)?$', description: 'RFC 6901 JSON pointer' });

export const JsonHttpSource = Type.Object(
  {
    kind: Type.Literal('json-http'),
    ...Common,
    url: Type.String({ pattern: '^https?://', description: 'http(s) URL answering JSON' }),
    price_pointer: JsonPointer,
    timestamp_pointer: Type.Optional(JsonPointer),
  },
  { additionalProperties: false },
);

export const FixedSource = Type.Object(
  {
    kind: Type.Literal('fixed'),
    ...Common,
    price: Type.Number({ exclusiveMinimum: 0, description: 'the price it always reports (development)' }),
  },
  { additionalProperties: false },
);

export type JsonHttpSourceConfig = Static<typeof JsonHttpSource>;
export type FixedSourceConfig = Static<typeof FixedSource>;
export type SourceConfig =
  | JsonHttpSourceConfig
  | FixedSourceConfig
  | ({ kind: string; name: string; weight: number; timeout_ms: number; max_age_seconds: number } & Record<string, unknown>);

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
    } else if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, token)) cur = (cur as Record<string, unknown>)[token];
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

/**
 * The configured sources, or the list of every problem (each names the source and the field). At
 * most one of PRICE_SOURCES / PRICE_SOURCES_FILE; neither = no sources (the endpoint answers 503).
 */
export function parsePriceSources(
  env: { PRICE_SOURCES?: string | undefined; PRICE_SOURCES_FILE?: string | undefined },
  kinds: Record<string, SourceKind> = SOURCE_KINDS,
): { sources: SourceConfig[]; problems: string[] } {
  const problems: string[] = [];
  if (env.PRICE_SOURCES !== undefined && env.PRICE_SOURCES_FILE !== undefined)
    return { sources: [], problems: ['PRICE_SOURCES: set either PRICE_SOURCES or PRICE_SOURCES_FILE, not both'] };
  let text: string;
  let where: string;
  if (env.PRICE_SOURCES !== undefined) {
    text = env.PRICE_SOURCES;
    where = 'PRICE_SOURCES';
  } else if (env.PRICE_SOURCES_FILE !== undefined) {
    where = 'PRICE_SOURCES_FILE';
    try {
      text = readFileSync(env.PRICE_SOURCES_FILE, 'utf8');
    } catch (e) {
      return {
        sources: [],
        problems: [`PRICE_SOURCES_FILE: cannot read ${env.PRICE_SOURCES_FILE} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`],
      };
    }
  } else return { sources: [], problems: [] };
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch (e) {
    return { sources: [], problems: [`${where}: not valid JSON (${(e as Error).message})`] };
  }
  if (!Array.isArray(list) || list.length === 0) return { sources: [], problems: [`${where}: must be a non-empty JSON array of sources`] };
  const sources: SourceConfig[] = [];
  const names = new Set<string>();
  list.forEach((item: unknown, i) => {
    const label = `${where}[${i}]${item && typeof item === 'object' && typeof (item as { name?: unknown }).name === 'string' ? ` (${(item as { name: string }).name})` : ''}`;
    if (!item || typeof item !== 'object' || Array.isArray(item)) return problems.push(`${label}: must be an object`);
    const kind = (item as { kind?: unknown }).kind;
    const entry = typeof kind === 'string' && Object.hasOwn(kinds, kind) ? kinds[kind] : undefined;
    if (!entry) return problems.push(`${label}: kind must be one of ${Object.keys(kinds).join(', ')} (got ${JSON.stringify(kind)})`);
    const value = Value.Default(entry.schema, structuredClone(item));
    const errors = [...Value.Errors(entry.schema, value)];
    if (errors.length) {
      const seen = new Set<string>();
      for (const e of errors) {
        const field = e.path.replace(/^\//, '') || '(source)';
        if (seen.has(field)) continue;
        seen.add(field);
        problems.push(`${label}: ${field}: ${e.message}`);
      }
      return;
    }
    const source = value as SourceConfig;
    if (names.has(source.name)) return problems.push(`${label}: duplicate name ${source.name}`);
    names.add(source.name);
    sources.push(source);
  });
  return { sources: problems.length ? [] : sources, problems };
}

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
