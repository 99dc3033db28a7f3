// The bridge's secrets: from the environment, or on embedded defaults generated once and kept in
// DATA_DIR/keys.json (0600) so restarts keep decrypting what was stored (decision B7).
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BridgeConfig } from '../config.ts';
import { generateRegistrationKey } from './identity/sealed-fields.ts';

export interface BridgeKeys {
  hpkePrivateKey: Uint8Array;
  blindIndexKey: Uint8Array;
  sessionDataKey: Uint8Array;
  /** Every member's IC key is derived from it (identity/member-identity.ts, decision V6). */
  memberIdentitySecret: Uint8Array;
  /** HMAC keys of unsubscribe tokens (spec 3): the current first, then the previous one while rotating (decision N2). */
  signingSecrets: Uint8Array[];
}

const b64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64url'));
const enc = (b: Uint8Array) => Buffer.from(b).toString('base64url');

export async function loadKeys(config: BridgeConfig): Promise<BridgeKeys> {
  const file = join(config.DATA_DIR, 'keys.json');
  let stored: Record<string, string> = {};
  if (existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  let changed = false;
  const get = async (
    envValue: string | undefined,
    name: string,
    make: () => Promise<Uint8Array> | Uint8Array,
  ): Promise<Uint8Array> => {
    if (envValue !== undefined) return b64(envValue);
    if (stored[name] === undefined) {
      stored[name] = enc(await make());
      changed = true;
    }
    return b64(stored[name]);
  };
  const keys: BridgeKeys = {
    hpkePrivateKey: await get(
      config.HPKE_PRIVATE_KEY,
      'hpke_private_key',
      async () => (await generateRegistrationKey()).privateKey,
    ),
    blindIndexKey: await get(config.BLIND_INDEX_KEY, 'blind_index_key', () => new Uint8Array(randomBytes(32))),
    sessionDataKey: await get(config.SESSION_DATA_KEY, 'session_data_key', () => new Uint8Array(randomBytes(32))),
    memberIdentitySecret: await get(
      config.MEMBER_IDENTITY_SECRET,
      'member_identity_secret',
      () => new Uint8Array(randomBytes(32)),
    ),
    signingSecrets: [],
  };
  // SIGNING_SECRET is text (any ≥ 32 characters, as operators paste it); generated as base64url text.
  if (config.SIGNING_SECRET !== undefined) keys.signingSecrets.push(new TextEncoder().encode(config.SIGNING_SECRET));
  else {
    if (stored.signing_secret === undefined) {
      stored.signing_secret = randomBytes(32).toString('base64url');
      changed = true;
    }
    keys.signingSecrets.push(new TextEncoder().encode(stored.signing_secret));
  }
  if (config.SIGNING_SECRET_PREVIOUS !== undefined)
    keys.signingSecrets.push(new TextEncoder().encode(config.SIGNING_SECRET_PREVIOUS));
  if (keys.hpkePrivateKey.length !== 32) throw new Error('HPKE_PRIVATE_KEY must be 32 bytes (base64url)');
  if (keys.blindIndexKey.length < 32) throw new Error('BLIND_INDEX_KEY must be at least 32 bytes (base64url)');
  if (keys.sessionDataKey.length !== 32) throw new Error('SESSION_DATA_KEY must be 32 bytes (base64url)');
  if (keys.memberIdentitySecret.length !== 32) throw new Error('MEMBER_IDENTITY_SECRET must be 32 bytes (base64url)');
  if (changed) {
    mkdirSync(config.DATA_DIR, { recursive: true });
    writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
  }
  return keys;
}

/**
 * Decision B109: what the database records of the secrets its rows are bound to for their life (a
 * member's principal is derived from MEMBER_IDENTITY_SECRET, an email's lookup from BLIND_INDEX_KEY),
 * so a bridge given others is refused. A SHA-256 of a 32-byte random key, cut to 128 bits, tells
 * nothing of the key.
 */
export function keyFingerprints(keys: BridgeKeys): Record<string, string> {
  const print = (name: string, key: Uint8Array) =>
    createHash('sha256')
      .update(`domdao key fingerprint ${name}\0`)
      .update(key)
      .digest()
      .subarray(0, 16)
      .toString('base64url');
  return {
    MEMBER_IDENTITY_SECRET: print('MEMBER_IDENTITY_SECRET', keys.memberIdentitySecret),
    BLIND_INDEX_KEY: print('BLIND_INDEX_KEY', keys.blindIndexKey),
  };
}
