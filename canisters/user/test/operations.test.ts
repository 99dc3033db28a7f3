// Decision U5: the registrar's mutating calls are idempotent under an operation id —
// a repeat answers the first answer and does nothing again; answers are kept 7 days and at most
// MAX_OPS of them. Decisions U6 (remove_unverified_account) and U7 (set_password_hash). The core is
// driven directly over plain stores so interleaved calls (as the IC can run them) are visible.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { plainStore } from '@domdao/canister-kit/testing';
import { EmbeddedHost } from '@domdao/canister-kit/embedded';
import { MAX_OPS, NS_PER_MINUTE, OP_RETENTION, USER_STORE_NAMES, userCore, type UserStores } from '../core/user.ts';

const BRIDGE = 'bridge-principal';
const ADMIN = 'admin-principal';
const ALICE = 'alice-principal';
const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaGhhc2hoYXNo';
const HASH2 = '$argon2id$v=19$m=19456,t=2,p=1$b3RoZXJzYWx0$bmV3aGFzaG5ld2hhc2g';

/** Plain map stores by default; the embedded host's B-tree stores where volume matters (calls serialised). */
function setup(host?: EmbeddedHost) {
  const stores = Object.fromEntries(
    Object.entries(USER_STORE_NAMES).map(([k, name]) => [k, host ? host.store('user', name) : plainStore()]),
  ) as unknown as UserStores;
  let seed = 0;
  const calls = { mints: 0, upgrades: 0 };
  let upgradeGate: Promise<void> | undefined;
  const core = userCore(stores, {
    membership: {
      mint_membership_registered: async () => ({ Ok: BigInt(++calls.mints) }),
      upgrade_to_active: async () => {
        calls.upgrades++;
        await upgradeGate;
        return { Ok: null };
      },
      get_membership_status: async () => undefined,
    },
    randomBytes: async () => new Uint8Array(16).map((_, i) => i * 7 + ++seed),
  });
  let now = BigInt(Date.parse('2026-04-01T09:00:00Z')) * 1_000_000n;
  const ctx = (caller = BRIDGE) => ({ caller, now });
  if (!host) core.init({ registrars: [BRIDGE], admins: [ADMIN] });
  const request = (principal = ALICE, password_hash = HASH) => ({
    principal,
    email_encrypted: 'e',
    name_encrypted: 'n',
    dob_encrypted: 'd',
    password_hash,
    tos_accepted_at: now - 1n,
    is_age_verified_18_plus: true,
  });
  return {
    core,
    stores,
    calls,
    ctx,
    request,
    advance: (ns: bigint) => (now += ns),
    gate: (p: Promise<void> | undefined) => {
      upgradeGate = p;
    },
  };
}

