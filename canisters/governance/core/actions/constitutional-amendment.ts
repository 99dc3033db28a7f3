// ConstitutionalAmendment (spec 1 Categories, decision G14): category rules, voting delay and execution
// window, checked against the rules as they would be after the change, applied to governance's config.
import { categoryRulesProblem, isCategory, type ProposalCategory } from '../rules/categories.ts';
import type { AmendmentPayload, GovernanceSettings } from '../types.ts';
import type { ProposalAction } from './action.ts';

export const constitutionalAmendment: ProposalAction<AmendmentPayload> = {
  check(p, _now, settings) {
    if (p.category_rules.length === 0 && p.voting_delay === undefined && p.execution_window === undefined)
      return 'an amendment must change something';
    const seen = new Set<string>();
    for (const change of p.category_rules) {
      if (!isCategory(change.category)) return 'unknown category';
      if (seen.has(change.category)) return `${change.category} appears twice`;
      seen.add(change.category);
      const merged = applyRulesChange(settings, change.category, change);
      const problem = categoryRulesProblem(merged);
      if (problem) return `${change.category}: ${problem}`;
    }
    if (p.voting_delay !== undefined && p.voting_delay > 7n * 86_400_000_000_000n)
      return 'voting delay must be at most 7 days';
    if (
      p.execution_window !== undefined &&
      (p.execution_window < 3_600_000_000_000n || p.execution_window > 90n * 86_400_000_000_000n)
    ) {
      return 'execution window must be 1 hour to 90 days';
    }
    return undefined;
  },
  apply(_proposalId, a, _now, effects) {
    effects.updateConfig((c) => {
      const rules = { ...c.rules };
      for (const change of a.category_rules) rules[change.category] = applyRulesChange(c, change.category, change);
      return {
        ...c,
        rules,
        voting_delay: a.voting_delay ?? c.voting_delay,
        execution_window: a.execution_window ?? c.execution_window,
      };
    });
  },
};

export function applyRulesChange(
  settings: GovernanceSettings,
  category: ProposalCategory,
  change: Omit<AmendmentPayload['category_rules'][number], 'category'>,
) {
  const current = settings.rules[category];
  return {
    quorumBps: change.quorum_bps ?? current.quorumBps,
    thresholdBps: change.threshold_bps ?? current.thresholdBps,
    votingWindowNs: change.voting_window ?? current.votingWindowNs,
  };
}
