// Decision B127: the bridge's OpenAPI document states each error body once, under components/schemas,
// and each error answer that several operations give once, under components/responses; the operations
// `$ref` them. Routes keep declaring their answers in full (Fastify serializes by them, decision B124):
// only the document is folded, by content, so an answer that differs in any word stays its own.
import { AiErrorBody, ErrorBody, StrictErrorBody } from './route-doc.ts';

type Json = Record<string, unknown>;
type Doc = Json & { paths?: Record<string, Record<string, Json>>; components?: Json };

/** The error bodies the routes share, by the name the document gives them. */
export const SHARED_ERROR_SCHEMAS: Record<string, { schema: unknown; description: string }> = {
  ErrorBody: {
    schema: ErrorBody,
    description: 'The bridge’s error answer (spec 2): a code, a message and the request’s id; more fields may come.',
  },
  StrictErrorBody: { schema: StrictErrorBody, description: 'The bridge’s error answer with exactly its three fields.' },
  AiErrorBody: {
    schema: AiErrorBody,
    description: 'The AI scope’s error answer (spec 2): `{error: <message>, code}`.',
  },
};

/** JSON text with sorted keys: two values with the same content give the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  return `{${entries
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
    .join(',')}}`;
}

const isError = (status: string) => /^[45]\d\d$|^[45]XX$|^default$/.test(status);
const plain = (value: unknown): Json => JSON.parse(JSON.stringify(value)) as Json;

/** `VALIDATION_ERROR: …` answered 400 → `ValidationError400`: the answer's first code and its status. */
function responseName(status: string, description: unknown): string {
  const code = /[A-Z][A-Za-z0-9_]*/.exec(typeof description === 'string' ? description : '')?.[0] ?? 'Error';
  const pascal = /^[A-Z0-9_]+$/.test(code)
    ? code
        .split('_')
        .filter(Boolean)
        .map((w) => w[0] + w.slice(1).toLowerCase())
        .join('')
    : code;
  return `${pascal}${status}`;
}

/**
 * The document with its error bodies and repeated error answers in components (decision B127). An
 * error answer's JSON schema that is one of SHARED_ERROR_SCHEMAS (its description aside, which the
 * answer's own description carries) becomes a `$ref`; an error answer given whole by two operations or
 * more becomes a named response, `ValidationError400` (a second answer of that name and status gets
 * `_2`, in the order the paths list them). The input is not changed.
 */
export function withSharedComponents(input: Doc): Doc {
  const doc = plain(input) as Doc;
  const bodies = new Map(
    Object.entries(SHARED_ERROR_SCHEMAS).map(([name, { schema }]) => [canonical(plain(schema)), name]),
  );
  const usedSchemas = new Set<string>();
  const answers: Array<{ holder: Json; status: string }> = [];
  for (const ops of Object.values(doc.paths ?? {}))
    for (const op of Object.values(ops)) {
      const responses = (op.responses ?? {}) as Record<string, Json>;
      for (const [status, response] of Object.entries(responses)) {
        if (!isError(status) || '$ref' in response) continue;
        for (const media of Object.values((response.content ?? {}) as Record<string, Json>)) {
          const { description: _said, ...schema } = (media.schema ?? {}) as Json;
          const name = bodies.get(canonical(schema));
          if (name === undefined) continue;
          media.schema = { $ref: `#/components/schemas/${name}` };
          usedSchemas.add(name);
        }
        answers.push({ holder: responses, status });
      }
    }
  const counts = new Map<string, number>();
  for (const { holder, status } of answers) {
    const key = canonical(holder[status]);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const named = new Map<string, string>();
  const responses: Record<string, Json> = {};
  for (const { holder, status } of answers) {
    const answer = holder[status] as Json;
    const key = canonical(answer);
    if ((counts.get(key) ?? 0) < 2) continue;
    let name = named.get(key);
    if (name === undefined) {
      const base = responseName(status, answer.description);
      name = base;
      for (let n = 2; responses[name] !== undefined; n++) name = `${base}_${n}`;
      named.set(key, name);
      responses[name] = answer;
    }
    holder[status] = { $ref: `#/components/responses/${name}` };
  }
  const schemas = { ...((doc.components?.schemas ?? {}) as Json) };
  for (const [name, { schema, description }] of Object.entries(SHARED_ERROR_SCHEMAS))
    if (usedSchemas.has(name)) schemas[name] = { description, ...plain(schema) };
  doc.components = { ...doc.components, schemas, ...(Object.keys(responses).length > 0 && { responses }) };
  return doc;
}

/**
 * The document with every local `$ref` replaced by a copy of what it names: what a reader that
 * looks at operations one by one (the tests, a fuzzer) sees as if every answer were written in full.
 */
export function inlineRefs<T>(doc: T): T {
  const root = doc as unknown as Json;
  const resolve = (ref: string): unknown =>
    ref
      .replace(/^#\//, '')
      .split('/')
      .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((node, part) => {
        if (node === null || typeof node !== 'object' || !(part in node)) throw new Error(`unresolved $ref ${ref}`);
        return (node as Json)[part];
      }, root);
  const walk = (node: unknown, seen: string[]): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, seen));
    if (node === null || typeof node !== 'object') return node;
    const ref = (node as Json).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/')) {
      if (seen.includes(ref)) throw new Error(`circular $ref ${ref}`);
      return walk(resolve(ref), [...seen, ref]);
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, seen)]));
  };
  return walk(doc, []) as T;
}