describe('operation ids make the registrar calls idempotent (decision U5)', () => {
  it('create_account: a repeat with the same op id answers the same token and creates nothing new; without an op id a repeat is AccountExists', async () => {
    const u = setup();
    const first = await u.core.create_account(u.ctx(), u.request(), 'register:1');
    assert.ok('Ok' in first);
    assert.deepEqual(await u.core.create_account(u.ctx(), u.request(), 'register:1'), first);
    assert.equal(u.stores.accounts.size, 1);
    assert.equal(u.stores.tokens.size, 1, 'no second token was issued');
    assert.deepEqual(await u.core.create_account(u.ctx(), u.request()), { Err: { AccountExists: null } });
    assert.deepEqual(
      await u.core.create_account(u.ctx(), u.request(), 'register:2'),
      { Err: { AccountExists: null } },
      'another op id is another operation',
    );
  });

  it('verify_email: a repeat after the token was used answers Ok again (the bridge lost the first reply), minting once', async () => {
    const u = setup();
    const c = await u.core.create_account(u.ctx(), u.request(), 'register:1');
    assert.ok('Ok' in c);
    const first = await u.core.verify_email(u.ctx(), c.Ok.verification_token, 'verify:a');
    assert.deepEqual(first, { Ok: { principal: ALICE, membership_token_id: 1n } });
    assert.deepEqual(await u.core.verify_email(u.ctx(), c.Ok.verification_token, 'verify:a'), first);
    assert.equal(u.calls.mints, 1);
    assert.deepEqual(
      await u.core.verify_email(u.ctx(), c.Ok.verification_token),
      { Err: { TokenInvalid: null } },
      'without the op id the used token is refused',
    );
  });

  it('record_kyc and upgrade_membership_to_active: a repeat does not call the membership canister again (one payment, one year)', async () => {
    const u = setup();
    const c = await u.core.create_account(u.ctx(), u.request());
    assert.ok('Ok' in c);
    await u.core.verify_email(u.ctx(), c.Ok.verification_token);
    assert.deepEqual(await u.core.record_kyc(u.ctx(), ALICE, true, 'kyc:1'), { Ok: null });
    // A later decision under another op id, then a late repeat of the first: the repeat changes nothing.
    assert.deepEqual(await u.core.record_kyc(u.ctx(), ALICE, false, 'kyc:2'), { Ok: null });
    assert.deepEqual(await u.core.record_kyc(u.ctx(), ALICE, true, 'kyc:1'), { Ok: null });
    assert.equal(u.stores.accounts.get(ALICE)!.kyc_verified, false);
    await u.core.record_kyc(u.ctx(), ALICE, true, 'kyc:3');
    const req = { principal: ALICE, kyc_proof: new Uint8Array([1]), payment_proof: new Uint8Array([2]) };
    assert.deepEqual(await u.core.upgrade_membership_to_active(u.ctx(), req, 'upgrade:pi_1'), { Ok: null });
    assert.deepEqual(await u.core.upgrade_membership_to_active(u.ctx(), req, 'upgrade:pi_1'), { Ok: null });
    assert.equal(u.calls.upgrades, 1);
  });

  it('a repeat that interleaves with the first call (the IC runs other messages during its await) is told InProgress, then gets the answer', async () => {
    const u = setup();
    const c = await u.core.create_account(u.ctx(), u.request());
    assert.ok('Ok' in c);
    await u.core.verify_email(u.ctx(), c.Ok.verification_token);
    await u.core.record_kyc(u.ctx(), ALICE, true);
    let open!: () => void;
    u.gate(new Promise<void>((r) => (open = r)));
    const req = { principal: ALICE, kyc_proof: new Uint8Array([1]), payment_proof: new Uint8Array([2]) };
    const first = u.core.upgrade_membership_to_active(u.ctx(), req, 'upgrade:pi_1');
    assert.deepEqual(await u.core.upgrade_membership_to_active(u.ctx(), req, 'upgrade:pi_1'), {
      Err: { InProgress: null },
    });
    open();
    assert.deepEqual(await first, { Ok: null });
    assert.deepEqual(await u.core.upgrade_membership_to_active(u.ctx(), req, 'upgrade:pi_1'), { Ok: null });
    assert.equal(u.calls.upgrades, 1);
  });

  it('refusals are answers too (replayed), but NotAuthorized is not recorded; an op id is bound to its method and its format is checked', async () => {
    const u = setup();
    assert.deepEqual(await u.core.record_kyc(u.ctx(), ALICE, true, 'kyc:x'), { Err: { AccountNotFound: null } });
    await u.core.create_account(u.ctx(), u.request());
    assert.deepEqual(
      await u.core.record_kyc(u.ctx(), ALICE, true, 'kyc:x'),
      { Err: { AccountNotFound: null } },
      'the recorded answer, though the account exists now',
    );
    assert.deepEqual(await u.core.set_password_hash(u.ctx('stranger'), ALICE, HASH2, 'pw:1'), {
      Err: { NotAuthorized: null },
    });
    assert.deepEqual(
      await u.core.set_password_hash(u.ctx(), ALICE, HASH2, 'pw:1'),
      { Ok: null },
      'a stranger cannot spend the op id',
    );
    assert.deepEqual(await u.core.remove_unverified_account(u.ctx(), ALICE, 'pw:1'), {
      Err: { InvalidRequest: 'op_id pw:1 was used for set_password_hash' },
    });
    assert.ok(u.stores.accounts.has(ALICE));
    for (const bad of ['', 'x'.repeat(129), 'has space', 'ünï']) {
      assert.deepEqual(await u.core.record_kyc(u.ctx(), ALICE, true, bad), {
        Err: { InvalidRequest: 'op_id must be 1 to 128 characters of A-Z a-z 0-9 : . _ -' },
      });
    }
  });

  it("answers are kept 7 days, then dropped: a repeat after that runs again and meets the method's own checks", async () => {
    const u = setup();
    const c = await u.core.create_account(u.ctx(), u.request(), 'register:1');
    u.advance(OP_RETENTION - 1n);
    assert.deepEqual(
      await u.core.create_account(u.ctx(), u.request(), 'register:1'),
      c,
      'kept until the retention ends',
    );
    u.advance(1n);
    await u.core.record_kyc(u.ctx(), ALICE, true, 'kyc:later'); // any recorded call prunes what is due
    assert.equal(u.stores.ops.has('register:1'), false);
    assert.deepEqual(await u.core.create_account(u.ctx(), u.request(), 'register:1'), { Err: { AccountExists: null } });
  });

  it(`at most MAX_OPS (${MAX_OPS}) answers are kept: the oldest go first, a bounded number per call`, async () => {
    const host = EmbeddedHost.open({});
    const u = setup(host);
    await host.update('user', () => u.core.init({ registrars: [BRIDGE], admins: [ADMIN] }));
    await host.update('user', () => u.core.create_account(u.ctx(), u.request()));
    for (let i = 0; i < MAX_OPS + 100; i++)
      await host.update('user', () => u.core.record_kyc(u.ctx(), ALICE, true, `kyc:${i}`));
    assert.ok(u.stores.ops.size <= MAX_OPS, `${u.stores.ops.size} answers kept`);
    assert.equal(u.stores.ops.size, u.stores.opOrder.size);
    assert.equal(u.stores.ops.has('kyc:0'), false);
    assert.equal(u.stores.ops.has(`kyc:${MAX_OPS + 99}`), true);
  });
});

