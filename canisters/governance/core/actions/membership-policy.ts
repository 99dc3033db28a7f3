// MembershipPolicy (spec 1 Categories): admin changes and revocations, applied by the membership
// canister's apply_policy.
import type { MembershipPolicyPayload } from '../types.ts';
import type { ProposalAction } from './action.ts';

export const MAX_POLICY_PRINCIPALS = 100;

export const membershipPolicy: ProposalAction<MembershipPolicyPayload> = {
  check(p) {
    const all = [...p.add_admins, ...p.remove_admins, ...p.revoke];
    if (all.length === 0) return 'a membership policy must change something';
    if (all.length > MAX_POLICY_PRINCIPALS) return `at most ${MAX_POLICY_PRINCIPALS} principals per policy`;
    if (p.add_admins.some((a) => p.remove_admins.includes(a)))
      return 'a principal cannot be both added and removed as admin';
    return undefined;
  },
  async call(_proposalId, payload, deps) {
    const r = await deps.membership.apply_policy(payload);
    return 'Err' in r ? `membership canister refused the policy: ${r.Err}` : undefined;
  },
};
