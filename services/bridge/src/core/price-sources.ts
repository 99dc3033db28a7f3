// The price sources' configuration (decisions O8, O9): the JSON list PRICE_SOURCES (or the file
// PRICE_SOURCES_FILE names) read and checked with TypeBox. It sits in core so the bridge's
// configuration can refuse a bad list at start-up without importing the oracle feature (decision
// S27); the feature pairs each kind's schema here with the reader that fetches it.
import { readFileSync } from 'node:fs';
import { Type, type Static, type TObject } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

const Common = {
  name: Type.String({
    pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$',
    description: 'unique name, shown in the price response',
  }),
  weight: Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000, description: 'weight in the weighted median' }),
  timeout_ms: Type.Integer({ minimum: 50, maximum: 60_000, default: 5_000, description: 'per-fetch timeout' }),
  max_age_seconds: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    default: 300,
    description: 'older observations are dropped',
  }),
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
  | ({ kind: string; name: string; weight: number; timeout_ms: number; max_age_seconds: number } & Record<
      string,
      unknown
    >);

/** The configuration schema of each source kind, by `kind`. */
export const SOURCE_SCHEMAS: Record<string, { schema: TObject }> = {
  'json-http': { schema: JsonHttpSource },
  fixed: { schema: FixedSource },
};

/**
 * The configured sources, or the list of every problem (each names the source and the field). At
 * most one of PRICE_SOURCES / PRICE_SOURCES_FILE; neither = no sources (the endpoint answers 503).
 */
export function parsePriceSources(
  env: { PRICE_SOURCES?: string | undefined; PRICE_SOURCES_FILE?: string | undefined },
  kinds: Record<string, { schema: TObject }> = SOURCE_SCHEMAS,
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
        problems: [
          `PRICE_SOURCES_FILE: cannot read ${env.PRICE_SOURCES_FILE} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
        ],
      };
    }
  } else return { sources: [], problems: [] };
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch (e) {
    return { sources: [], problems: [`${where}: not valid JSON (${(e as Error).message})`] };
  }
  if (!Array.isArray(list) || list.length === 0)
    return { sources: [], problems: [`${where}: must be a non-empty JSON array of sources`] };
  const sources: SourceConfig[] = [];
  const names = new Set<string>();
  list.forEach((item: unknown, i) => {
    const label = `${where}[${i}]${item && typeof item === 'object' && typeof (item as { name?: unknown }).name === 'string' ? ` (${(item as { name: string }).name})` : ''}`;
    if (!item || typeof item !== 'object' || Array.isArray(item)) return problems.push(`${label}: must be an object`);
    const kind = (item as { kind?: unknown }).kind;
    const entry = typeof kind === 'string' && Object.hasOwn(kinds, kind) ? kinds[kind] : undefined;
    if (!entry)
      return problems.push(
        `${label}: kind must be one of ${Object.keys(kinds).join(', ')} (got ${JSON.stringify(kind)})`,
      );
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