describe('remove_unverified_account (decision U6) and set_password_hash (decision U7)', () => {
  it('removes an unverified account with its token (its link stops working, the principal may register again); a verified one is refused', async () => {
    const u = setup();
    const c = await u.core.create_account(u.ctx(), u.request());
    assert.ok('Ok' in c);
    assert.deepEqual(
      await u.core.remove_unverified_account(u.ctx(ADMIN), ALICE),
      { Err: { NotAuthorized: null } },
      'registrar only',
    );
    assert.deepEqual(await u.core.remove_unverified_account(u.ctx(), ALICE, 'expire:1'), { Ok: null });
    assert.deepEqual(
      await u.core.remove_unverified_account(u.ctx(), ALICE, 'expire:1'),
      { Ok: null },
      'a repeat answers the same',
    );
    assert.deepEqual(await u.core.remove_unverified_account(u.ctx(), ALICE), { Err: { AccountNotFound: null } });
    assert.equal(u.core.get_account(u.ctx(), ALICE), undefined);
    assert.equal(u.stores.tokens.size + u.stores.tokenOf.size, 0);
    assert.deepEqual(await u.core.verify_email(u.ctx(), c.Ok.verification_token), { Err: { TokenInvalid: null } });
    assert.ok('Ok' in (await u.core.create_account(u.ctx(), u.request())));
    const again = await u.core.create_account(u.ctx(), u.request('bob-principal'));
    assert.ok('Ok' in again);
    await u.core.verify_email(u.ctx(), again.Ok.verification_token);
    assert.deepEqual(await u.core.remove_unverified_account(u.ctx(), 'bob-principal'), {
      Err: { InvalidRequest: 'the account is verified; only an unverified account is removed' },
    });
    assert.ok(u.core.get_account(u.ctx(), 'bob-principal'));
  });

  it('set_password_hash stores a new argon2id hash (registrar only) and refuses anything else', async () => {
    const u = setup();
    await u.core.create_account(u.ctx(), u.request());
    assert.deepEqual(await u.core.set_password_hash(u.ctx(ADMIN), ALICE, HASH2), { Err: { NotAuthorized: null } });
    assert.deepEqual(await u.core.set_password_hash(u.ctx(), ALICE, 'hunter2hunter2'), {
      Err: { InvalidRequest: 'password_hash must be an argon2id PHC string' },
    });
    assert.deepEqual(await u.core.set_password_hash(u.ctx(), 'nobody', HASH2), { Err: { AccountNotFound: null } });
    assert.equal(u.stores.accounts.get(ALICE)!.password_hash, HASH);
    assert.deepEqual(await u.core.set_password_hash(u.ctx(), ALICE, HASH2, 'reset:1'), { Ok: null });
    assert.equal(u.stores.accounts.get(ALICE)!.password_hash, HASH2);
    assert.equal(u.core.get_account(u.ctx(), ALICE)!.updated_at > 0n, true);
    assert.equal('password_hash' in u.core.get_account(u.ctx(), ALICE)!, false, 'never returned');
    void NS_PER_MINUTE;
  });
});
