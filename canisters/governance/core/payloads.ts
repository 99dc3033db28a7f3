// Spec 1 "InvalidPayload at creation": what each category requires of CreateProposalArgs (decisions
// G10–G12, G14): title, body, and which payload variant; each payload's own check is its action's
// (actions/<payload>.ts). Returns the reason a proposal is refused, or undefined; the canister answers
// InvalidPayload and the reason is what the bridge shows the member.
import { actionOf, payloadKind, type PayloadKind } from './actions/registry.ts';
import { isCategory, type ProposalCategory } from './rules/categories.ts';
import type { CreateProposalArgs, GovernanceSettings, ProposalPayload } from './types.ts';

export const MAX_TITLE_CHARS = 200;
export const MAX_BODY_CHARS = 50_000;
export { MAX_MEMO_CHARS, payoutProblem } from '@domdao/canister-kit/rules';
export { applyRulesChange } from './actions/constitutional-amendment.ts';
export { MAX_POLICY_PRINCIPALS } from './actions/membership-policy.ts';
export { payloadKind } from './actions/registry.ts';
// Control characters other than tab and newlines have no place in a title or a Markdown body.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Which payload variant each category needs: required, optional (EmergencyAction) or none. */
const PAYLOAD_OF: Record<ProposalCategory, PayloadKind | 'none' | 'emergency'> = {
  General: 'none',
  TreasuryPayout: 'TreasuryPayout',
  SetDomPrice: 'SetDomPrice',
  MembershipPolicy: 'MembershipPolicy',
  ConstitutionalAmendment: 'ConstitutionalAmendment',
  EmergencyAction: 'emergency',
};

export function createArgsProblem(
  args: CreateProposalArgs,
  now: bigint,
  settings: GovernanceSettings,
): string | undefined {
  if (!isCategory(args.category)) return 'unknown category';
  const title = args.title.trim();
  if (title.length === 0 || title.length > MAX_TITLE_CHARS) return `title must be 1 to ${MAX_TITLE_CHARS} characters`;
  if (CONTROL.test(args.title)) return 'title contains control characters';
  if (args.body.trim().length === 0 || args.body.length > MAX_BODY_CHARS)
    return `body must be 1 to ${MAX_BODY_CHARS} characters`;
  if (CONTROL.test(args.body)) return 'body contains control characters';

  const wanted = PAYLOAD_OF[args.category];
  const p = args.payload;
  if (wanted === 'none') return p === undefined ? undefined : `${args.category} proposals carry no payload`;
  if (wanted === 'emergency') {
    if (p === undefined) return undefined;
    if (payloadKind(p) === 'ConstitutionalAmendment')
      return 'the constitution cannot be amended by an emergency action';
    return payloadProblem(p, now, settings);
  }
  if (p === undefined || payloadKind(p) !== wanted) return `${args.category} proposals need a ${wanted} payload`;
  return payloadProblem(p, now, settings);
}

function payloadProblem(p: ProposalPayload, now: bigint, settings: GovernanceSettings): string | undefined {
  const { action, content } = actionOf(p);
  return action.check(content, now, settings);
}
