// Donation burns (decision L18): a member destroys DOM from its own account, valued and recorded.
import { compositeKey, Err, Ok, type CallContext, type Result } from '@domdao/canister-kit';
import { usdToDomE8s } from '@domdao/canister-kit/rules';
import { AMOUNT_RANGE, amountInRange, valuation, type CampaignState } from './state.ts';
import type { CampaignError, CampaignStores, ContributionAmount, Donation } from './types.ts';

export function donationMethods(stores: CampaignStores, state: CampaignState) {
  const { usable, ledgerErr, newMovement, run, opLookup, readPrice, storePrice, isMember } = state;
  return {
    /**
     * Donation burn (decision L18): a member destroys DOM from its own account (after approving this
     * canister for the amount), valued in USD at the tick when one is usable, and recorded.
     */
    async burn_donation(
      ctx: CallContext,
      amount: ContributionAmount,
      op_id?: string,
    ): Promise<Result<Donation, CampaignError>> {
      const op = opLookup(ctx.caller, op_id);
      if (op.error) return op.error;
      if (op.entry?.donation !== undefined) return Ok(stores.donations.get(op.entry.donation)!);
      const pending = op.entry?.movement === undefined ? undefined : stores.movements.get(op.entry.movement);
      let m = pending;
      if (!m) {
        if (!amountInRange(amount)) return Err({ InvalidArgument: AMOUNT_RANGE });
        if (!(await isMember(ctx.caller))) return Err({ NotAMember: null });
        const tick = await readPrice();
        const price = usable(tick, ctx.now);
        let e8s: bigint;
        if ('Dom' in amount) e8s = amount.Dom;
        else {
          if (!price) return Err({ PriceUnavailable: null });
          e8s = usdToDomE8s(amount.Usd, price);
        }
        storePrice(tick);
        m = newMovement({
          kind: 'burn',
          campaign: 0n,
          party: ctx.caller,
          amount_e8s: e8s,
          ...valuation(amount, e8s, price),
          created_at_time: ctx.now,
          ...(op_id !== undefined && { op_id }),
        });
        if (op_id !== undefined) stores.ops.set(compositeKey(ctx.caller, op_id), { movement: m.id });
      }
      const { outcome, result } = await run(ctx, m);
      if ('done' in outcome) return Ok(result as Donation);
      return Err('refused' in outcome ? ledgerErr(outcome.refused) : { LedgerError: outcome.retry });
    },
  };
}
