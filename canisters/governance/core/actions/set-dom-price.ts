// SetDomPrice (spec 1 SetDomPrice rules): checked at creation by the price rules, executed by storing
// the ratified tick in governance itself (no other canister is called).
import { setDomPriceProblem } from '../rules/price.ts';
import type { SetDomPricePayload } from '../types.ts';
import type { ProposalAction } from './action.ts';

export const setDomPrice: ProposalAction<SetDomPricePayload> = {
  check: (payload, now) => setDomPriceProblem(payload, now),
  apply: (proposalId, payload, _now, effects) => effects.setPrice({ proposal_id: proposalId, ...payload }),
};
