// Members sign on the IC (decisions V5–V7): each member's principal is the self-
// authenticating principal of an Ed25519 key derived from the bridge's member-identity secret and the
// user id (HKDF-SHA-256). The key is never stored: it is re-derived when the bridge calls as the
// member. Custody: whoever holds MEMBER_IDENTITY_SECRET can act as every member; losing it loses every
// member's principal (their votes, passes and membership token stay on chain under the old principal).
import { hkdfSync } from 'node:crypto';
import { Ed25519KeyIdentity } from '@icp-sdk/core/identity';

/** Version of the derivation: part of the HKDF salt so a future scheme can never collide with this one. */
export const MEMBER_IDENTITY_SALT = 'domdao/member-identity/v1';

/** The member's Ed25519 identity (the seed is the HKDF output; the same inputs always give the same key). */
export function memberIdentity(secret: Uint8Array, userId: string): Ed25519KeyIdentity {
  if (secret.length < 32) throw new Error('the member identity secret must be at least 32 bytes');
  if (userId.length === 0) throw new Error('a member identity needs a user id');
  const seed = new Uint8Array(hkdfSync('sha256', secret, MEMBER_IDENTITY_SALT, `user:${userId}`, 32));
  return Ed25519KeyIdentity.generate(seed);
}

/** The member's principal as text (what create_account receives and every canister sees as caller). */
export function memberPrincipal(secret: Uint8Array, userId: string): string {
  return memberIdentity(secret, userId).getPrincipal().toText();
}
