// The bridge's IC identity from a PEM file, as dfx writes them: an Ed25519 PKCS#8 key
// ("BEGIN PRIVATE KEY") or a secp256k1 SEC1 key ("BEGIN EC PRIVATE KEY").
import { createPrivateKey } from 'node:crypto';
import type { Identity } from '@icp-sdk/core/agent';
import { Ed25519KeyIdentity } from '@icp-sdk/core/identity';
import { Secp256k1KeyIdentity } from '@icp-sdk/core/identity/secp256k1';

export function identityFromPem(pem: string): Identity {
  if (pem.includes('BEGIN EC PRIVATE KEY')) return Secp256k1KeyIdentity.fromPem(pem);
  if (pem.includes('BEGIN PRIVATE KEY')) {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== 'ed25519')
      throw new Error(`unsupported key type ${key.asymmetricKeyType ?? 'unknown'}: use an Ed25519 or secp256k1 key`);
    const jwk = key.export({ format: 'jwk' });
    return Ed25519KeyIdentity.fromSecretKey(new Uint8Array(Buffer.from(jwk.d!, 'base64url')));
  }
  throw new Error('the identity file holds no private key in PEM form');
}
