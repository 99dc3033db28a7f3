// Spec 1 "USD goal calculation" and CampaignProgress: a campaign's goal in DOM (e8s) or USD, converted
// at the ratified price. Without a usable price, contributions still count, in DOM only, and every
// USD view is absent rather than guessed.
export type CampaignGoal = { DomTokens: bigint } | { UsdValue: number };

export interface CampaignProgress {
  goal_dom: bigint;
  raised_dom: bigint;
  raised_usd?: number;
  goal_usd?: number;
  pct_complete: number;
  price_tick_id?: bigint;
}

export { domE8sToUsd, E8S_PER_DOM, usdToDomE8s, type UsablePrice } from '@domdao/canister-kit/rules';
import { domE8sToUsd, usdToDomE8s, type UsablePrice } from '@domdao/canister-kit/rules';

export function campaignProgress(
  goal: CampaignGoal,
  raisedDom: bigint,
  price: UsablePrice | undefined,
): CampaignProgress {
  const usdGoal = 'UsdValue' in goal ? goal.UsdValue : undefined;
  // A USD goal has no DOM equivalent without a price: goal_dom 0 and 0 % (unknown), decision G4.
  const goalDom = 'DomTokens' in goal ? goal.DomTokens : price ? usdToDomE8s(goal.UsdValue, price) : 0n;
  const pct = goalDom > 0n ? Math.min(100, Math.max(0, (Number(raisedDom) / Number(goalDom)) * 100)) : 0;
  return {
    goal_dom: goalDom,
    raised_dom: raisedDom,
    ...(price && { raised_usd: domE8sToUsd(raisedDom, price) }),
    ...(usdGoal !== undefined && { goal_usd: usdGoal }),
    pct_complete: pct,
    ...(price && { price_tick_id: price.proposal_id }),
  };
}
