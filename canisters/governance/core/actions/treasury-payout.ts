// TreasuryPayout (spec 1 Categories): checked at creation by the shared payout rules, executed by the
// treasury canister's execute_payout (keyed by the proposal id, so a retry never pays twice).
import { payoutProblem } from '@domdao/canister-kit/rules';
import type { PayoutPayload } from '../types.ts';
import type { ProposalAction } from './action.ts';

export const treasuryPayout: ProposalAction<PayoutPayload> = {
  check: (payload) => payoutProblem(payload),
  async call(proposalId, payload, deps) {
    const r = await deps.treasury.execute_payout(proposalId, payload);
    return 'Err' in r ? `treasury refused the payout: ${describe(r.Err)}` : undefined;
  },
};

function describe(e: unknown): string {
  if (e !== null && typeof e === 'object') {
    const [k, v] = (Object.entries(e)[0] as [string, unknown] | undefined) ?? ['error', undefined];
    return v === null || v === undefined
      ? k
      : `${k}: ${typeof v === 'string' ? v : JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))}`;
  }
  return String(e);
}
