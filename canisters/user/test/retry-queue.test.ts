// Spec 2 Limits "mint retry", "RetryQueueItem", "Admin notification" and decision U4, through the user
// core's public methods on the embedded host, with a controllable clock and a membership canister
// that fails, answers "already exists" or recovers on demand.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EmbeddedHost } from '@domdao/canister-kit/embedded';
import { MAX_ATTEMPTS, NS_PER_MINUTE, USER_STORE_NAMES, userCore, type UserStores } from '../core/user.ts';
import { RETRY_STEP_READ } from '../core/retry-queue.ts';

const BRIDGE = 'bridge-principal';
const ADMIN = 'admin-principal';
const ALICE = 'alice-principal';
const PASSWORD_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaGhhc2hoYXNo';
const at = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;

type Mint = { Ok: bigint } | { Err: string };

async function setup() {
  const host = EmbeddedHost.open({});
  const stores = Object.fromEntries(
    Object.entries(USER_STORE_NAMES).map(([k, name]) => [k, host.store('user', name)]),
  ) as unknown as UserStores;
  const membership = {
    /** What the next mint answers (a function: throwing plays an unreachable canister). */
    mint: (): Mint => ({ Err: 'membership canister is stopped' }),
    existing: undefined as { token_id: bigint } | undefined,
    mints: 0,
  };
  const core = userCore(stores, {
    membership: {
      mint_membership_registered: async () => (membership.mints++, membership.mint()),
      upgrade_to_active: async () => ({ Ok: null }),
      get_membership_status: async () => membership.existing,
    },
    randomBytes: async () => new Uint8Array(16).map((_, i) => i * 17 + Number(membership.mints)),
  });
  let now = at('2026-04-01T09:00:00Z');
  const ctx = (caller: string) => ({ caller, now });
  await host.update('user', () => core.init({ registrars: [BRIDGE], admins: [ADMIN] }));
  const created = await host.update('user', () =>
    core.create_account(ctx(BRIDGE), {
      principal: ALICE,
      email_encrypted: 'email-ct',
      name_encrypted: 'name-ct',
      dob_encrypted: 'dob-ct',
      password_hash: PASSWORD_HASH,
      tos_accepted_at: now - 1_000n,
      is_age_verified_18_plus: true,
    }),
  );
  assert.ok('Ok' in created);
  return {
    membership,
    now: () => now,
    setNow: (t: bigint) => (now = t),
    verify: () => host.update('user', () => core.verify_email(ctx(BRIDGE), created.Ok.verification_token)),
    process: () => host.update('user', () => core.process_retry_queue(ctx('user-canister'))),
    queue: (caller = BRIDGE) => host.query('user', () => core.list_retry_queue(ctx(caller))),
    nextRetryAt: () => host.query('user', () => core.next_retry_at(ctx('user-canister'))),
    notifications: (caller = ADMIN) => host.query('user', () => core.list_admin_notifications(ctx(caller))),
    account: () => host.query('user', () => core.get_account(ctx(BRIDGE), ALICE)),
    /** Another account, created and verified (its mint queued while the membership canister fails). */
    register: async (principal: string) => {
      const c = await host.update('user', () =>
        core.create_account(ctx(BRIDGE), {
          principal,
          email_encrypted: 'e',
          name_encrypted: 'n',
          dob_encrypted: 'd',
          password_hash: PASSWORD_HASH,
          tos_accepted_at: now - 1_000n,
          is_age_verified_18_plus: true,
        }),
      );
      assert.ok('Ok' in c);
      return host.update('user', () => core.verify_email(ctx(BRIDGE), c.Ok.verification_token));
    },
  };
}

