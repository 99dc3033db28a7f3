// Members sign on the IC (decisions V5–V7): a member's principal is the self-authenticating
// principal of an Ed25519 key derived (HKDF) from MEMBER_IDENTITY_SECRET and the user id; a vote sent
// through a transport that carries the agent's signed CBOR envelope into the embedded canisters
// arrives with `sender` = the member's principal and a signature that verifies with the derived key.
import assert from 'node:assert/strict';
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { describe, it } from 'node:test';
import { IDL } from '@icp-sdk/core/candid';
import { Principal } from '@icp-sdk/core/principal';
import { Cbor, Expiry, IC_REQUEST_DOMAIN_SEPARATOR, requestIdOf, type HttpAgentRequest } from '@icp-sdk/core/agent';
import type { Ed25519KeyIdentity } from '@icp-sdk/core/identity';
import { fromCandid, toCandid } from '@domdao/canister-kit/candid';
import { CANISTERS, METHOD_TABLES, principalFromSeed, type CanisterName } from '@domdao/canisters';
import { EmbeddedPlatform } from '@domdao/canisters/embedded';
import { candidClients, principalCodec, type CandidTransport } from '@domdao/canisters/ic';
import { memberIdentity, memberPrincipal } from '../src/core/identity/member-identity.ts';
import { loadKeys } from '../src/core/keys.ts';
import { bridge as startBridge } from './harness.ts';

const BRIDGE = principalFromSeed('member-identity-bridge');
const ADMIN = principalFromSeed('member-identity-admin');
const HOUR = 3_600_000_000_000n;
const PASSWORD_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaGhhc2hoYXNo';

interface Envelope {
  content: Record<string, unknown> & {
    sender: Uint8Array;
    method_name: string;
    arg: Uint8Array;
    canister_id: Uint8Array;
  };
  sender_pubkey: Uint8Array;
  sender_sig: Uint8Array;
}

/**
 * The agent's side builds and signs the envelope exactly as HttpAgent does (identity.transformRequest)
 * and CBOR-encodes it; the "replica" side decodes those bytes, checks the signature against the
 * sender's public key and that the key is the sender's, and runs the call as that sender.
 */
function signedEnvelopeTransport(
  identity: Ed25519KeyIdentity,
  platform: EmbeddedPlatform,
  received: Envelope[],
  tamper = false,
): CandidTransport {
  const byId = new Map(CANISTERS.map((c) => [platform.ids[c], c] as const));
  const send = (kind: 'call' | 'query') => async (canisterId: string, method: string, arg: Uint8Array) => {
    const request = {
      endpoint: kind === 'call' ? 'call' : 'read',
      request: { method: 'POST', headers: new Headers() },
      body: {
        request_type: kind,
        canister_id: Principal.fromText(canisterId),
        method_name: method,
        arg,
        sender: identity.getPrincipal(),
        ingress_expiry: Expiry.fromDeltaInMilliseconds(300_000),
      },
    } as unknown as HttpAgentRequest;
    const signed = (await identity.transformRequest(request)) as { body: unknown };
    const wire = Cbor.encode(signed.body);

    const env = Cbor.decode<Envelope>(wire);
    received.push(env);
    if (tamper) env.sender_sig[0]! ^= 1;
    const sender = Principal.fromUint8Array(env.content.sender);
    if (Principal.selfAuthenticating(env.sender_pubkey).toText() !== sender.toText())
      throw new Error("the public key is not the sender's");
    const message = Buffer.concat([IC_REQUEST_DOMAIN_SEPARATOR, new Uint8Array(requestIdOf(env.content))]);
    if (
      !verify(
        null,
        message,
        createPublicKey({ key: Buffer.from(env.sender_pubkey), format: 'der', type: 'spki' }),
        env.sender_sig,
      )
    )
      throw new Error('bad signature');
    const canister = byId.get(Principal.fromUint8Array(env.content.canister_id).toText()) as CanisterName;
    const spec = METHOD_TABLES[canister][env.content.method_name]!;
    const args = IDL.decode(spec.args, env.content.arg).map((v, i) => fromCandid(spec.args[i]!, v, principalCodec));
    const client = platform.as(sender.toText())[canister] as unknown as Record<
      string,
      (...a: unknown[]) => Promise<unknown>
    >;
    const result = await client[env.content.method_name]!(...args);
    return new Uint8Array(IDL.encode([spec.ret], [toCandid(spec.ret, result, principalCodec)]));
  };
  return { query: send('query'), update: send('call') };
}

