// Spec 1 "InvalidPayload at creation": what each category requires of CreateProposalArgs (decisions
// G10–G12, G14). Returns the reason a proposal is refused, or undefined; the canister answers
// InvalidPayload and the reason is what the bridge shows the member.
import { categoryRulesProblem, isCategory, type ProposalCategory } from './rules/categories.ts';
import { setDomPriceProblem } from './rules/price.ts';
import type { AmendmentPayload, CreateProposalArgs, GovernanceSettings, MembershipPolicyPayload, PayoutPayload, ProposalPayload } from './types.ts';

export const MAX_TITLE_CHARS = 200;
export const MAX_BODY_CHARS = 50_000;
export { MAX_MEMO_CHARS, payoutProblem } from '@domdao/canister-kit/rules';
import { payoutProblem } from '@domdao/canister-kit/rules';
export const MAX_POLICY_PRINCIPALS = 100;
// Control characters other than tab and newlines have no place in a title or a Markdown body.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Which payload variant each category needs: required, optional (EmergencyAction) or none. */
const PAYLOAD_OF: Record<ProposalCategory, keyof UnionKeys | 'none' | 'emergency'> = {
  General: 'none',
  TreasuryPayout: 'TreasuryPayout',
  SetDomPrice: 'SetDomPrice',
  MembershipPolicy: 'MembershipPolicy',
  ConstitutionalAmendment: 'ConstitutionalAmendment',
  EmergencyAction: 'emergency',
};
type UnionKeys = { [K in ProposalPayload extends infer U ? (U extends unknown ? keyof U : never) : never]: true };

export function payloadKind(p: ProposalPayload): keyof UnionKeys {
  return Object.keys(p)[0] as keyof UnionKeys;
}

export function createArgsProblem(args: CreateProposalArgs, now: bigint, settings: GovernanceSettings): string | undefined {
  if (!isCategory(args.category)) return 'unknown category';
  const title = args.title.trim();
  if (title.length === 0 || title.length > MAX_TITLE_CHARS) return `title must be 1 to ${MAX_TITLE_CHARS} characters`;
  if (CONTROL.test(args.title)) return 'title contains control characters';
  if (args.body.trim().length === 0 || args.body.length > MAX_BODY_CHARS) return `body must be 1 to ${MAX_BODY_CHARS} characters`;
  if (CONTROL.test(args.body)) return 'body contains control characters';

  const wanted = PAYLOAD_OF[args.category];
  const p = args.payload;
  if (wanted === 'none') return p === undefined ? undefined : `${args.category} proposals carry no payload`;
  if (wanted === 'emergency') {
    if (p === undefined) return undefined;
    if (payloadKind(p) === 'ConstitutionalAmendment') return 'the constitution cannot be amended by an emergency action';
    return payloadProblem(p, now, settings);
  }
  if (p === undefined || payloadKind(p) !== wanted) return `${args.category} proposals need a ${wanted} payload`;
  return payloadProblem(p, now, settings);
}

function payloadProblem(p: ProposalPayload, now: bigint, settings: GovernanceSettings): string | undefined {
  if ('SetDomPrice' in p) return setDomPriceProblem(p.SetDomPrice, now);
  if ('TreasuryPayout' in p) return payoutProblem(p.TreasuryPayout);
  if ('MembershipPolicy' in p) return policyProblem(p.MembershipPolicy);
  return amendmentProblem(p.ConstitutionalAmendment, settings);
}


function policyProblem(p: MembershipPolicyPayload): string | undefined {
  const all = [...p.add_admins, ...p.remove_admins, ...p.revoke];
  if (all.length === 0) return 'a membership policy must change something';
  if (all.length > MAX_POLICY_PRINCIPALS) return `at most ${MAX_POLICY_PRINCIPALS} principals per policy`;
  if (p.add_admins.some((a) => p.remove_admins.includes(a))) return 'a principal cannot be both added and removed as admin';
  return undefined;
}

function amendmentProblem(p: AmendmentPayload, settings: GovernanceSettings): string | undefined {
  if (p.category_rules.length === 0 && p.voting_delay === undefined && p.execution_window === undefined) return 'an amendment must change something';
  const seen = new Set<string>();
  for (const change of p.category_rules) {
    if (!isCategory(change.category)) return 'unknown category';
    if (seen.has(change.category)) return `${change.category} appears twice`;
    seen.add(change.category);
    const merged = applyRulesChange(settings, change.category, change);
    const problem = categoryRulesProblem(merged);
    if (problem) return `${change.category}: ${problem}`;
  }
  if (p.voting_delay !== undefined && p.voting_delay > 7n * 86_400_000_000_000n) return 'voting delay must be at most 7 days';
  if (p.execution_window !== undefined && (p.execution_window < 3_600_000_000_000n || p.execution_window > 90n * 86_400_000_000_000n)) {
    return 'execution window must be 1 hour to 90 days';
  }
  return undefined;
}

export function applyRulesChange(settings: GovernanceSettings, category: ProposalCategory, change: Omit<AmendmentPayload['category_rules'][number], 'category'>) {
  const current = settings.rules[category];
  return {
    quorumBps: change.quorum_bps ?? current.quorumBps,
    thresholdBps: change.threshold_bps ?? current.thresholdBps,
    votingWindowNs: change.voting_window ?? current.votingWindowNs,
  };
}
