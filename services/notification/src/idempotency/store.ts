// Idempotency-Key (beyond spec 3, after draft-ietf-httpapi-idempotency-key-header): a repeat with the
// same key within the TTL returns the first result and sends nothing again. Only successful sends are
// remembered, so a caller may retry a failed one under the same key.
import { createHash } from 'node:crypto';

export interface StoredResult {
  id: string;
  status: 'sent';
  stubbed: boolean;
  request_id: string;
}

export type BeginResult =
  { state: 'new' } | { state: 'replay'; result: StoredResult } | { state: 'in_progress' } | { state: 'mismatch' };

export interface IdempotencyStore {
  /** Claims `key` for a request whose body hashes to `fingerprint`. */
  begin(key: string, fingerprint: string): Promise<BeginResult>;
  complete(key: string, fingerprint: string, result: StoredResult): Promise<void>;
  /** Drops the claim after a failed send. */
  release(key: string): Promise<void>;
  close?(): Promise<void>;
  /** Readiness (decision B72): resolves when the store answers. The in-process store always does. */
  ping?(): Promise<void>;
}

/** How long an unfinished claim blocks the key: longer than any send can take, short enough after a crash. */
export const CLAIM_TTL_MS = 10 * 60 * 1000;

export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export function fingerprintOf(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body)).digest('base64url');
}

/** Keys are stored hashed: they are caller-chosen and may be long or sensitive. */
export function storageKey(key: string): string {
  return createHash('sha256').update(key).digest('base64url');
}
