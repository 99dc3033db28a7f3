// The Ajv instance that checks template data (spec 3 "Template catalog") and what a template defines
// beside its schema. The schemas and their field types are the contract in @domdao/notification-contract
// (decision S22); the formats they name are checked here.
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { MULTI_LINE, SINGLE_LINE } from '@domdao/notification-contract';
import { Ajv, type ErrorObject } from 'ajv';
import type { Brand } from '../brands/brands.ts';
import type { Attachment } from '../envelope/attachments.ts';
import type { Detail } from '../http/errors.ts';
import type { Block } from '../rendering/blocks.ts';
import { addressProblem } from '../envelope/email-address.ts';
import { patternEngine, PLAIN_HTTPS_URL, PLAIN_WEB_URL } from './fast-checks.ts';
import { compileFastValidator } from './fast-validator.ts';

const URL_MAX = 2048;
const UNSAFE_IN_URL = /[\s\p{Cc}\p{Cf}"'<>\\^`{|}]/u;

/** The URL formats' full check: no unsafe character, then `new URL` and its parts. */
export function urlWith(protocols: string[]) {
  return (value: string) => {
    if (value.length > URL_MAX || UNSAFE_IN_URL.test(value)) return false;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return false;
    }
    return protocols.includes(url.protocol) && url.hostname !== '' && url.username === '' && url.password === '';
  };
}

/**
 * Decision D49: a field the catalog marks HTTPS also takes `http://` to a loopback host (localhost,
 * 127.0.0.0/8, [::1]). Browsers treat those as secure contexts (W3C Secure Contexts, "potentially
 * trustworthy"), such a link never crosses a network, and it is what a platform run on one machine
 * (`npm start`) builds: the password reset must work there end to end.
 */
