import { WasmReplica } from '../packages/canisters/test/wasm-host/host.ts';
import { deployWasm } from '../packages/canisters/test/wasm-host/platform.ts';
import { principalFromSeed } from '../packages/canisters/src/principals.ts';
const A = principalFromSeed('admin'), B = principalFromSeed('bridge');
const replica = new WasmReplica();
const d = await deployWasm({ admins: [A], registrars: [B], controller: principalFromSeed('c') }, replica);
const ok = (r: any) => { if ('Err' in r) throw new Error(JSON.stringify(r, (_k, v) => typeof v === 'bigint' ? String(v) : v)); return r.Ok; };
const b = d.as(B);
let t0 = Date.now();
for (let i = 0; i < 50; i++) {
  const principal = principalFromSeed('m' + i);
  const c = ok(await b.user.create_account({ principal, email_encrypted: 'e', name_encrypted: 'n', dob_encrypted: 'd', password_hash: '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaGhhc2hoYXNo', tos_accepted_at: replica.time - 1n, is_age_verified_18_plus: true }));
  ok(await b.user.verify_email(c.verification_token));
  ok(await b.user.record_kyc(principal, true));
  ok(await b.user.upgrade_membership_to_active({ principal, kyc_proof: new Uint8Array([1]), payment_proof: new Uint8Array([2]) }));
}
console.log('50 members ms', Date.now() - t0);
const mem = (replica.canister(d.ids.user).instance.exports.memory as WebAssembly.Memory).buffer.byteLength;
console.log('user heap MiB', mem / 2**20);
const byMethod = new Map<string, bigint[]>();
for (const c of replica.counts) { const k = `${c.canister.slice(0,5)} ${c.kind} ${c.method}`; byMethod.set(k, [...(byMethod.get(k) ?? []), c.instructions]); }
for (const [k, v] of byMethod) console.log(k, v.length, (v.reduce((a, b) => a + b, 0n) / BigInt(v.length)).toLocaleString('en'));
