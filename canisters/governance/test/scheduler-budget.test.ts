// Decision G20: where the host counts instructions, a scheduler step stops burning receipts
// once its message has used STEP_INSTRUCTION_BUDGET, and finishes at later steps; where it does not
// (the embedded host), BURN_BATCH alone bounds a step. The core is driven directly with a counter the
// test controls, standing in for the IC's performance_counter.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STEP_INSTRUCTION_BUDGET } from '../core/scheduler.ts';
import { NS_PER_HOUR } from '../core/rules/categories.ts';
import { coreWithProposal } from './core.ts';

async function closedProposalWithVotes(voters: number, instructions?: () => bigint, wrap?: Parameters<typeof coreWithProposal>[1]) {
  const { core, ctx, clock, id } = await coreWithProposal({ eligible: BigInt(voters), ...(instructions && { instructions }) }, wrap);
  clock.now += 2n * NS_PER_HOUR;
  await core.tick(ctx('timer'));
  for (let i = 0; i < voters; i++) assert.deepEqual(await core.cast_vote(ctx(`voter-${i}`), id, 'Yes'), { Ok: null });
  clock.now += 8n * 24n * NS_PER_HOUR;
  return { core, id, tick: () => core.tick(ctx('timer')), supply: () => core.icrc7_total_supply(ctx('admin')), proposal: () => core.get_proposal(ctx('admin'), id) };
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
    const g = await closedProposalWithVotes(30, () => (used += STEP_INSTRUCTION_BUDGET / 3n), (stores) => {
      const entries = stores.votes.entries.bind(stores.votes);
      stores.votes.entries = function* (options) {
        for (const entry of entries(options)) {
          votesRead++;
          yield entry;
        }
      };
      return stores;
    });
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
