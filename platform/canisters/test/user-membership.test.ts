// Spec 2 user and membership canisters through their public methods on the embedded platform:
// accounts, the 24-hour verification token, minting with the retry queue, the upgrade to Active, and
// who may call what.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CreateAccountRequest } from '@domdao/canister-user';
import { principalFromSeed } from '../src/principals.ts';
import { ADMIN, BRIDGE, DAY, harness, PASSWORD_HASH, tempDir } from './harness.ts';

const MINUTE = 60_000_000_000n;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function request(label: string, now: bigint, extra: Partial<CreateAccountRequest> = {}): CreateAccountRequest {
  return {
    principal: principalFromSeed(label),
    email_encrypted: `ct-email-${label}`,
    name_encrypted: `ct-name-${label}`,
    dob_encrypted: `ct-dob-${label}`,
    password_hash: PASSWORD_HASH,
    tos_accepted_at: now - 1n,
    is_age_verified_18_plus: true,
    ...extra,
  };
}

describe('create_account and get_account (spec 2 User account, decisions U1, U3)', () => {
  it('creates the account with a 24-hour UUID token; the date of birth and the password hash are never returned', async () => {
    const h = await harness();
    const r = h.ok(await h.bridge.user.create_account(request('alice', h.now())));
    assert.match(r.verification_token, UUID_V4);
    assert.equal(r.expires_at, h.now() + DAY);
    const a = (await h.as(r.principal).user.get_account(r.principal))!;
    assert.equal(a.email_verified, false);
    assert.equal(a.kyc_verified, false);
    assert.equal(a.membership_token_id, undefined);
    assert.equal(a.email_encrypted, 'ct-email-alice');
    assert.ok(!('dob_encrypted' in a) && !('password_hash' in a));
    assert.deepEqual(await h.bridge.user.get_account(r.principal), a, 'the registrar sees the same view');
    assert.equal(
      await h.as(principalFromSeed('someone-else')).user.get_account(r.principal),
      undefined,
      'other callers see nothing',
    );
  });

  it('only the registrar creates accounts; duplicates and malformed requests are refused and nothing is stored', async () => {
    const h = await harness();
    assert.deepEqual(await h.as(principalFromSeed('x')).user.create_account(request('a', h.now())), {
      Err: { NotAuthorized: null },
    });
    assert.deepEqual(await h.admin.user.create_account(request('a', h.now())), { Err: { NotAuthorized: null } });
    const bad: Array<[Partial<CreateAccountRequest>, RegExp]> = [
      [{ password_hash: 'hunter2' }, /argon2id/],
      [{ password_hash: '$argon2i$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA' }, /argon2id/],
      [{ email_encrypted: '' }, /email_encrypted/],
      [{ name_encrypted: 'x'.repeat(8193) }, /name_encrypted/],
      [{ tos_accepted_at: h.now() + 1n }, /tos_accepted_at/],
      [{ tos_accepted_at: 0n }, /tos_accepted_at/],
      [{ principal: '2vxsx-fae' }, /anonymous/],
    ];
    for (const [extra, message] of bad) {
      const r = await h.bridge.user.create_account(request('b', h.now(), extra));
      assert.ok('Err' in r && 'InvalidRequest' in r.Err && message.test(r.Err.InvalidRequest), JSON.stringify(r));
    }
    assert.equal(await h.bridge.user.get_account(principalFromSeed('b')), undefined, 'nothing stored');
    h.ok(await h.bridge.user.create_account(request('a', h.now())));
    assert.deepEqual(await h.bridge.user.create_account(request('a', h.now())), { Err: { AccountExists: null } });
  });
});

