// Contributions (spec 1 USD goal rules 1–3 with real DOM, decisions L14–L16): pulled from the member's
// ledger account into the campaign's escrow and recorded with the tick they were valued at.
import { compositeKey, Err, Ok, type CallContext, type Result } from '@domdao/canister-kit';
import { usdToDomE8s } from '@domdao/canister-kit/rules';
import type { Movement } from './escrow.ts';
import { AMOUNT_RANGE, amountInRange, parseId, valuation, type CampaignState } from './state.ts';
import {
  MAX_CONTRIBUTION_E8S,
  type CampaignDeps,
  type CampaignError,
  type CampaignStores,
  type Contribution,
  type ContributionAmount,
} from './types.ts';

export function contributionMethods(stores: CampaignStores, deps: CampaignDeps, state: CampaignState) {
  const { usable, view, fee, ledgerErr, newMovement, run, opLookup, readPrice, storePrice, isMember } = state;
  const finishContribution = async (ctx: CallContext, m: Movement): Promise<Result<Contribution, CampaignError>> => {
    const { outcome, result } = await run(ctx, m);
    if ('done' in outcome) return Ok(result as Contribution);
    return Err('refused' in outcome ? ledgerErr(outcome.refused) : { LedgerError: outcome.retry });
  };
  return {
    /**
     * Spec 1 USD goal rules 1–3 with real DOM (L14–L16): the member has approved this canister on the
     * ledger (amount + fee); the amount is pulled into the campaign's escrow and recorded with the tick
     * it was valued at (a DOM amount needs no price; a USD amount does). With an op_id, a repeat answers
     * the first contribution, or finishes it if its ledger call's outcome was not seen.
     */
    async contribute(
      ctx: CallContext,
      campaign_id: string,
      amount: ContributionAmount,
      op_id?: string,
    ): Promise<Result<Contribution, CampaignError>> {
      const id = parseId(campaign_id);
      if (id === undefined || !stores.campaigns.has(id)) return Err({ CampaignNotFound: null });
      const op = opLookup(ctx.caller, op_id);
      if (op.error) return op.error;
      if (op.entry?.contribution) return Ok(stores.contributions.get(op.entry.contribution)!);
      const pending = op.entry?.movement === undefined ? undefined : stores.movements.get(op.entry.movement);
      if (pending) return finishContribution(ctx, pending);
      if (!amountInRange(amount)) return Err({ InvalidArgument: AMOUNT_RANGE });
      if (!(await isMember(ctx.caller))) return Err({ NotAMember: null });
      const tick = await readPrice();
      const ledgerFee = await fee();
      const c = stores.campaigns.get(id)!;
      if (view(c, ctx.now).status !== 'Open') return Err({ CampaignClosed: null });
      const price = usable(tick, ctx.now);
      let e8s: bigint;
      if ('Dom' in amount) e8s = amount.Dom;
      else {
        if (!price) return Err({ PriceUnavailable: null });
        e8s = usdToDomE8s(amount.Usd, price);
        if (e8s <= 0n || e8s > MAX_CONTRIBUTION_E8S)
          return Err({ InvalidArgument: 'amount must be worth 1e-8 to 1e9 DOM at the current price' });
      }
      // A refund returns the amount less the fee: a contribution must be worth refunding (no dust stranded in escrow).
      if (e8s <= ledgerFee) return Err({ InvalidArgument: `amount must be above the ledger fee of ${ledgerFee} e8s` });
      storePrice(tick);
      const m = newMovement({
        kind: 'contribution',
        campaign: id,
        party: ctx.caller,
        amount_e8s: e8s,
        ...valuation(amount, e8s, price),
        created_at_time: ctx.now,
        ...(op_id !== undefined && { op_id }),
      });
      if (op_id !== undefined) stores.ops.set(compositeKey(ctx.caller, op_id), { movement: m.id });
      return finishContribution(ctx, m);
    },
  };
}
