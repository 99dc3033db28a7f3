// What front ends (and tests) use to encrypt the registration fields for the bridge (spec 2
// registration rule 2). Browser-safe: WebCrypto through @hpke/core, no Node APIs. The bridge opens
// them with the same suite and info (core/identity/sealed-fields.ts, decision S21).
//   const key = await (await fetch(`${bridge}/api/auth/registration-key`)).json();
//   const fields = await encryptRegistration(key.public_key, { email, name, dob: '2001-04-09' });
//   await fetch(`${bridge}/api/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' },
//     body: JSON.stringify({ ...fields, password, tos_accepted: true }) });   // 201 { user_id, status, … }
// From a terminal: `npm run register` (scripts/register.ts) does exactly this.
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';

/** HPKE `info` of every sealed registration field: the sealer here and the bridge's opener must agree. */
export const REGISTRATION_HPKE_INFO = new TextEncoder().encode('domdao registration v1');

function b64url(bytes: ArrayBuffer | Uint8Array): string {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let s = '';
  for (const x of b) s += String.fromCharCode(x);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromB64url(s: string): Uint8Array {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

export interface RegistrationPlaintext {
  email: string;
  name: string;
  /** Date of birth, YYYY-MM-DD. */
  dob: string;
}

export interface EncryptedRegistration {
  email_encrypted: string;
  name_encrypted: string;
  dob_encrypted: string;
}

/** Seals each field to the bridge's public key (base64url, from GET /api/auth/registration-key). */
export async function encryptRegistration(
  publicKey: string,
  fields: RegistrationPlaintext,
): Promise<EncryptedRegistration> {
  const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
  const pk = await suite.kem.deserializePublicKey(fromB64url(publicKey));
  const seal = async (field: keyof RegistrationPlaintext) => {
    const { enc, ct } = await suite.seal(
      { recipientPublicKey: pk, info: REGISTRATION_HPKE_INFO },
      new TextEncoder().encode(fields[field]),
      new TextEncoder().encode(field),
    );
    return `hpke1.${b64url(enc)}.${b64url(ct)}`;
  };
  return { email_encrypted: await seal('email'), name_encrypted: await seal('name'), dob_encrypted: await seal('dob') };
}
