// How long a new proposal waits before voting opens and how long its vote runs: the settings
// (spec 1 "Categories", changed by ConstitutionalAmendment), or the development times the embedded
// host may be given (decision G45), which apply to proposals created while they are set.
import type { DevVoting, GovernanceSettings } from '../types.ts';
import type { ProposalCategory } from './categories.ts';

export function votingDelay(settings: GovernanceSettings, dev: DevVoting | undefined): bigint {
  return dev?.delay ?? settings.voting_delay;
}

export function votingWindow(
  settings: GovernanceSettings,
  category: ProposalCategory,
  dev: DevVoting | undefined,
): bigint {
  return dev?.window ?? settings.rules[category].votingWindowNs;
}
