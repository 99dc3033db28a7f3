// Cheaper checks with the same acceptance as the catalog's published patterns and its URL format
// (decision D37). Ajv tested every string against a `u`-flag regex with a look-ahead, and every link
// with a Unicode regex and `new URL`: 34 % of the 50-item digest's CPU. Property tests
// (test/fast-checks.test.ts, every UTF-16 code unit included) hold each function to the check it
// stands for.

// Per UTF-16 unit, without the `u` flag or a look-ahead: a refused unit anywhere, then any visible one.
const LINE_BREAK_OR_CONTROL = /[\x00-\x1f\x7f-\x9f\u2028\u2029]/;
const REFUSED_IN_TEXT = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]|\r(?!\n)/;
const VISIBLE = /\S/;

/** `new RegExp(SINGLE_LINE, 'u').test(s)`: no control or line/paragraph separator, and not blank. */
export function isSingleLine(s: string): boolean {
  return !LINE_BREAK_OR_CONTROL.test(s) && VISIBLE.test(s);
}

/** `new RegExp(MULTI_LINE, 'u').test(s)`: as a single line, but `\n`, `\r\n` and `\t` are allowed. */
export function isMultiLine(s: string): boolean {
  return !REFUSED_IN_TEXT.test(s) && VISIBLE.test(s);
}

/**
 * Both patterns for a string known to hold no character either refuses (one taken from a JSON text
 * without escapes or such characters, decision D39): then only "not blank" is left to test. A
 * printable ASCII first character decides without the regex.
 */
export function isNotBlank(s: string): boolean {
  const c = s.charCodeAt(0);
  return (c > 0x20 && c < 0x7f) || VISIBLE.test(s);
}

/**
 * Ajv's pattern engine (its `code.regExp` option): the two catalog patterns get the functions above,
 * any other pattern a RegExp as Ajv would have built it. `cleanText`: for strings known to hold no
 * control, line or paragraph separator character (decision D39), never for Ajv itself.
 */
export function patternEngine(singleLine: string, multiLine: string, cleanText = false) {
  const fast = new Map<string, (s: string) => boolean>([
    [singleLine, cleanText ? isNotBlank : isSingleLine],
    [multiLine, cleanText ? isNotBlank : isMultiLine],
  ]);
  const engine = (pattern: string, flags: string): { test: (s: string) => boolean; toString(): string } => {
    const test = flags === 'u' ? fast.get(pattern) : undefined;
    // Ajv keys compiled patterns by their string form.
    return test ? { test, toString: () => `/${pattern}/${flags}` } : new RegExp(pattern, flags);
  };
  engine.code = 'new RegExp';
  return engine;
}

// A link whose every part is plain ASCII: scheme, `//`, host names of letters, digits and single inner
// hyphens (no `xn--` or other `--`, the last label starting with a letter, so never an IPv4 or
// punycode host), no port or credentials, then a path, query or fragment of printable ASCII other
// than the characters the URL format refuses (`"'<>\^\`{|}`). `new URL` accepts every such string with
// that scheme, an empty username and password and a non-empty host; anything else goes the full way.
const HOST = '(?:[A-Za-z0-9](?:-?[A-Za-z0-9])*\\.)*[A-Za-z](?:-?[A-Za-z0-9])*';
const REST = '(?:[/?#][!#-&(-;=?-\\[\\]_a-z~]*)?';
export const PLAIN_HTTPS_URL = new RegExp(`^https://${HOST}${REST}$`);
export const PLAIN_WEB_URL = new RegExp(`^https?://${HOST}${REST}$`);
