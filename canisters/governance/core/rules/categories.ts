// Spec 1 "Categories": what each proposal category requires and how long its vote runs.
// Percentages are basis points (1 % = 100) so every comparison is exact integer arithmetic.
import { PROPOSAL_CATEGORIES, type ProposalCategory } from '@domdao/canister-kit/rules';

/** The list is kept once, in @domdao/canister-kit/rules (decision S17): the bridge and the web app read it there. */
export const CATEGORIES = PROPOSAL_CATEGORIES;
export type { ProposalCategory };

export interface CategoryRules {
  /** Turnout (yes + no + abstain) needed, as a share of members active when voting opens. */
  quorumBps: number;
  /** Yes votes needed, as a share of yes + no. */
  thresholdBps: number;
  /** Length of the voting window, nanoseconds (IC time). */
  votingWindowNs: bigint;
}

export { NS_PER_DAY, NS_PER_HOUR, NS_PER_SECOND } from '@domdao/canister-kit/rules';
import { NS_PER_DAY, NS_PER_HOUR } from '@domdao/canister-kit/rules';

/** The defaults of spec 1; ConstitutionalAmendment proposals may change them for later proposals. */
export const DEFAULT_CATEGORY_RULES: Readonly<Record<ProposalCategory, CategoryRules>> = Object.freeze({
  General: { quorumBps: 1000, thresholdBps: 5100, votingWindowNs: 7n * NS_PER_DAY },
  TreasuryPayout: { quorumBps: 2000, thresholdBps: 6000, votingWindowNs: 5n * NS_PER_DAY },
  SetDomPrice: { quorumBps: 1500, thresholdBps: 5500, votingWindowNs: 3n * NS_PER_DAY },
  MembershipPolicy: { quorumBps: 2500, thresholdBps: 6600, votingWindowNs: 7n * NS_PER_DAY },
  ConstitutionalAmendment: { quorumBps: 4000, thresholdBps: 7500, votingWindowNs: 14n * NS_PER_DAY },
  // The 24-hour fast track: the normal window is bypassed.
  EmergencyAction: { quorumBps: 500, thresholdBps: 8000, votingWindowNs: 24n * NS_PER_HOUR },
});

export function isCategory(value: unknown): value is ProposalCategory {
  return typeof value === 'string' && (CATEGORIES as readonly string[]).includes(value);
}

/** Refuses rules a ConstitutionalAmendment could not sensibly enact. Returns a reason, or undefined. */
export function categoryRulesProblem(rules: CategoryRules): string | undefined {
  if (!Number.isInteger(rules.quorumBps) || rules.quorumBps < 1 || rules.quorumBps > 10_000)
    return 'quorum must be 0.01 % to 100 %';
  if (!Number.isInteger(rules.thresholdBps) || rules.thresholdBps < 5_001 || rules.thresholdBps > 10_000)
    return 'threshold must be above 50 % and at most 100 %';
  if (rules.votingWindowNs < NS_PER_HOUR || rules.votingWindowNs > 90n * NS_PER_DAY)
    return 'voting window must be 1 hour to 90 days';
  return undefined;
}
