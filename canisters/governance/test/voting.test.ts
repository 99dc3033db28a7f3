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
    const gates: Array<ReturnType<typeof deferred<{ active_now: boolean; active_at: boolean }>>> = [];
    const { core, ctx, clock, id } = await coreWithProposal({
      membership: {
        get_membership_status: async () => ({ is_active: true }),
        active_member_snapshot: async () => ({ count: 3n, at: 0n }),
        voting_eligibility: () => {
          const g = deferred<{ active_now: boolean; active_at: boolean }>();
          gates.push(g);
          return g.promise;
        },
        apply_policy: async () => ({ Ok: null }),
      },
    });
    const created = { Ok: id };
    clock.now += 2n * NS_PER_HOUR;
    await core.tick(ctx('admin')); // the opening recorded: the membership check is the vote's first await
    const first = core.cast_vote(ctx('alice'), created.Ok, 'Yes');
    const second = core.cast_vote(ctx('alice'), created.Ok, 'No');
    assert.equal(
      gates.length,
      2,
      'both calls passed their first AlreadyVoted check and wait on the membership canister',
    );
    gates[0]!.resolve({ active_now: true, active_at: true });
    assert.deepEqual(await first, { Ok: null });
    gates[1]!.resolve({ active_now: true, active_at: true });
    assert.deepEqual(await second, { Err: { AlreadyVoted: null } });
    const tally = core.get_tally(ctx('admin'), created.Ok)!;
    assert.deepEqual([tally.yes_votes, tally.no_votes], [1n, 0n], 'one vote counted, the first');
    assert.equal(core.list_votes(ctx('admin'), created.Ok).length, 1);
    assert.equal(core.icrc7_total_supply(ctx('admin')), 1n, 'one receipt minted');
  });

  it("decision G23: the opening recorded by another message during a vote's awaits, at another instant: the voter is checked at the recorded one", async () => {
    const snapshotGate = deferred<{ count: bigint; at: bigint }>();
    let snapshots = 0;
    let joinedAt = 0n;
    const { core, ctx, clock, id } = await coreWithProposal({
      membership: {
        get_membership_status: async () => ({ is_active: true }),
        // The vote's own count waits; the scheduler's, later, answers at once.
        active_member_snapshot: () =>
          snapshots++ === 0 ? snapshotGate.promise : Promise.resolve({ count: 3n, at: clock.now }),
        voting_eligibility: async (_voter, at) => ({ active_now: true, active_at: joinedAt < at }),
        apply_policy: async () => ({ Ok: null }),
      },
    });
    clock.now += 2n * NS_PER_HOUR; // past voting_opens, the opening not recorded yet
    const first = clock.now;
    const voting = core.cast_vote(ctx('alice'), id, 'Yes'); // the first vote opens the window: it counts
    clock.now += 10n;
    joinedAt = clock.now; // alice became Active after the vote's count, before the scheduler's
    clock.now += 10n;
    await core.tick(ctx('scheduler')); // records the opening at this instant
    snapshotGate.resolve({ count: 2n, at: first });
    assert.deepEqual(await voting, { Ok: null }, 'checked at the recorded instant, where alice was Active');
    const tally = core.get_tally(ctx('admin'), id)!;
    assert.equal(tally.total_eligible, 3n, "the scheduler's count stands, not the vote's");
    assert.equal(tally.yes_votes, 1n);
  });

  it('decision V25: list_votes_page answers at most 200 votes, whatever limit is asked', async () => {
    const { core, ctx, clock, id } = await coreWithProposal({ eligible: 300n });
    const created = { Ok: id };
    clock.now += 2n * NS_PER_HOUR;
    for (let i = 0; i < 201; i++)
      assert.deepEqual(await core.cast_vote(ctx(`voter-${String(i).padStart(3, '0')}`), created.Ok, 'Yes'), {
        Ok: null,
      });
    assert.equal(core.list_votes_page(ctx('admin'), created.Ok, undefined, 10_000).length, 200);
    assert.equal(core.list_votes_page(ctx('admin'), created.Ok, 'voter-199', 10_000).length, 1);
  });
});
