// Spec 1 rule 1 and the categories table: how a closed vote is judged, the way mature DAOs count.
//   quorum:    (yes + no + abstain) / total_eligible ≥ quorum        (abstentions count as turnout)
//   threshold: yes / (yes + no)                    ≥ pass threshold  (abstentions do not count)
// "At least": exactly 51 % yes passes a 51 % threshold; one vote short fails (decision G1).
import type { CategoryRules } from './categories.ts';

export interface Counts {
  yes_votes: bigint;
  no_votes: bigint;
  abstentions: bigint;
  /** Members active when the voting window opened (the quorum snapshot). */
  total_eligible: bigint;
}

export interface VoteTally extends Counts {
  quorum_met: boolean;
  threshold_met: boolean;
}

const BPS = 10_000n;

export function quorumMet(c: Counts, rules: Pick<CategoryRules, 'quorumBps'>): boolean {
  if (c.total_eligible === 0n) return false;
  const turnout = c.yes_votes + c.no_votes + c.abstentions;
  return turnout * BPS >= c.total_eligible * BigInt(rules.quorumBps);
}

export function thresholdMet(c: Counts, rules: Pick<CategoryRules, 'thresholdBps'>): boolean {
  const decided = c.yes_votes + c.no_votes;
  if (decided === 0n) return false;
  return c.yes_votes * BPS >= decided * BigInt(rules.thresholdBps);
}

export function tally(c: Counts, rules: CategoryRules): VoteTally {
  return { ...c, quorum_met: quorumMet(c, rules), threshold_met: thresholdMet(c, rules) };
}

/** Approved exactly when both are met (spec 1 States: Tallied → Approved / Rejected). */
export function passes(t: VoteTally): boolean {
  return t.quorum_met && t.threshold_met;
}
