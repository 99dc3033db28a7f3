// Principals of the embedded canisters. They are real canister ids (the first six a local replica
// assigns), so every principal the platform handles has the IC's textual form.
import { createHash } from 'node:crypto';
import { Principal } from '@icp-sdk/core/principal';
import type { CanisterIds } from './api.ts';

const canisterId = (n: number) => Principal.fromUint8Array(new Uint8Array([0, 0, 0, 0, 0, 0, 0, n, 1, 1])).toText();

export const EMBEDDED_CANISTER_IDS: CanisterIds = Object.freeze({
  governance: canisterId(1),
  membership: canisterId(2),
  user: canisterId(3),
  campaign: canisterId(4),
  treasury: canisterId(5),
  ledger: canisterId(6),
});

/**
 * A self-authenticating principal derived from a label: SHA-224 of it plus the 0x02 suffix, the shape
 * the IC gives a public key's principal. For tests and for identities the embedded platform invents.
 */
export function principalFromSeed(seed: string): string {
  const digest = createHash('sha224').update(seed).digest();
  return Principal.fromUint8Array(new Uint8Array([...digest, 0x02])).toText();
}

export function isPrincipalText(text: string): boolean {
  try {
    return Principal.fromText(text).toText() === text;
  } catch {
    return false;
  }
}

/** A principal's text from its bytes (an ICRC-3 block names accounts by their owner's bytes). */
export function principalFromBytes(bytes: Uint8Array): string {
  return Principal.fromUint8Array(bytes).toText();
}
