// RFC 5545 §3.1 line folding, with output identical to ical-generator 10's `foldLines` (a property test
// compares the two), which allocates a TextEncoder per character: 278 µs per calendar against ~3 µs here.
// Offered upstream; until it lands this adapter is the only place that folds.

/** UTF-8 octets of the 1- or 2-unit piece ical-generator measures (lone surrogates encode as U+FFFD: 3). */
function unitOctets(c: number): number {
  return c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
}

const NON_ASCII = /[^\x00-\x7f]/;

function foldLine(line: string): string {
  // Nothing to fold when even 3 octets per unit stays within 74 (the common case for short lines).
  if (line.length * 3 <= 74) return line;
  // ASCII: one octet per unit, so the pieces are every 74 units (D41).
  if (!NON_ASCII.test(line)) {
    let out = line.slice(0, 74);
    for (let i = 74; i < line.length; i += 74) out += `\r\n ${line.slice(i, i + 74)}`;
    return out;
  }
  let out = '';
  let from = 0;
  let octets = 0;
  for (let r = 0; r < line.length; r++) {
    const start = r;
    const c = line.charCodeAt(r);
    let n: number;
    // ical-generator joins a high surrogate with whatever follows it, then measures the pair's encoding.
    if (c >= 0xd800 && c <= 0xdbff && r + 1 < line.length) {
      const d = line.charCodeAt(++r);
      n = d >= 0xdc00 && d <= 0xdfff ? 4 : 3 + unitOctets(d);
    } else n = unitOctets(c);
    octets += n;
    if (octets > 74) {
      out += line.slice(from, start) + '\r\n ';
      from = start;
      octets = n;
    }
  }
  return out + line.slice(from);
}

export function foldLines(text: string): string {
  return text.includes('\r\n') ? text.split('\r\n').map(foldLine).join('\r\n') : foldLine(text);
}
