// Decision G20: where the host counts instructions, a scheduler step stops burning receipts
// once its message has used STEP_INSTRUCTION_BUDGET, and finishes at later steps; where it does not
// (the embedded host), BURN_BATCH alone bounds a step. The core is driven directly with a counter the
// test controls, standing in for the IC's performance_counter.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STEP_INSTRUCTION_BUDGET } from '../core/scheduler.ts';
import { NS_PER_HOUR } from '../core/rules/categories.ts';
import { coreWithProposal } from './core.ts';

async function closedProposalWithVotes(
  voters: number,
  instructions?: () => bigint,
  wrap?: Parameters<typeof coreWithProposal>[1],
) {
  const { core, ctx, clock, id } = await coreWithProposal(
    { eligible: BigInt(voters), ...(instructions && { instructions }) },
    wrap,
  );
  clock.now += 2n * NS_PER_HOUR;
  await core.tick(ctx('timer'));
  for (let i = 0; i < voters; i++) assert.deepEqual(await core.cast_vote(ctx(`voter-${i}`), id, 'Yes'), { Ok: null });
  clock.now += 8n * 24n * NS_PER_HOUR;
  return {
    core,
    id,
    tick: () => core.tick(ctx('timer')),
    supply: () => core.icrc7_total_supply(ctx('admin')),
    proposal: () => core.get_proposal(ctx('admin'), id),
  };
}

describe('receipt burning within the instruction limit (decision G20)', () => {
  it('a step stops burning once its message has used the budget, and later steps finish the work', async () => {
    // Each reading of the counter stands for one receipt burned: a third of the budget apiece.
    let used = 0n;
    const perRead = STEP_INSTRUCTION_BUDGET / 3n;
    const g = await closedProposalWithVotes(10, () => (used += perRead));
    assert.equal(g.supply(), 10n);
    used = 0n;
    await g.tick();
    assert.equal(g.proposal()?.status, 'Executed');
    const afterFirst = g.supply();
    assert.ok(afterFirst > 0n && afterFirst < 10n, `some receipts burned, not all (${afterFirst} left)`);
    for (let step = 0; step < 10 && g.supply() > 0n; step++) {
      used = 0n; // a new timer message starts from zero
      await g.tick();
    }
    assert.equal(g.supply(), 0n, 'all burned over later steps');
  });

  it('decision G21: each step goes on after the vote where the last stopped, so over all steps each vote is read about once', async () => {
    let used = 0n;
    let votesRead = 0;
    const g = await closedProposalWithVotes(
      30,
      () => (used += STEP_INSTRUCTION_BUDGET / 3n),
      (stores) => {
        const entries = stores.votes.entries.bind(stores.votes);
        stores.votes.entries = function* (options) {
          for (const entry of entries(options)) {
            votesRead++;
            yield entry;
          }
        };
        return stores;
      },
    );
    votesRead = 0;
    let steps = 0;
    for (; steps < 40 && g.supply() > 0n; steps++) {
      used = 0n;
      await g.tick();
    }
    assert.equal(g.supply(), 0n, 'all burned');
    assert.ok(steps >= 8, `a few receipts a step: ${steps} steps`);
    // Starting over at every step, step k re-read the 3k votes already handled: about 165 reads here.
    assert.ok(votesRead <= 30 + 2 * steps, `${votesRead} votes read over ${steps} steps`);
    assert.equal(g.proposal()?.status, 'Executed');
  });

  it('without a counter (the embedded host) one step burns up to BURN_BATCH receipts', async () => {
    const g = await closedProposalWithVotes(10);
    await g.tick();
    assert.equal(g.proposal()?.status, 'Executed');
    assert.equal(g.supply(), 0n);
  });
});

describe('scheduler limits at the limit and one unit past it (decisions G6, G20, G23)', () => {
  it('decision G20: a counter at exactly the budget lets the step go on; one instruction more stops it', async () => {
    const at = await closedProposalWithVotes(4, () => STEP_INSTRUCTION_BUDGET);
    await at.tick();
    assert.deepEqual([at.proposal()?.status, at.supply()], ['Executed', 0n]);
    const past = await closedProposalWithVotes(4, () => STEP_INSTRUCTION_BUDGET + 1n);
    await past.tick();
    assert.equal(past.supply(), 4n, 'nothing burned: the step stopped at once');
  });

  it('decision G23: a proposal first seen by the scheduler one ns before its close takes its snapshot; at the close it takes none (voting is over)', async () => {
    for (const [offset, snapshots] of [
      [-1n, 1],
      [0n, 0],
    ] as const) {
      let taken = 0;
      const { core, ctx, clock, id } = await coreWithProposal({
        membership: {
          get_membership_status: async () => ({ is_active: true }),
          active_member_snapshot: async () => (taken++, { count: 3n, at: clock.now }),
          voting_eligibility: async () => ({ active_now: true, active_at: true }),
          apply_policy: async () => ({ Ok: null }),
        },
      });
      clock.now = core.get_proposal(ctx('admin'), id)!.voting_closes + offset;
      await core.tick(ctx('timer'));
      assert.equal(taken, snapshots, `offset ${offset}`);
    }
  });

  it('decision G6: after a failed execution the scheduler next wakes exactly execution_retry_interval after the attempt', async () => {
    let fail = true;
    const { core, ctx, clock } = await coreWithProposal({
      treasury: {
        execute_payout: async () => (fail ? { Err: { LedgerError: 'TemporarilyUnavailable' } } : { Ok: null }),
      } as never,
    });
    const id = (
      (await core.create_proposal(ctx('admin'), {
        title: 'Pay',
        body: 'b',
        category: 'TreasuryPayout',
        payload: { TreasuryPayout: { recipient: 'r', amount: { DomE8s: 5n } } },
      })) as { Ok: bigint }
    ).Ok;
    const p = core.get_proposal(ctx('admin'), id)!;
    clock.now = p.voting_opens;
    await core.tick(ctx('timer'));
    assert.deepEqual(await core.cast_vote(ctx('voter-1'), id, 'Yes'), { Ok: null });
    clock.now = p.voting_closes;
    await core.tick(ctx('timer'));
    const attempted = clock.now;
    assert.equal(core.get_proposal(ctx('admin'), id)!.status, 'Approved', 'the execution failed');
    const wake = core.next_wakeup(ctx('timer'))!;
    assert.ok(wake > attempted, 'not busy-looping');
    clock.now = wake - 1n;
    fail = false;
    await core.tick(ctx('timer'));
    assert.equal(
      core.get_proposal(ctx('admin'), id)!.status,
      'Approved',
      'one ns before the retry is due: not retried',
    );
    clock.now = wake;
    await core.tick(ctx('timer'));
    assert.equal(core.get_proposal(ctx('admin'), id)!.status, 'Executed', 'retried exactly when next_wakeup said');
  });
});
