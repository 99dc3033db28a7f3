// Spec 1 voting rule "one vote per member", where the IC can break it: cast_vote awaits the membership
// canister, and on the IC other messages run during that await. The core is driven directly with
// interleaved calls (no embedded host, which serialises updates and would hide the interleaving).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coreWithProposal } from './core.ts';
import { NS_PER_HOUR } from '../core/rules/categories.ts';

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('cast_vote under interleaving (spec 1: one vote per member)', () => {
  it('two cast_vote calls of one voter, both past their first await: the second gets AlreadyVoted after the awaits', async () => {
    const gates: Array<ReturnType<typeof deferred<{ is_active: boolean }>>> = [];
    const { core, ctx, clock, id } = await coreWithProposal({
      membership: {
        get_membership_status: () => {
          const g = deferred<{ is_active: boolean }>();
          gates.push(g);
          return g.promise;
        },
        count_active_members: async () => 3n,
        apply_policy: async () => ({ Ok: null }),
      },
    });
    const created = { Ok: id };
    clock.now += 2n * NS_PER_HOUR;
    const first = core.cast_vote(ctx('alice'), created.Ok, 'Yes');
    const second = core.cast_vote(ctx('alice'), created.Ok, 'No');
    assert.equal(gates.length, 2, 'both calls passed their first AlreadyVoted check and wait on the membership canister');
    gates[0]!.resolve({ is_active: true });
    assert.deepEqual(await first, { Ok: null });
    gates[1]!.resolve({ is_active: true });
    assert.deepEqual(await second, { Err: { AlreadyVoted: null } });
    const tally = core.get_tally(ctx('admin'), created.Ok)!;
    assert.deepEqual([tally.yes_votes, tally.no_votes], [1n, 0n], 'one vote counted, the first');
    assert.equal(core.list_votes(ctx('admin'), created.Ok).length, 1);
    assert.equal(core.icrc7_total_supply(ctx('admin')), 1n, 'one receipt minted');
  });

  it('decision V25: list_votes_page answers at most 200 votes, whatever limit is asked', async () => {
    const { core, ctx, clock, id } = await coreWithProposal({ eligible: 300n });
    const created = { Ok: id };
    clock.now += 2n * NS_PER_HOUR;
    for (let i = 0; i < 201; i++) assert.deepEqual(await core.cast_vote(ctx(`voter-${String(i).padStart(3, '0')}`), created.Ok, 'Yes'), { Ok: null });
    assert.equal(core.list_votes_page(ctx('admin'), created.Ok, undefined, 10_000).length, 200);
    assert.equal(core.list_votes_page(ctx('admin'), created.Ok, 'voter-199', 10_000).length, 1);
  });
});