describe('verify_email (spec 2 Email verification token, registration rule 4)', () => {
  it('a valid token verifies the email and mints the Registered membership; it works once', async () => {
    const h = await harness();
    const r = h.ok(await h.bridge.user.create_account(request('alice', h.now())));
    const v = h.ok(await h.bridge.user.verify_email(r.verification_token));
    assert.deepEqual(v, { principal: r.principal, membership_token_id: 1n });
    const a = (await h.bridge.user.get_account(r.principal))!;
    assert.equal(a.email_verified, true);
    assert.equal(a.membership_token_id, 1n);
    const m = (await h.bridge.membership.get_membership_status(r.principal))!;
    assert.deepEqual([m.status, m.is_active, m.expiration_date], ['Registered', false, 0n]);
    assert.deepEqual(
      await h.bridge.user.verify_email(r.verification_token),
      { Err: { TokenInvalid: null } },
      'used tokens are gone',
    );
  });

  it('unknown, malformed, expired and superseded tokens are refused; only the registrar verifies', async () => {
    const h = await harness();
    const r = h.ok(await h.bridge.user.create_account(request('alice', h.now())));
    assert.deepEqual(await h.bridge.user.verify_email('00000000-0000-4000-8000-000000000000'), {
      Err: { TokenInvalid: null },
    });
    assert.deepEqual(await h.bridge.user.verify_email("' OR 1=1 --"), { Err: { TokenInvalid: null } });
    assert.deepEqual(await h.as(r.principal).user.verify_email(r.verification_token), { Err: { NotAuthorized: null } });
    assert.deepEqual(await h.as(r.principal).user.reissue_verification_token(r.principal), {
      Err: { NotAuthorized: null },
    });
    assert.deepEqual(await h.admin.user.reissue_verification_token(r.principal), { Err: { NotAuthorized: null } });
    const again = h.ok(await h.bridge.user.reissue_verification_token(r.principal));
    assert.deepEqual(
      await h.bridge.user.verify_email(r.verification_token),
      { Err: { TokenInvalid: null } },
      'the reissued token replaced it',
    );
    h.advance(DAY);
    assert.deepEqual(
      await h.bridge.user.verify_email(again.verification_token),
      { Err: { TokenExpired: null } },
      'valid for 24 hours, not one nanosecond more',
    );
    assert.equal((await h.bridge.user.get_account(r.principal))!.email_verified, false);
    const fresh = h.ok(await h.bridge.user.reissue_verification_token(r.principal));
    h.advance(DAY - 1n);
    h.ok(await h.bridge.user.verify_email(fresh.verification_token));
    assert.deepEqual(await h.bridge.user.reissue_verification_token(r.principal), {
      Err: { InvalidRequest: 'the email address is already verified' },
    });
  });
});

describe('mint retry queue (spec 2 Limits "mint retry", RetryQueueItem, Admin notification)', () => {
  it('a failed mint queues the account; retries back off exponentially from 5 minutes; success clears it', async () => {
    let down = true;
    const h = await harness({
      interceptCall: (from, to, method) => {
        if (down && from === 'user' && method === 'mint_membership_registered')
          throw new Error('membership canister stopped');
      },
    });
    const r = h.ok(await h.bridge.user.create_account(request('alice', h.now())));
    const v = h.ok(await h.bridge.user.verify_email(r.verification_token));
    assert.deepEqual(v, { principal: r.principal }, 'verified, membership pending');
    assert.equal((await h.bridge.user.get_account(r.principal))!.email_verified, true);
    let [item] = await h.bridge.user.list_retry_queue();
    assert.deepEqual(
      { ...item, last_error: undefined },
      {
        user_principal: r.principal,
        operation: 'MintRegistered',
        attempts: 1,
        last_attempt: h.now(),
        next_attempt: h.now() + 5n * MINUTE,
        last_error: undefined,
      },
    );
    assert.match(item!.last_error, /membership canister stopped/);
    h.advance(5n * MINUTE - 1n);
    await h.tick();
    assert.equal((await h.bridge.user.list_retry_queue())[0]!.attempts, 1, 'not due yet');
    h.advance(1n);
    await h.tick();
    [item] = await h.bridge.user.list_retry_queue();
    assert.equal(item!.attempts, 2);
    assert.equal(item!.next_attempt, h.now() + 10n * MINUTE, 'exponential backoff: 5, 10, 20 … minutes');
    down = false;
    h.advance(10n * MINUTE);
    await h.tick();
    assert.deepEqual(await h.bridge.user.list_retry_queue(), []);
    assert.equal((await h.bridge.user.get_account(r.principal))!.membership_token_id, 1n);
    assert.equal((await h.bridge.membership.get_membership_status(r.principal))!.status, 'Registered');
  });

  it('after 10 failed attempts the account leaves the queue and a membership_mint_failed notification is raised; the queue survives restarts', async () => {
    const h = await harness({
      dir: tempDir(),
      interceptCall: (_f, _t, method) => {
        if (method === 'mint_membership_registered') throw new Error('stopped');
      },
    });
    const r = h.ok(await h.bridge.user.create_account(request('bob', h.now())));
    h.ok(await h.bridge.user.verify_email(r.verification_token));
    let h2 = await h.reopen();
    for (let attempt = 1; attempt < 10; attempt++) {
      const [item] = await h2.bridge.user.list_retry_queue();
      assert.equal(item!.attempts, attempt);
      h2.setNow(item!.next_attempt);
      await h2.tick();
      if (attempt === 5) h2 = await h2.reopen();
    }
    assert.deepEqual(await h2.bridge.user.list_retry_queue(), []);
    const notes = await h2.bridge.user.list_admin_notifications(undefined, undefined);
    assert.equal(notes.length, 1);
    assert.deepEqual(
      { ...notes[0]!, at: 0n },
      {
        id: 1n,
        type: 'membership_mint_failed',
        user_principal: r.principal,
        email_encrypted: 'ct-email-bob',
        attempts: 10,
        last_error: 'membership canister unavailable: stopped',
        at: 0n,
      },
    );
    assert.deepEqual(await h2.bridge.user.list_admin_notifications(1n, undefined), [], 'after_id pages');
    assert.deepEqual(await h2.as(r.principal).user.list_admin_notifications(undefined, undefined), [], 'staff only');
    assert.deepEqual(await h2.as(r.principal).user.list_retry_queue(), [], 'staff only');
    h2.platform.close();
  });
});

