// A yes/no check of template data with Ajv's acceptance for the JSON Schema subset the catalog uses
// (decision D37). Valid data, the common case, is then checked without Ajv, whose generated code
// counted every string's code points twice (minLength and maxLength) and cost the 50-item digest most
// of its validation time; data this check refuses still goes to Ajv, whose verdict and details are
// the answer, so a mistake here could only accept, and the property tests compare both ways.
// A schema with any keyword not handled here gets no fast check (undefined): Ajv alone validates it.

type Check = (value: unknown) => boolean;

export interface FastValidatorOptions {
  /** The formats registered with Ajv, by name. */
  formats: Record<string, (value: string) => boolean>;
  /** Ajv's pattern engine with its flags (`u`). */
  pattern: (source: string) => { test: (s: string) => boolean };
}

const ANNOTATIONS = new Set(['description', 'title', 'examples', '$comment']);

/** Ajv's ucs2length: code points, a surrogate pair counting once. */
function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    n++;
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
  }
  return n;
}

class Unsupported extends Error {}

function compile(schema: Record<string, unknown>, opts: FastValidatorOptions): Check {
  const known = new Set<string>(['type']);
  const use = (k: string) => {
    known.add(k);
    return schema[k];
  };
  const checks: Check[] = [];
  const type = schema.type;

  if (type === 'string') {
    const min = use('minLength') as number | undefined;
    const max = use('maxLength') as number | undefined;
    const pattern = use('pattern') as string | undefined;
    const format = use('format') as string | undefined;
    const values = use('enum') as unknown[] | undefined;
    const rx = pattern === undefined ? undefined : opts.pattern(pattern);
    const fmt = format === undefined ? undefined : opts.formats[format];
    if (format !== undefined && !fmt) throw new Unsupported(`format ${format}`);
    checks.push((v) => {
      if (typeof v !== 'string') return false;
      // A string of n UTF-16 units has between n/2 and n code points: count only when that decides.
      if (max !== undefined && v.length > max && codePoints(v) > max) return false;
      if (min !== undefined && v.length < 2 * min && codePoints(v) < min) return false;
      if (rx && !rx.test(v)) return false;
      if (fmt && !fmt(v)) return false;
      if (values && !values.includes(v)) return false;
      return true;
    });
  } else if (type === 'integer') {
    const min = use('minimum') as number | undefined;
    const max = use('maximum') as number | undefined;
    checks.push(
      (v) =>
        typeof v === 'number' &&
        Number.isInteger(v) &&
        (min === undefined || v >= min) &&
        (max === undefined || v <= max),
    );
  } else if (type === 'array') {
    const minItems = use('minItems') as number | undefined;
    const maxItems = use('maxItems') as number | undefined;
    const items = use('items') as Record<string, unknown> | undefined;
    const item = items === undefined ? undefined : compile(items, opts);
    checks.push((v) => {
      if (!Array.isArray(v)) return false;
      if ((minItems !== undefined && v.length < minItems) || (maxItems !== undefined && v.length > maxItems))
        return false;
      if (item) for (let i = 0; i < v.length; i++) if (!item(v[i])) return false;
      return true;
    });
  } else if (type === 'object') {
    const required = (use('required') as string[] | undefined) ?? [];
    const properties = Object.entries((use('properties') as Record<string, Record<string, unknown>> | undefined) ?? {});
    const props = properties.map(([name, s]) => ({ name, check: compile(s, opts), dflt: s.default }));
    const defaults = props.filter((p) => p.dflt !== undefined);
    for (const d of defaults)
      if (d.dflt !== null && typeof d.dflt === 'object') throw new Unsupported('object default');
    checks.push((v) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
      const o = v as Record<string, unknown>;
      // Ajv (useDefaults) fills a missing property before any check of the object.
      for (const d of defaults) if (o[d.name] === undefined) o[d.name] = d.dflt;
      for (const r of required) if (o[r] === undefined) return false;
      for (const p of props) {
        const value = o[p.name];
        if (value !== undefined && !p.check(value)) return false;
      }
      return true;
    });
  } else {
    throw new Unsupported(`type ${String(type)}`);
  }
  known.add('default');
  for (const k of Object.keys(schema))
    if (!known.has(k) && !ANNOTATIONS.has(k) && !k.startsWith('x-')) throw new Unsupported(`keyword ${k}`);
  return checks[0]!;
}

/** The fast check of a template's data schema, or undefined when the schema uses more than this handles. */
export function compileFastValidator(schema: object, opts: FastValidatorOptions): Check | undefined {
  try {
    return compile(schema as Record<string, unknown>, opts);
  } catch (err) {
    if (err instanceof Unsupported) return undefined;
    throw err;
  }
}
