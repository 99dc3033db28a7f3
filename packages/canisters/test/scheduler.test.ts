// Issue 3: transitions happen on time without anyone calling — the embedded scheduler plays the IC's
// canister timers (governance transitions and executions, the 5-minute mint retry queue).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EmbeddedPlatform } from '../src/embedded/index.ts';
import { ADMIN, BRIDGE, DAY, HOUR, at, PASSWORD_HASH } from './harness.ts';
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
      const acct = await bridge.user.create_account({ principal, email_encrypted: 'e', name_encrypted: 'n', dob_encrypted: 'd', password_hash: PASSWORD_HASH, tos_accepted_at: now - 1n, is_age_verified_18_plus: true });
      assert.ok('Ok' in acct);
      await bridge.user.verify_email(acct.Ok.verification_token);
      const r = await p.as(ADMIN).governance.create_proposal({ title: 'Timers', body: 'b', category: 'General' });
      assert.ok('Ok' in r);
      const statusChanges = async () => (await p.as(ADMIN).governance.list_admin_events(undefined, 100)).filter((e) => 'StatusChanged' in e.kind).length;
      now += HOUR;
      await eventually(async () => (await statusChanges()) === 1, 'Created → Open recorded by the scheduler');
      // The scheduler already retried the mint once (it was due after 5 minutes); the next try is 10 minutes later.
      await eventually(async () => (await bridge.user.list_retry_queue())[0]?.attempts === 2, 'the first mint retry');
      mintDown = false;
      now += 10n * 60_000_000_000n;
      await eventually(async () => (await bridge.user.get_account(principal))?.membership_token_id !== undefined, 'the second mint retry, 10 minutes later');
      now += 7n * DAY;
      await eventually(async () => (await statusChanges()) === 3, 'Open → Tallied → Rejected recorded by the scheduler');
      assert.deepEqual(errors, []);
    } finally {
      p.close();
    }
  });
});