describe('upgrade_membership_to_active (spec 2 registration rule 6)', () => {
  it('refuses with a clear error until every condition holds, then makes the membership Active until Dec 31', async () => {
    const h = await harness();
    const proofs = { kyc_proof: new Uint8Array([1]), payment_proof: new Uint8Array([2]) };
    const upgrade = (principal: string, p = proofs) => h.bridge.user.upgrade_membership_to_active({ principal, ...p });
    assert.deepEqual(await upgrade(principalFromSeed('ghost')), { Err: { AccountNotFound: null } });
    const r = h.ok(await h.bridge.user.create_account(request('carol', h.now())));
    assert.deepEqual(await upgrade(r.principal), { Err: { EmailNotVerified: null } });
    h.ok(await h.bridge.user.verify_email(r.verification_token));
    assert.deepEqual(await upgrade(r.principal), { Err: { KycNotApproved: null } });
    h.ok(await h.bridge.user.record_kyc(r.principal, true));
    assert.deepEqual(await upgrade(r.principal, { ...proofs, payment_proof: new Uint8Array() }), {
      Err: { InvalidRequest: 'payment_proof must be 1 to 65536 bytes' },
    });
    assert.deepEqual(await h.as(r.principal).user.upgrade_membership_to_active({ principal: r.principal, ...proofs }), {
      Err: { NotAuthorized: null },
    });
    assert.equal(
      (await h.bridge.membership.get_membership_status(r.principal))!.status,
      'Registered',
      'nothing changed',
    );
    h.ok(await upgrade(r.principal));
    const m = (await h.bridge.membership.get_membership_status(r.principal))!;
    assert.deepEqual(
      [m.status, m.is_active, m.expiration_date],
      ['Active', true, BigInt(Date.parse('2026-12-31T23:59:59Z')) * 1_000_000n],
    );
    assert.equal(await h.bridge.membership.count_active_members(), 1n);
  });

  it('minors are refused (Under18); a membership that cannot be upgraded gives MembershipCallFailed (the bridge escrows)', async () => {
    const h = await harness();
    const minor = await h.register('teen', { adult: false });
    h.ok(await h.bridge.user.record_kyc(minor, true));
    const proofs = { kyc_proof: new Uint8Array([1]), payment_proof: new Uint8Array([2]) };
    assert.deepEqual(await h.bridge.user.upgrade_membership_to_active({ principal: minor, ...proofs }), {
      Err: { Under18: null },
    });
    const unverified = h.ok(await h.bridge.user.create_account(request('pending', h.now())));
    h.ok(await h.bridge.user.record_kyc(unverified.principal, true));
    assert.deepEqual(await h.bridge.user.upgrade_membership_to_active({ principal: unverified.principal, ...proofs }), {
      Err: { EmailNotVerified: null },
    });
    assert.equal(
      await h.bridge.membership.get_membership_status(unverified.principal),
      undefined,
      'no token was minted or upgraded',
    );
    const adult = await h.register('adult');
    h.ok(await h.admin.user.record_kyc(adult, true));
    h.ok(await h.admin.membership.revoke_membership(adult));
    assert.deepEqual(await h.bridge.user.upgrade_membership_to_active({ principal: adult, ...proofs }), {
      Err: { MembershipCallFailed: 'the membership was revoked' },
    });
    assert.deepEqual(await h.as(adult).user.record_kyc(adult, true), { Err: { NotAuthorized: null } });
  });
});

describe('membership canister: restricted methods (spec 2 Canister operations)', () => {
  it('mint and upgrade only by the user canister, revoke by admins, policy by governance', async () => {
    const h = await harness();
    const p = principalFromSeed('p');
    for (const caller of [ADMIN, BRIDGE, p, h.platform.ids.governance]) {
      const c = h.as(caller).membership;
      assert.match(
        ((await c.mint_membership_registered(p, h.now() - 1n)) as { Err: string }).Err,
        /only the user canister/,
      );
      assert.match(
        ((await c.upgrade_to_active(p, new Uint8Array([1]))) as { Err: string }).Err,
        /only the user canister/,
      );
    }
    for (const caller of [ADMIN, BRIDGE, p]) {
      assert.match(
        (
          (await h.as(caller).membership.apply_policy({ add_admins: [caller], remove_admins: [], revoke: [] })) as {
            Err: string;
          }
        ).Err,
        /only the governance canister/,
      );
    }
    const member = await h.register('m');
    assert.match(((await h.as(member).membership.revoke_membership(member)) as { Err: string }).Err, /admin only/);
    assert.equal(await h.bridge.membership.icrc7_total_supply(), 1n);
    assert.equal((await h.bridge.membership.icrc7_collection_metadata()).length, 7);
  });
});
