// Bench members made the way the bridge makes them: an account, its verification (the mint), KYC and
// payment (the upgrade to active). Shared by the embedded and the wasm benchmarks.
import type { UserClient } from '../platform/canisters/src/api.ts';

/** A well-formed argon2id PHC string: the user canister stores it, nothing checks it. */
export const BENCH_PASSWORD_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaGhhc2hoYXNo';

/** A canister's Ok, or an error naming its Err (bigints as decimal text). */
export const ok = <T>(r: { Ok: T } | { Err: unknown }): T => {
  if ('Err' in r) throw new Error(JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));
  return r.Ok;
};

/** create_account's arguments for a bench member: placeholders for the encrypted fields, the terms accepted just before `now`. */
export function memberAccount(principal: string, now: bigint) {
  return {
    principal,
    email_encrypted: 'e',
    name_encrypted: 'n',
    dob_encrypted: 'd',
    password_hash: BENCH_PASSWORD_HASH,
    tos_accepted_at: now - 1n,
    is_age_verified_18_plus: true,
  };
}

/** Makes `principal` an active member through `user`, the bridge's client of the user canister. */
export async function makeMember(user: UserClient, principal: string, now: bigint): Promise<void> {
  const created = ok(await user.create_account(memberAccount(principal, now)));
  ok(await user.verify_email(created.verification_token));
  ok(await user.record_kyc(principal, true));
  ok(
    await user.upgrade_membership_to_active({
      principal,
      kyc_proof: new Uint8Array([1]),
      payment_proof: new Uint8Array([2]),
    }),
  );
}
