// Registration fields encrypted on the client (spec 2 registration rule 2): HPKE (RFC 9180) base mode,
// DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM, single-shot per field. The field name is the
// AAD, so a ciphertext cannot be moved to another field. Wire form: `hpke1.<enc>.<ct>` (base64url).
import { createECDH } from 'node:crypto';
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { REGISTRATION_HPKE_INFO } from '@domdao/registration/seal';

export const SUITE = { kem: 'DHKEM(P-256, HKDF-SHA256)', kdf: 'HKDF-SHA256', aead: 'AES-256-GCM' } as const;
/** The front ends seal with the same info (@domdao/registration, decision S21). */
export const INFO = REGISTRATION_HPKE_INFO;
export const FIELDS = ['email', 'name', 'dob'] as const;
export type Field = (typeof FIELDS)[number];

export function suite(): CipherSuite {
  return new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
}

export async function generateRegistrationKey(): Promise<{ privateKey: Uint8Array; publicKey: Uint8Array }> {
  const s = suite();
  const kp = await s.kem.generateKeyPair();
  return {
    privateKey: new Uint8Array(await s.kem.serializePrivateKey(kp.privateKey)),
    publicKey: new Uint8Array(await s.kem.serializePublicKey(kp.publicKey)),
  };
}

export class UndecryptableError extends Error {
  override name = 'UndecryptableError';
}

/**
 * The bridge's side: unwraps a field or throws UndecryptableError (tampered, wrong key, wrong field);
 * and seals one as a browser would, for answers a page without script sent in plain text (decision B87).
 */
export async function createOpener(privateKey: Uint8Array) {
  const s = suite();
  const key = await s.kem.deserializePrivateKey(privateKey);
  // The public key (uncompressed SEC1 point, as HPKE serialises it) for GET /api/auth/registration-key.
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(privateKey);
  const publicKey = Buffer.from(ecdh.getPublicKey()).toString('base64url');
  const recipientPublicKey = await s.kem.deserializePublicKey(new Uint8Array(ecdh.getPublicKey()));
  return {
    publicKey,
    /** Seals a field to the bridge's own key, as a client does: the canonical address registration stores (decision B82). */
    async seal(field: Field, plaintext: string): Promise<string> {
      const { enc, ct } = await s.seal(
        { recipientPublicKey, info: INFO },
        new TextEncoder().encode(plaintext),
        new TextEncoder().encode(field),
      );
      return `hpke1.${Buffer.from(enc).toString('base64url')}.${Buffer.from(ct).toString('base64url')}`;
    },
    async open(field: Field, wire: string): Promise<string> {
      const m = /^hpke1\.([A-Za-z0-9_-]{80,100})\.([A-Za-z0-9_-]{22,16384})$/.exec(wire);
      if (!m) throw new UndecryptableError(`${field}: not an hpke1 ciphertext`);
      try {
        const pt = await s.open(
          { recipientKey: key, enc: Buffer.from(m[1]!, 'base64url'), info: INFO },
          Buffer.from(m[2]!, 'base64url'),
          new TextEncoder().encode(field),
        );
        return new TextDecoder('utf-8', { fatal: true }).decode(pt);
      } catch {
        throw new UndecryptableError(`${field}: cannot be decrypted`);
      }
    },
  };
}
