// Email addresses across features: what counts as one, and the lookup key that stands for it.
// Lookups never use plaintext (ARCHITECTURE "Data"): the full-length HMAC-SHA-256 of the normalised
// address (trimmed, NFKC, lower-cased) under its own key, stored under a UNIQUE constraint.
import { createHmac } from 'node:crypto';

export function normaliseEmail(email: string): string {
  return email.trim().normalize('NFKC').toLowerCase();
}

export function emailBlindIndex(key: Uint8Array, email: string): Uint8Array {
  return new Uint8Array(createHmac('sha256', key).update(normaliseEmail(email), 'utf8').digest());
}

/** A plausible mailbox: one @, a dot in the domain, no spaces or control characters, ≤ 254 characters. */
export function isEmail(s: string): boolean {
  return s.length <= 254 && /^[^\s@\u0000-\u001f]+@[^\s@\u0000-\u001f]+\.[^\s@\u0000-\u001f]+$/u.test(s);
}
