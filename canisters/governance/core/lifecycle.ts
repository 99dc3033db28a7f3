// Spec 1 "States and transitions": Created → Open → Tallied → Approved/Rejected → Executed/Expired.
// Time alone moves a proposal through the first steps, so every read derives the status in force now
// (a late timer never shows a stale state); the scheduler's tick then records the same transitions and
// performs their side effects (decision G6).
import { passes, tally } from './rules/counting.ts';
import type { ProposalRecord, ProposalStatus, VoteTally } from './types.ts';

export function tallyOf(p: ProposalRecord): VoteTally {
  return tally(
    {
      yes_votes: p.yes_votes,
      no_votes: p.no_votes,
      abstentions: p.abstentions,
      total_eligible: p.total_eligible ?? 0n,
    },
    p.rules,
  );
}

/** The status in force at `now`, whatever the scheduler has recorded so far. */
export function statusAt(p: ProposalRecord, now: bigint): ProposalStatus {
  return settleSteps(p, now).at(-1)?.[1] ?? p.status;
}

/**
 * The time-driven transitions due at `now`, in order, as [from, to] pairs. A Created proposal
 * past voting_opens is Open (its snapshot is taken by whoever records the step); a closed vote is
 * Tallied and then, in the same step, evaluated; an Approved proposal past its execution deadline
 * is Expired. A closed vote whose delegated ballots are still being counted stays Tallied (decision G31).
 */
export function settleSteps(p: ProposalRecord, now: bigint): Array<[ProposalStatus, ProposalStatus]> {
  // No inner closure: this runs on every read of a proposal (a vote reads it twice).
  const steps: Array<[ProposalStatus, ProposalStatus]> = [];
  let s: ProposalStatus = p.status;
  if (s === 'Created' && now >= p.voting_opens) steps.push([s, (s = 'Open')]);
  if (s === 'Open' && now >= p.voting_closes) steps.push([s, (s = 'Tallied')]);
  // Decision G31: judged once the votes cast through delegates are counted.
  if (s === 'Tallied' && p.delegation_pending !== true)
    steps.push([s, (s = passes(tallyOf(p)) ? 'Approved' : 'Rejected')]);
  if (s === 'Approved' && now >= p.execution_deadline) steps.push([s, (s = 'Expired')]);
  return steps;
}