describe('mint retry queue (spec 2 Limits "mint retry", decision U4)', () => {
  it('backs off 5 min × 2^(n−1), and after the 10th failure leaves the queue with one admin notification', async () => {
    const u = await setup();
    const verified = await u.verify();
    assert.deepEqual(verified, { Ok: { principal: ALICE } }, 'verified, no token id: the mint waits in the queue');
    assert.equal(u.account()!.email_verified, true);
    let [item] = u.queue();
    assert.equal(item!.operation, 'MintRegistered');
    assert.equal(item!.attempts, 1);
    assert.equal(item!.next_attempt, u.now() + 5n * NS_PER_MINUTE);
    assert.equal(item!.last_error, 'membership canister is stopped');
    assert.equal(u.nextRetryAt(), item!.next_attempt);
    assert.deepEqual(u.queue('someone-else'), [], 'only the registrar and admins see the queue');

    u.setNow(item!.next_attempt - 1n);
    assert.equal(await u.process(), 0, 'nothing is due a nanosecond early');
    for (let attempt = 2; attempt <= MAX_ATTEMPTS - 1; attempt++) {
      u.setNow(item!.next_attempt);
      assert.equal(await u.process(), 1);
      [item] = u.queue();
      assert.equal(item!.attempts, attempt);
      assert.equal(
        item!.next_attempt - u.now(),
        5n * NS_PER_MINUTE * 2n ** BigInt(attempt - 1),
        `wait after failure ${attempt}`,
      );
    }
    assert.deepEqual(u.notifications(), []);
    u.setNow(item!.next_attempt);
    await u.process();
    assert.deepEqual(u.queue(), []);
    assert.equal(u.nextRetryAt(), undefined);
    assert.equal(u.membership.mints, MAX_ATTEMPTS);
    const notes = u.notifications();
    assert.equal(notes.length, 1);
    assert.deepEqual(
      { ...notes[0], at: undefined },
      {
        id: 1n,
        type: 'membership_mint_failed',
        user_principal: ALICE,
        email_encrypted: 'email-ct',
        attempts: MAX_ATTEMPTS,
        last_error: 'membership canister is stopped',
        at: undefined,
      },
    );
    assert.deepEqual(u.notifications('someone-else'), [], 'notifications are for staff only');
    assert.equal(u.account()!.membership_token_id, undefined);
  });

  it('decision U8: a step reads at most RETRY_STEP_READ queued items, the next goes on where it stopped, and the queue is worked through', async () => {
    const u = await setup();
    const n = RETRY_STEP_READ * 2 + 37;
    await u.verify();
    for (let i = 0; i < n - 1; i++) await u.register(`outage-${String(i).padStart(4, '0')}`);
    assert.equal(u.queue().length, n, 'every verification during the outage queued its mint');
    u.membership.mint = () => ({ Ok: BigInt(u.membership.mints) });
    u.setNow(u.now() + 5n * NS_PER_MINUTE);
    const mintsBefore = u.membership.mints;
    assert.equal(await u.process(), RETRY_STEP_READ, 'the first step: one read of RETRY_STEP_READ items');
    assert.equal(u.queue().length, n - RETRY_STEP_READ);
    assert.equal(await u.process(), RETRY_STEP_READ, 'the next step goes on after the cursor');
    assert.equal(await u.process(), 37, 'the rest, and the end: the next step starts over');
    assert.deepEqual(u.queue(), []);
    assert.equal(u.membership.mints - mintsBefore, n, 'each queued mint tried once');
    assert.equal(await u.process(), 0);
    assert.equal(u.account()!.membership_token_id !== undefined, true);
  });

  it('decision U8: items not yet due are read and left; the cursor wraps so every item is reached', async () => {
    const u = await setup();
    await u.verify();
    for (let i = 0; i < RETRY_STEP_READ + 10; i++) await u.register(`wrap-${String(i).padStart(4, '0')}`);
    const queued = u.queue();
    // The first RETRY_STEP_READ in principal order get their next attempt pushed a day away.
    u.setNow(u.now() + 5n * NS_PER_MINUTE);
    u.membership.mint = () => ({ Err: 'still down' });
    assert.equal(await u.process(), RETRY_STEP_READ);
    u.membership.mint = () => ({ Ok: 1n });
    assert.equal(
      await u.process(),
      queued.length - RETRY_STEP_READ,
      'the step after the cursor reaches the rest, and reads on from the start (nothing due there)',
    );
    assert.equal(u.queue().length, RETRY_STEP_READ, 'the ones that failed again wait for their backoff');
    assert.equal(await u.process(), 0, 'nothing due yet');
    u.setNow(u.nextRetryAt()!);
    assert.equal(await u.process(), RETRY_STEP_READ, 'wrapped: every waiting item reached in one step');
    assert.deepEqual(u.queue(), []);
  });

  it('an unreachable membership canister is queued with its reason, and a later success records the token id', async () => {
    const u = await setup();
    u.membership.mint = () => {
      throw new Error('canister rejected the call');
    };
    await u.verify();
    assert.equal(u.queue()[0]!.last_error, 'membership canister unavailable: canister rejected the call');
    u.membership.mint = () => ({ Ok: 42n });
    u.setNow(u.queue()[0]!.next_attempt);
    assert.equal(await u.process(), 1);
    assert.deepEqual(u.queue(), []);
    assert.equal(u.account()!.membership_token_id, 42n);
  });

  it('an "already exists" answer counts as success: an earlier mint went through and its reply was lost', async () => {
    const u = await setup();
    u.membership.mint = () => ({ Err: 'AlreadyExists' });
    u.membership.existing = { token_id: 7n };
    assert.deepEqual(await u.verify(), { Ok: { principal: ALICE, membership_token_id: 7n } });
    assert.deepEqual(u.queue(), []);
    assert.equal(u.account()!.membership_token_id, 7n);
  });
});