describe('member identities (decisions V5, V6)', () => {
  it('derives one stable self-authenticating Ed25519 principal per (secret, user id)', () => {
    const secret = new Uint8Array(randomBytes(32));
    const p = memberPrincipal(secret, 'user-1');
    assert.equal(memberPrincipal(secret, 'user-1'), p, 'stable: re-derived, never stored');
    assert.notEqual(memberPrincipal(secret, 'user-2'), p, 'one per user');
    assert.notEqual(
      memberPrincipal(new Uint8Array(randomBytes(32)), 'user-1'),
      p,
      'one per secret (rotation changes every principal)',
    );
    const id = memberIdentity(secret, 'user-1');
    assert.equal(Principal.fromText(p).toUint8Array().at(-1), 0x02, 'self-authenticating principal');
    assert.equal(
      Principal.selfAuthenticating(new Uint8Array(id.getPublicKey().toDer())).toText(),
      p,
      'the principal of the derived public key',
    );
    assert.throws(() => memberIdentity(new Uint8Array(16), 'user-1'), /at least 32 bytes/);
    assert.throws(() => memberIdentity(secret, ''), /needs a user id/);
  });

  it("a member's vote reaches the governance canister signed by the member's derived key, as the member", async () => {
    let now = BigInt(Date.parse('2026-05-01T00:00:00Z')) * 1_000_000n;
    const platform = await EmbeddedPlatform.open({
      clock: () => now,
      admins: [ADMIN],
      registrars: [BRIDGE],
      trustedProposers: [BRIDGE],
      scheduler: false,
    });
    try {
      const secret = new Uint8Array(randomBytes(32));
      const principal = memberPrincipal(secret, 'user-42');
      const bridge = platform.as(BRIDGE);
      const acct = await bridge.user.create_account({
        principal,
        email_encrypted: 'e',
        name_encrypted: 'n',
        dob_encrypted: 'd',
        password_hash: PASSWORD_HASH,
        tos_accepted_at: now - 1n,
        is_age_verified_18_plus: true,
      });
      assert.ok('Ok' in acct);
      assert.ok('Ok' in (await bridge.user.verify_email(acct.Ok.verification_token)));
      assert.ok('Ok' in (await bridge.user.record_kyc(principal, true)));
      assert.ok(
        'Ok' in
          (await bridge.user.upgrade_membership_to_active({
            principal,
            kyc_proof: new Uint8Array([1]),
            payment_proof: new Uint8Array([2]),
          })),
      );
      const created = await bridge.governance.create_proposal({ title: 'Signed vote', body: 'b', category: 'General' });
      assert.ok('Ok' in created);
      now += HOUR;
      await platform.tick();

      const received: Envelope[] = [];
      const member = candidClients(
        platform.ids,
        signedEnvelopeTransport(memberIdentity(secret, 'user-42'), platform, received),
      );
      assert.deepEqual(await member.governance.cast_vote(created.Ok, 'Yes'), { Ok: null });
      assert.equal(await member.governance.get_my_vote(created.Ok), 'Yes');
      const vote = received.find((e) => e.content.method_name === 'cast_vote')!;
      assert.equal(
        Principal.fromUint8Array(vote.content.sender).toText(),
        principal,
        'envelope sender = the member principal',
      );
      assert.equal(Principal.selfAuthenticating(vote.sender_pubkey).toText(), principal);
      assert.equal(
        (await platform.as(ADMIN).governance.list_votes(created.Ok)).find((v) => v.voter === principal)?.vote,
        'Yes',
        'the canister recorded the vote under the member principal',
      );

      // A signature that does not verify is refused before any canister runs.
      const forged = candidClients(
        platform.ids,
        signedEnvelopeTransport(memberIdentity(secret, 'user-42'), platform, [], true),
      );
      await assert.rejects(forged.governance.get_my_vote(created.Ok), /bad signature/);

      // Another key (a wrong secret) cannot vote as that member: its envelope names its own principal.
      const stranger: Envelope[] = [];
      const other = candidClients(
        platform.ids,
        signedEnvelopeTransport(memberIdentity(new Uint8Array(randomBytes(32)), 'user-42'), platform, stranger),
      );
      assert.deepEqual(await other.governance.cast_vote(created.Ok, 'No'), { Err: { NotAMember: null } });
    } finally {
      platform.close();
    }
  });

  it('registration creates the canister account under the derived principal of the new user id (POST /api/auth/register)', async () => {
    const h = await startBridge();
    try {
      const { user_id } = await h.member('signer@domdao.example');
      const row = await h.opened.db
        .selectFrom('users')
        .select('principal')
        .where('id', '=', user_id)
        .executeTakeFirstOrThrow();
      // The same keys.json the running bridge generated under DATA_DIR.
      const { memberIdentitySecret } = await loadKeys(h.config);
      assert.equal(row.principal, memberPrincipal(memberIdentitySecret, user_id));
      assert.equal(Principal.fromText(row.principal).toUint8Array().at(-1), 0x02, 'self-authenticating');
      assert.ok(
        await h.opened.canisters.clients.user.get_account(row.principal),
        'the user canister knows the member by it',
      );
    } finally {
      await h.close();
    }
  });
});
