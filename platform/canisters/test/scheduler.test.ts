// Decision G6: transitions happen on time without anyone calling — the embedded scheduler plays the IC's
// canister timers (governance transitions and executions, the 5-minute mint retry queue).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EmbeddedPlatform } from '../src/embedded/index.ts';
import { ADMIN, BRIDGE, DAY, HOUR, at, PASSWORD_HASH, tempDir } from './harness.ts';
import { principalFromSeed } from '../src/principals.ts';

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('embedded scheduler (the IC timers, embedded)', () => {
  it('opens, closes and executes a proposal and retries a failed mint with no call from anyone', async () => {
    let now = at('2026-05-01T00:00:00Z');
    let mintDown = true;
    const errors: unknown[] = [];
    const p = await EmbeddedPlatform.open({
      clock: () => now,
      admins: [ADMIN],
      registrars: [BRIDGE],
      schedulerMaxSleepMs: 5,
      onSchedulerError: (e) => errors.push(e),
      interceptCall: (_f, _t, method) => {
        if (mintDown && method === 'mint_membership_registered') throw new Error('stopped');
      },
    });
    try {
      const bridge = p.as(BRIDGE);
      const principal = principalFromSeed('late-minted');
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
      await bridge.user.verify_email(acct.Ok.verification_token);
      const r = await p.as(ADMIN).governance.create_proposal({ title: 'Timers', body: 'b', category: 'General' });
      assert.ok('Ok' in r);
      const statusChanges = async () =>
        (await p.as(ADMIN).governance.list_admin_events(undefined, 100)).filter((e) => 'StatusChanged' in e.kind)
          .length;
      now += HOUR;
      await eventually(async () => (await statusChanges()) === 1, 'Created → Open recorded by the scheduler');
      // The scheduler already retried the mint once (it was due after 5 minutes); the next try is 10 minutes later.
      await eventually(async () => (await bridge.user.list_retry_queue())[0]?.attempts === 2, 'the first mint retry');
      mintDown = false;
      now += 10n * 60_000_000_000n;
      await eventually(
        async () => (await bridge.user.get_account(principal))?.membership_token_id !== undefined,
        'the second mint retry, 10 minutes later',
      );
      now += 7n * DAY;
      await eventually(
        async () => (await statusChanges()) === 3,
        'Open → Tallied → Rejected recorded by the scheduler',
      );
      assert.deepEqual(errors, []);
    } finally {
      p.close();
    }
  });

  it('sleeps until the next due time: a proposal created an hour before its vote opens wakes the scheduler 1 h (+1 ms) later', async (t) => {
    const now = at('2026-05-01T00:00:00Z');
    const dir = tempDir();
    const first = await EmbeddedPlatform.open({
      dir,
      clock: () => now,
      admins: [ADMIN],
      registrars: [BRIDGE],
      scheduler: false,
    });
    const r = await first.as(ADMIN).governance.create_proposal({ title: 'Wake', body: 'b', category: 'General' });
    assert.ok('Ok' in r);
    assert.equal((await first.as(ADMIN).governance.get_proposal(r.Ok))!.voting_opens, now + HOUR);
    first.close();
    // The delays the scheduler asks setTimeout for (its only way to sleep).
    const delays: number[] = [];
    const real = globalThis.setTimeout;
    globalThis.setTimeout = ((fn: () => void, ms?: number, ...rest: unknown[]) => {
      if (new Error().stack?.includes('embedded/platform.ts')) delays.push(ms ?? 0);
      return (real as (...a: unknown[]) => ReturnType<typeof setTimeout>)(fn, ms, ...rest);
    }) as typeof setTimeout;
    t.after(() => (globalThis.setTimeout = real));
    const p = await EmbeddedPlatform.open({
      dir,
      clock: () => now,
      schedulerMaxSleepMs: 24 * 3_600_000,
      onSchedulerError: (e) => assert.fail(String(e)),
    });
    t.after(() => p.close());
    await eventually(async () => delays.length >= 2, 'the first step and the sleep after it');
    globalThis.setTimeout = real;
    assert.deepEqual(
      delays.slice(0, 2),
      [0, 3_600_001],
      'a first step at once, then sleep until voting opens (rounded up to the next ms)',
    );
  });
});
