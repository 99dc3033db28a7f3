// The JSON body parser (decision D39): Fastify's default parser (secure-json-parse with `error` for
// `__proto__` and `constructor.prototype` keys) with the same answers at less cost. secure-json-parse
// scans the whole text with two regexes before walking the parsed value; walking the value alone
// gives the same verdict (the regexes only decide whether to walk) in a third of the time. The body
// arrives as bytes: an ASCII body (simdutf's check) is decoded as Latin-1, the same text for less,
// and two byte searches then tell whether its strings may hold a character that the catalog's line
// patterns refuse, so the template check may skip those tests (`isCleanBody`).
import { isAscii } from 'node:buffer';
import { errorCodes } from 'fastify';

const { FST_ERR_CTP_EMPTY_JSON_BODY, FST_ERR_CTP_INVALID_JSON_BODY } = errorCodes;

/**
 * A JSON text without a backslash holds no escape sequence, so no string parsed from it contains a
 * character below U+0020 (JSON refuses them raw); without U+007F–U+009F, U+2028 and U+2029 either,
 * none of its strings holds a character the catalog's SINGLE_LINE or MULTI_LINE patterns refuse.
 */
const UNCLEAN = /[\\\x7f-\x9f\u2028\u2029]/;

/** Parsed bodies whose every string is free of control, line and paragraph separator characters. */
const clean = new WeakSet<object>();

/** True when `value` (a parsed request body) came from a text without any such character. */
export function isCleanBody(value: unknown): boolean {
  return typeof value === 'object' && value !== null && clean.has(value);
}

/**
 * secure-json-parse's `filter` with `protoAction` and `constructorAction` = `error`: true when some
 * object has an own `__proto__` key, or an own `constructor` key holding an object with an own
 * `prototype` key. Parsed JSON has only plain objects and arrays, so this visits what its for-in does.
 */
export function isPoisoned(root: object): boolean {
  const stack: object[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown>;
    if (Object.hasOwn(node, '__proto__')) return true;
    if (Object.hasOwn(node, 'constructor')) {
      const c = node.constructor;
      if (c !== null && typeof c === 'object' && Object.hasOwn(c, 'prototype')) return true;
    }
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v: unknown = node[i];
        if (v !== null && typeof v === 'object') stack.push(v);
      }
    } else {
      for (const key in node) {
        const v = node[key];
        if (v !== null && typeof v === 'object') stack.push(v);
      }
    }
  }
  return false;
}

const BACKSLASH = 0x5c;
const DEL = 0x7f;

/**
 * Fastify's default JSON parser over the body's bytes (`parseAs: 'buffer'`): the UTF-8 text, BOM
 * skipped, parsed and refused when poisoned, as secure-json-parse does.
 */
export function parseJsonBody(
  _request: unknown,
  body: Buffer,
  done: (err: Error | null, value?: unknown) => void,
): void {
  if (body.length === 0) return done(new FST_ERR_CTP_EMPTY_JSON_BODY(), undefined);
  const ascii = isAscii(body);
  let text = body.toString(ascii ? 'latin1' : 'utf8');
  if (!ascii && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return done(new FST_ERR_CTP_INVALID_JSON_BODY(), undefined);
  }
  if (value !== null && typeof value === 'object') {
    if (isPoisoned(value)) return done(new FST_ERR_CTP_INVALID_JSON_BODY(), undefined);
    if (ascii ? !body.includes(BACKSLASH) && !body.includes(DEL) : !UNCLEAN.test(text)) clean.add(value);
  }
  done(null, value);
}
