// `to` (spec 3 Send request): one bare RFC 5322 addr-spec, with RFC 6531 internationalised local parts
// and IDN domains. No display name, quoted strings, comments, domain literals, lists or CR/LF: anything
// a header could be smuggled through is refused rather than repaired.
import { domainToASCII, domainToUnicode } from 'node:url';

const LOCAL_MAX = 64; // RFC 5321 §4.5.3.1.1, octets
const ADDRESS_MAX = 254; // RFC 5321 path limit less the angle brackets, octets
// dot-atom: RFC 5322 atext, plus any non-ASCII code point (RFC 6532 UTF8-non-ascii).
const ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\u{10FFFF}-]+$/u;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
// Unicode controls, separators and format characters (bidi overrides, zero-width) never belong in an address.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Z}\u2028\u2029]/u;

// The everyday case, checked with one ASCII-only expression; anything else takes the full path below.
// An A-label (`xn--…`) is never taken on the fast path: only the IDNA decoder in the full path knows
// whether its punycode is valid (`xn--zz` is not), so both paths apply one rule (decision D12).
const A_LABEL = /[@.]xn--/i;
const PLAIN =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

export function addressProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (
    value.length <= ADDRESS_MAX &&
    PLAIN.test(value) &&
    value.indexOf('@') <= LOCAL_MAX &&
    !A_LABEL.test(value.slice(value.indexOf('@')))
  ) {
    return undefined;
  }
  return fullAddressProblem(value);
}

/** The full check, without the fast path; exported so tests can prove both paths agree. */
export function fullAddressProblem(value: string): string | undefined {
  if (value.length === 0) return 'is required';
  if (Buffer.byteLength(value) > ADDRESS_MAX) return `must be at most ${ADDRESS_MAX} octets`;
  if (INVISIBLE.test(value)) return 'must be a bare address without spaces, line breaks or control characters';
  if (/[<>"(),;:\\[\]]/.test(value))
    return 'must be one bare address (no display name, quotes, comments, lists or domain literals)';
  const at = value.lastIndexOf('@');
  if (at <= 0 || value.indexOf('@') !== at) return 'must contain exactly one @ between a local part and a domain';
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (Buffer.byteLength(local) > LOCAL_MAX) return `local part must be at most ${LOCAL_MAX} octets`;
  if (!local.split('.').every((atom) => ATOM.test(atom))) return 'local part is not a valid dot-atom';
  const ascii = domainToASCII(domain.normalize('NFC'));
  if (ascii === '' || ascii.length > 253) return 'domain is not a valid domain name';
  const labels = ascii.toLowerCase().split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels.at(-1)!)) {
    return 'domain is not a valid domain name';
  }
  // An A-label must decode (decision D12). Node 20 and 22 refuse broken punycode in domainToASCII; Node
  // 24 passes `xn--zz` through, and its domainToUnicode gives it back undecoded.
  if (!labels.every((l) => !l.startsWith('xn--') || isDecodedLabel(domainToUnicode(l))))
    return 'domain is not a valid domain name';
  return undefined;
}

/** What domainToUnicode made of an A-label: a U-label, not the A-label given back or nothing (it failed). */
function isDecodedLabel(unicode: string): boolean {
  return unicode !== '' && !unicode.toLowerCase().startsWith('xn--');
}
