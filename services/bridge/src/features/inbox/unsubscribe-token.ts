// Spec 3 "Unsubscribe token" (decision N2): an HMAC-SHA256 signature over user_id plus expires_at
// under SIGNING_SECRET, 30 days by default. Wire form `v1.<user_id>.<expires_at>.<mac>`:
// expires_at in Unix seconds, mac = base64url(HMAC-SHA256(secret, "domdao/unsubscribe/v1\n" +
// user_id + "\n" + expires_at)). Verification recomputes the MAC with the current secret and, while
// an operator rotates, with the previous one (SIGNING_SECRET_PREVIOUS), and compares in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const UNSUBSCRIBE_TOKEN_DAYS = 30;
const CONTEXT = 'domdao/unsubscribe/v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SHAPE = /^v1\.([0-9a-f-]{36})\.([0-9]{1,12})\.([A-Za-z0-9_-]{43})$/;

function mac(secret: Uint8Array, userId: string, expiresAt: number): Buffer {
  return createHmac('sha256', secret).update(`${CONTEXT}\n${userId}\n${expiresAt}`).digest();
}

/** A token for `userId` that expires at `expiresAtMs` (rounded down to the second). */
export function signUnsubscribeToken(secret: Uint8Array, userId: string, expiresAtMs: number): string {
  if (!UUID.test(userId)) throw new Error('unsubscribe tokens are issued for bridge user ids (UUIDs)');
  const expires = Math.floor(expiresAtMs / 1000);
  return `v1.${userId}.${expires}.${mac(secret, userId, expires).toString('base64url')}`;
}

export type TokenCheck =
  { ok: true; userId: string; expiresAt: number } | { ok: false; reason: 'malformed' | 'signature' | 'expired' };

/**
 * Checks a token: shape, then the MAC against every given secret (all of them, constant time, no
 * early exit, so timing does not tell which secret matched), then expiry (expired at exactly
 * expires_at). A signature is checked before expiry so an expired forgery still reads `signature`.
 */
export function verifyUnsubscribeToken(secrets: readonly Uint8Array[], token: unknown, nowMs: number): TokenCheck {
  if (typeof token !== 'string' || token.length > 120) return { ok: false, reason: 'malformed' };
  const m = SHAPE.exec(token);
  if (!m || !UUID.test(m[1]!)) return { ok: false, reason: 'malformed' };
  const userId = m[1]!;
  const expires = Number(m[2]);
  const given = Buffer.from(m[3]!, 'base64url');
  // Canonical base64url only: a token with different trailing bits is a different string.
  if (given.length !== 32 || given.toString('base64url') !== m[3]) return { ok: false, reason: 'malformed' };
  let match = false;
  for (const s of secrets) match = timingSafeEqual(mac(s, userId, expires), given) || match;
  if (!match) return { ok: false, reason: 'signature' };
  if (expires * 1000 <= nowMs) return { ok: false, reason: 'expired' };
  return { ok: true, userId, expiresAt: expires * 1000 };
}
