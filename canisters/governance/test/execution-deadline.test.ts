// Decision G46: get_execution_deadline answers when an Approved proposal expires unless executed:
// its voting_closes plus the execution window in force when it was created (an amendment executed
// later moves only the proposals created after it). The core is driven directly with plain stores.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IDL } from '@icp-sdk/core/candid';
import { plainStore } from '@domdao/canister-kit/testing';
import { GOVERNANCE_STORE_NAMES, governanceCore, type GovernanceStores } from '../core/governance.ts';
import { NS_PER_DAY, NS_PER_HOUR } from '../core/rules/categories.ts';

describe('the execution deadline (decision G46)', () => {
  it('is voting_closes plus the execution window at creation; an amendment moves only later proposals; unknown id: none', async () => {
    const stores = Object.fromEntries(
      Object.keys(GOVERNANCE_STORE_NAMES).map((k) => [k, plainStore()]),
    ) as unknown as GovernanceStores;
    const clock = { now: 1_000n * NS_PER_HOUR };
    const core = governanceCore(stores, {
      candid: IDL,
      membership: {
        get_membership_status: async () => ({ is_active: true }),
        active_member_snapshot: async () => ({ count: 1n, at: clock.now }),
        voting_eligibility: async () => ({ active_now: true, active_at: true }),
        apply_policy: async () => ({ Ok: null }),
      },
      treasury: { execute_payout: async () => ({ Ok: null }) },
    });
    core.init({
      self: 'gov',
      membership_canister: 'm',
      treasury_canister: 't',
      admins: ['admin'],
      trusted_proposers: [],
    });
    const ctx = (caller: string) => ({ caller, now: clock.now });
    const propose = async (args: Parameters<typeof core.create_proposal>[1]) => {
      const r = await core.create_proposal(ctx('admin'), args);
      if (!('Ok' in r)) assert.fail(`create_proposal: ${Object.keys(r.Err)[0]}`);
      return r.Ok;
    };

    const before = await propose({ title: 'Before', body: 'b', category: 'General' });
    const p = core.get_proposal(ctx('x'), before)!;
    assert.equal(
      core.get_execution_deadline(ctx('anyone'), before),
      p.voting_closes + 7n * NS_PER_DAY,
      'the default execution window: 7 days',
    );
    assert.equal(core.get_execution_deadline(ctx('anyone'), 999n), undefined);

    // An amendment to a one-day execution window, voted through and executed.
    const amendment = await propose({
      title: 'Shorter',
      body: 'b',
      category: 'ConstitutionalAmendment',
      payload: { ConstitutionalAmendment: { category_rules: [], execution_window: NS_PER_DAY } },
    });
    clock.now = core.get_proposal(ctx('x'), amendment)!.voting_opens;
    assert.deepEqual(await core.cast_vote(ctx('voter'), amendment, 'Yes'), { Ok: null });
    clock.now = core.get_proposal(ctx('x'), amendment)!.voting_closes;
    for (let i = 0; i < 10 && core.get_proposal(ctx('x'), amendment)!.status !== 'Executed'; i++)
      await core.tick(ctx('scheduler'));
    assert.equal(core.get_proposal(ctx('x'), amendment)!.status, 'Executed');
    assert.equal(core.get_settings(ctx('x')).execution_window, NS_PER_DAY);

    assert.equal(
      core.get_execution_deadline(ctx('anyone'), before),
      p.voting_closes + 7n * NS_PER_DAY,
      'fixed at creation (spec 1 Categories rule 2)',
    );
    const after = await propose({ title: 'After', body: 'b', category: 'General' });
    assert.equal(
      core.get_execution_deadline(ctx('anyone'), after),
      core.get_proposal(ctx('x'), after)!.voting_closes + NS_PER_DAY,
    );
  });
});