export function isLoopbackHttpUrl(value: string): boolean {
  if (!urlWith(['http:'])(value)) return false;
  const host = new URL(value).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

// RFC 3339 profile of ISO 8601: a full date-time must carry Z or an offset, or it is ambiguous.
// Accepts exactly /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/ with
// a real calendar date from year 0100 on (what `Date.UTC` round-trips), hours < 24, minutes and seconds
// < 60; read from char codes because the regex, `Number` and a `Date` per value were 8 % of a digest's
// CPU. A property test proves the same acceptance as that regex-and-Date reference.

/** The `n` ASCII digits at `i` as a number, or -1. */
function digitsAt(s: string, i: number, n: number): number {
  if (i + n > s.length) return -1;
  let v = 0;
  for (let k = i; k < i + n; k++) {
    const c = s.charCodeAt(k) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
function realDate(y: number, m: number, d: number): boolean {
  if (y < 100 || m < 1 || m > 12 || d < 1) return false;
  const leap = m === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= DAYS_IN_MONTH[m - 1]! + (leap ? 1 : 0);
}

/** `YYYY-MM-DD` at the start of `s`, a real date. */
function dateAtStart(s: string): boolean {
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return false; // '-'
  return realDate(digitsAt(s, 0, 4), digitsAt(s, 5, 2), digitsAt(s, 8, 2));
}

export function isIsoDateTime(value: string): boolean {
  const n = value.length;
  if (n < 20 || !dateAtStart(value)) return false;
  const t = value.charCodeAt(10);
  if ((t !== 84 && t !== 116) || value.charCodeAt(13) !== 58 || value.charCodeAt(16) !== 58) return false; // T t :
  const h = digitsAt(value, 11, 2);
  const mi = digitsAt(value, 14, 2);
  const sec = digitsAt(value, 17, 2);
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59) return false;
  let i = 19;
  if (value.charCodeAt(i) === 46) {
    // '.'
    let j = i + 1;
    while (j < n && digitsAt(value, j, 1) >= 0) j++;
    if (j - i - 1 < 1 || j - i - 1 > 9) return false;
    i = j;
  }
  const z = value.charCodeAt(i);
  if (z === 90 || z === 122) return i === n - 1; // Z z
  if ((z !== 43 && z !== 45) || i !== n - 6 || value.charCodeAt(i + 3) !== 58) return false; // + - :
  const oh = digitsAt(value, i + 1, 2);
  const om = digitsAt(value, i + 4, 2);
  return oh >= 0 && oh < 24 && om >= 0 && om < 60;
}
export function isIsoDate(value: string): boolean {
  return value.length === 10 && dateAtStart(value);
}

/** A plain ASCII link is accepted from one regex; others take the full check (decision D37). */
function fastUrl(plain: RegExp, full: (value: string) => boolean) {
  return (value: string) => (value.length <= URL_MAX && plain.test(value)) || full(value);
}

const FORMATS: Record<string, { check: (v: string) => boolean; text: string }> = {
  'https-url': {
    check: fastUrl(PLAIN_HTTPS_URL, (v) => urlWith(['https:'])(v) || isLoopbackHttpUrl(v)),
    text: `an absolute https:// URL (or http:// to a loopback host) of at most ${URL_MAX} characters`,
  },
  'web-url': {
    check: fastUrl(PLAIN_WEB_URL, urlWith(['https:', 'http:'])),
    text: `an absolute http(s):// URL of at most ${URL_MAX} characters`,
  },
  'iso-date-time': { check: isIsoDateTime, text: 'an ISO-8601 date-time with a time zone, e.g. 2026-11-22T10:00:00Z' },
  'iso-date': {
    check: (v) => isIsoDate(v) || isIsoDateTime(v),
    text: 'an ISO-8601 date (2026-11-22) or date-time with a time zone',
  },
  email: { check: (v) => addressProblem(v) === undefined, text: 'a bare email address' },
};

export { field, MULTI_LINE, NOT_LINE_BREAK_OR_CONTROL, SINGLE_LINE } from '@domdao/notification-contract';

// The two patterns are tested by char-code functions with the same acceptance (decision D37).
const patterns = patternEngine(SINGLE_LINE, MULTI_LINE);
export const ajv = new Ajv({
  allErrors: true,
  useDefaults: true,
  strict: false,
  verbose: true,
  coerceTypes: false,
  code: { regExp: patterns },
});
for (const [name, f] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate: f.check });

const cleanPatterns = patternEngine(SINGLE_LINE, MULTI_LINE, true);

/**
 * Ajv's acceptance without Ajv for valid data (decision D37); undefined when the schema needs Ajv.
 * `cleanText`: the variant for data whose strings hold no control, line or paragraph separator
 * character (a body from a JSON text without escapes or such characters, decision D39), where the
 * two catalog patterns only need "not blank".
 */
export function fastValidatorFor(schema: TSchema, cleanText = false): ((data: unknown) => boolean) | undefined {
  const engine = cleanText ? cleanPatterns : patterns;
  return compileFastValidator(schema, {
    formats: Object.fromEntries(Object.entries(FORMATS).map(([name, f]) => [name, f.check])),
    pattern: (source) => engine(source, 'u'),
  });
}

export interface RenderContext {
  brand: Brand;
  now: Date;
}

export interface RenderedContent {
  subject: string;
  /** Inbox preview text, hidden in the body. */
  preheader: string;
  blocks: Block[];
  /** Why the recipient gets this mail; shown in the footer. */
  reason: string;
  /** Opt-in mail only: rendered in the footer and sent as List-Unsubscribe. */
  unsubscribe?: { url: string; listId: string };
  /** Generated by the service (e.g. event.ics); placed before caller attachments. */
  attachments?: Attachment[];
  /** Lets a template shrink itself under a size budget (the digest under Gmail's clip size). */
  fit?: () => RenderedContent | undefined;
}

export type BrandScope = 'both' | 'dao';

export interface TemplateDefinition<S extends TObject = TObject> {
  type: string;
  brands: BrandScope;
  /** One sentence for the OpenAPI document and the preview index. */
  description: string;
  schema: S;
  /** A valid `data`, used by the OpenAPI example, the preview command, tests and the benchmark. */
  example: Static<S>;
  /** Rules that span fields (e.g. at least one of two); returns details for invalid data. */
  check?: (data: Static<S>) => Detail[];
  render: (data: Static<S>, ctx: RenderContext) => RenderedContent;
}

export function defineTemplate<S extends TObject>(def: TemplateDefinition<S>): TemplateDefinition<S> {
  return def;
}

/** `/items/3/title` → `data.items[3].title`. */
export function fieldPath(root: string, pointer: string, extra?: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : `${acc}.${p}`), root);
}

export function ajvDetails(errors: ErrorObject[] | null | undefined, root: string): Detail[] {
  const seen = new Set<string>();
  const out: Detail[] = [];
  for (const e of errors ?? []) {
    const p = e.params as Record<string, unknown>;
    const field = fieldPath(root, e.instancePath, e.keyword === 'required' ? String(p.missingProperty) : undefined);
    const message = describe(e, p);
    const key = `${field}\u0000${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ field, message });
    }
  }
  return out;
}

function describe(e: ErrorObject, p: Record<string, unknown>): string {
  const custom: unknown = e.parentSchema?.['x-message'];
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'type':
      return `must be ${p.type === 'integer' ? 'a whole number' : `of type ${String(p.type)}`}`;
    case 'format':
      return `must be ${FORMATS[String(p.format)]?.text ?? String(p.format)}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters`;
    case 'pattern':
      return `must be ${typeof custom === 'string' ? custom : 'in the expected format'}`;
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'minimum':
      return `must be at least ${String(p.limit)}`;
    case 'maximum':
      return `must be at most ${String(p.limit)}`;
    case 'minItems':
      return `must have at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} items`;
    default:
      return e.message ?? 'is invalid';
  }
}
