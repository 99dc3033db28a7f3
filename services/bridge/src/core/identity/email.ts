// Email addresses across features: the one canonical form an address is stored in, compared in and
// mailed to (decision B82), and the lookup key that stands for it. Lookups never use plaintext
// (ARCHITECTURE "Data"): the full-length HMAC-SHA-256 of the address's lookup form under its own key,
// stored under a UNIQUE constraint.
import { createHmac } from 'node:crypto';
import { domainToASCII, domainToUnicode } from 'node:url';

/** Why an address has no canonical form: a short, non-personal code (the audit row's `reason`). */
export type EmailRefusal =
  'not_an_address' | 'invisible_characters' | 'compatibility_characters' | 'quoted_local_part' | 'domain_form';
export type CanonicalEmail = { address: string } | { refusal: EmailRefusal; message: string };

const MESSAGES: Record<EmailRefusal, string> = {
  not_an_address: 'email is not a valid email address',
  invisible_characters: 'email must be one address without spaces, control or invisible characters',
  compatibility_characters:
    'email contains characters that stand for other characters (superscript, fullwidth, ligature or similar forms); type the address with ordinary characters',
  quoted_local_part:
    'email has a quoted part before the @ that is not a plain address; quoted addresses are not accepted',
  domain_form:
    'email has a domain written in an encoded or mapped form (xn--…, ideographic dots); write the domain as it is spelled',
};

// The notification service's `to` rule (decision D12): RFC 5322 atext plus any non-ASCII code point,
// LDH labels of 1 to 63 octets, 64 octets before the @, 254 in all; the same characters are invisible.
const ATOM = /^[a-z0-9!#$%&'*+/=?^_`{|}~\u0080-\u{10FFFF}-]+$/u;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Z}\u2028\u2029]/u;
const LOCAL_MAX = 64;
const ADDRESS_MAX = 254;

const refuse = (refusal: EmailRefusal): CanonicalEmail => ({ refusal, message: MESSAGES[refusal] });
const isDotAtom = (local: string) => local.split('.').every((atom) => ATOM.test(atom));

/**
 * Decision B82: the address as the bridge stores, compares and mails it, or why there is none.
 * Forms that name the same mailbox by the mail standards, or that people type by habit, are normalised:
 * surrounding white space, Unicode composition (NFC), letter case, one trailing dot of the domain and
 * quotes around a plain local part (RFC 5322 3.4.1). Anything equal to another address only through a
 * compatibility mapping (NFKC: `ᵃdmin`, fullwidth `ａdmin`) is refused, as are IDNA-encoded or mapped
 * domains: the bridge mails exactly the address it identifies the account by, and nothing else.
 * Every canonical address passes the notification service's `to` rule (D12).
 */
export function canonicalEmail(typed: string): CanonicalEmail {
  const trimmed = typed.trim();
  if (trimmed.length === 0 || trimmed.length > 4 * ADDRESS_MAX) return refuse('not_an_address');
  // A quoted local part may hold spaces; the notification service never mails one (D12), so neither is accepted.
  if (INVISIBLE.test(trimmed)) return refuse('invisible_characters');
  const composed = trimmed.normalize('NFC');
  if (composed.normalize('NFKC') !== composed) return refuse('compatibility_characters');
  const text = composed.toLowerCase().normalize('NFC');
  const at = text.lastIndexOf('@');
  if (at <= 0) return refuse('not_an_address');
  let local = text.slice(0, at);
  let domain = text.slice(at + 1);
  if (local.startsWith('"')) {
    const quoted = /^"((?:[^"\\]|\\.)*)"$/su.exec(local);
    if (!quoted) return refuse('not_an_address');
    local = quoted[1]!.replace(/\\(.)/gsu, '$1');
    if (!isDotAtom(local)) return refuse('quoted_local_part');
  }
  if (!isDotAtom(local)) return refuse('not_an_address');
  if (domain.endsWith('.')) domain = domain.slice(0, -1);
  const ascii = domainToASCII(domain);
  if (ascii === '' || ascii.length > 253) return refuse('not_an_address');
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels.at(-1)!))
    return refuse('not_an_address');
  // An A-label must decode (D12: Node 24's domainToASCII passes broken punycode through).
  if (
    !labels.every((l) => !l.startsWith('xn--') || (domainToUnicode(l) !== '' && !domainToUnicode(l).startsWith('xn--')))
  )
    return refuse('not_an_address');
  // The domain as it is spelled: IDNA's own round trip gives it back unchanged (no A-labels, no mapped dots).
  if (domainToUnicode(ascii) !== domain) return refuse('domain_form');
  const address = `${local}@${domain}`;
  if (Buffer.byteLength(local) > LOCAL_MAX || Buffer.byteLength(address) > ADDRESS_MAX) return refuse('not_an_address');
  // Lower-casing must not have made a compatibility character: what is stored comes back unchanged.
  if (address.normalize('NFKC') !== address) return refuse('compatibility_characters');
  return { address };
}

/**
 * What a lookup (sign-in, resend, reset, an admin's search) compares: the canonical address, or for an
 * input that has none the old normal form (trimmed, NFKC, lower-cased), so a look-alike of an address
 * finds that address's account, never one of its own; mail always goes to the stored address.
 */
export function normaliseEmail(email: string): string {
  const c = canonicalEmail(email);
  return 'address' in c ? c.address : email.trim().normalize('NFKC').toLowerCase();
}

export function emailBlindIndex(key: Uint8Array, email: string): Uint8Array {
  return new Uint8Array(createHmac('sha256', key).update(normaliseEmail(email), 'utf8').digest());
}

/** A plausible mailbox: one @, a dot in the domain, no spaces or control characters, ≤ 254 characters. */
export function isEmail(s: string): boolean {
  return s.length <= 254 && /^[^\s@\u0000-\u001f]+@[^\s@\u0000-\u001f]+\.[^\s@\u0000-\u001f]+$/u.test(s);
}
