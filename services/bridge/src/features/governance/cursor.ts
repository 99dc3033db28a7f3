// Decision V33: the delegators list's cursors are opaque. The canister pages by its own key,
// `<delegate>|<member>|<scope>`, which names every delegator, those who chose not to be shown too; the
// bridge hands out that key only sealed (AES-256-GCM under a key of its own, bound to the delegate who
// asked) and with a fresh nonce each time, so no item carries anything that names or tracks a
// delegator from one answer to the next.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const NONCE = 12;
const TAG = 16;

/** The cursors' key, derived from a bridge secret (the session data key) so there is no new secret to keep. */
export function delegatorsCursorKey(secret: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, 'domdao/delegators-cursor/v1', 'aes-256-gcm', 32));
}

export function delegatorCursors(key: Uint8Array) {
  return {
    /** The canister's key, sealed for `delegate`: base64url of nonce ‖ ciphertext ‖ tag. */
    seal(delegate: string, canisterKey: string): string {
      const nonce = randomBytes(NONCE);
      const c = createCipheriv('aes-256-gcm', key, nonce);
      c.setAAD(Buffer.from(delegate, 'utf8'));
      return Buffer.concat([nonce, c.update(canisterKey, 'utf8'), c.final(), c.getAuthTag()]).toString('base64url');
    },
    /** The canister's key, or undefined for anything this bridge did not seal for `delegate`. */
    open(delegate: string, cursor: string): string | undefined {
      const b = Buffer.from(cursor, 'base64url');
      if (b.length < NONCE + TAG + 1 || b.toString('base64url') !== cursor) return undefined;
      try {
        const d = createDecipheriv('aes-256-gcm', key, b.subarray(0, NONCE));
        d.setAAD(Buffer.from(delegate, 'utf8'));
        d.setAuthTag(b.subarray(b.length - TAG));
        return Buffer.concat([d.update(b.subarray(NONCE, b.length - TAG)), d.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
