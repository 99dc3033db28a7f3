// Cheaper checks with the same acceptance as the catalog's published patterns and its URL format
// (decision D37). Ajv tested every string against a `u`-flag regex with a look-ahead, and every link
// with a Unicode regex and `new URL`: 34 % of the 50-item digest's CPU. Property tests
// (test/fast-checks.test.ts) hold each function to the check it stands for.

/** JavaScript's `\s`: WhiteSpace and LineTerminator code units. */
function isWhite(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** `[\x00-\x1f\x7f-\x9f\u2028\u2029]`: what NOT_LINE_BREAK_OR_CONTROL refuses. */
function isLineBreakOrControl(c: number): boolean {
  return c <= 0x1f || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029;
}

/** `new RegExp(SINGLE_LINE, 'u').test(s)`: no control or line/paragraph separator, and not blank. */
export function isSingleLine(s: string): boolean {
  let visible = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x7f) {
      if (c < 0x20) return false;
      if (c !== 0x20) visible = true;
    } else if (isLineBreakOrControl(c)) return false;
    else if (!visible && !isWhite(c)) visible = true;
  }
  return visible;
}

/** `new RegExp(MULTI_LINE, 'u').test(s)`: as a single line, but `\n`, `\r\n` and `\t` are allowed. */
export function isMultiLine(s: string): boolean {
  let visible = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x7f) {
      if (c > 0x20) visible = true;
      else if (c < 0x20) {
        if (c === 0x0d) {
          if (s.charCodeAt(i + 1) !== 0x0a) return false;
          i++;
        } else if (c !== 0x0a && c !== 0x09) return false;
      }
    } else if (isLineBreakOrControl(c)) return false;
    else if (!visible && !isWhite(c)) visible = true;
  }
  return visible;
}

/**
 * Ajv's pattern engine (its `code.regExp` option): the two catalog patterns get the functions above,
 * any other pattern a RegExp as Ajv would have built it.
 */
export function patternEngine(singleLine: string, multiLine: string) {
  const fast = new Map<string, (s: string) => boolean>([
    [singleLine, isSingleLine],
    [multiLine, isMultiLine],
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
const REST = "(?:[/?#][!#-&(-;=?-\\[\\]_a-z~]*)?";
export const PLAIN_HTTPS_URL = new RegExp(`^https://${HOST}${REST}$`);
export const PLAIN_WEB_URL = new RegExp(`^https?://${HOST}${REST}$`);
