// Settlement (decisions L15–L17, L19): at the deadline or on cancellation the escrow goes to the
// beneficiary (Succeeded) or back to every contributor (Failed, Cancelled); pending movements are
// retried, and an admin reconciles one stuck past the ledger's deduplication window.
import { Err, Ok, u64Key, withPrefix, type CallContext, type Result } from '@domdao/canister-kit';
import { movementMemo } from './escrow.ts';
import { parseId, type CampaignState } from './state.ts';
import {
  SETTLE_BATCH,
  type Campaign,
  type CampaignDeps,
  type CampaignError,
  type CampaignStores,
  type Contribution,
} from './types.ts';

export function settlementMethods(stores: CampaignStores, deps: CampaignDeps, state: CampaignState) {
  const { config, view, fee, newMovement, apply, attempt, retryAt, pendingFor } = state;
  const settleOne = async (ctx: CallContext, id: bigint): Promise<void> => {
    let c = stores.campaigns.get(id)!;
    if (c.settled) return;
    const status = view(c, ctx.now).status;
    if (status === 'Open') return;
    const pending = pendingFor(id);
    // Contributions whose outcome is unknown may still add to the escrow: wait for them.
    if (pending.some((m) => m.kind === 'contribution')) return;
    if (!c.outcome) {
      c = { ...c, outcome: status };
      stores.campaigns.set(id, c);
    }
    if (c.raised_dom === 0n || (c.outcome !== 'Succeeded' && c.refunds === c.contributions)) {
      stores.campaigns.set(id, { ...c, settled: true });
      stores.unsettled.delete(id);
      return;
    }
    if (pending.length) return;
    const ledgerFee = await fee();
    if (c.outcome === 'Succeeded') {
      if (c.raised_dom <= ledgerFee) return;
      await attempt(
        ctx,
        newMovement({
          kind: 'release',
          campaign: id,
          party: c.beneficiary,
          amount_e8s: c.raised_dom - ledgerFee,
          created_at_time: ctx.now,
        }),
      );
      return;
    }
    const prefix = `${u64Key(id)}|`;
    const due: Contribution[] = [];
    for (const [, v] of withPrefix((from) => stores.contributions.entries({ from }), prefix)) {
      if (!v.refund) due.push(v);
      if (due.length === SETTLE_BATCH) break;
    }
    for (const k of due) {
      if (k.amount_e8s <= ledgerFee) continue;
      await attempt(
        ctx,
        newMovement({
          kind: 'refund',
          campaign: id,
          party: k.contributor,
          seq: k.seq,
          amount_e8s: k.amount_e8s - ledgerFee,
          created_at_time: ctx.now,
        }),
      );
    }
    const after = stores.campaigns.get(id)!;
    if (after.refunds === after.contributions) {
      stores.campaigns.set(id, { ...after, settled: true });
      stores.unsettled.delete(id);
    }
  };
  return {
    /**
     * The settle step (scheduler, and anyone for one campaign through settle_campaign): finishes pending
     * movements, then for each campaign past its deadline or cancelled, with no contribution still
     * pending, freezes its outcome and releases the escrow to the beneficiary (Succeeded) or refunds
     * every contribution, SETTLE_BATCH at a time (Failed, Cancelled) (decisions L15–L17).
     */
    async settle(ctx: CallContext): Promise<void> {
      for (const [, m] of Array.from(stores.movements.entries({ limit: SETTLE_BATCH })))
        if (ctx.now >= retryAt(m)) await attempt(ctx, m);
      for (const [id] of Array.from(stores.unsettled.entries({ limit: SETTLE_BATCH }))) await settleOne(ctx, id);
    },

    /**
     * Admins: settles a movement stuck past the ledger's deduplication window (decision L19). With a
     * block index, the block is read from the ledger and must be this movement's (its memo and amount):
     * the movement is applied as done. Without one the admin states, from the block log, that nothing
     * moved: the movement is dropped (a contribution is not recorded; a refund or release is redone).
     */
    async reconcile_movement(ctx: CallContext, id: bigint, block_index?: bigint): Promise<Result<null, CampaignError>> {
      if (!config().admins.includes(ctx.caller)) return Err({ NotAuthorized: null });
      const m = stores.movements.get(id);
      if (!m) return Err({ InvalidArgument: `no pending movement ${id}` });
      if (block_index === undefined) {
        apply(ctx, m, {
          refused: { GenericError: { error_code: 0n, message: `reconciled by ${ctx.caller}: not on the ledger` } },
        });
        return Ok(null);
      }
      const { blocks } = await deps.ledger.icrc3_get_blocks([{ start: block_index, length: 1n }]);
      const block = blocks.find((b) => b.id === block_index)?.block;
      const map = (v: unknown) =>
        v && typeof v === 'object' && 'Map' in v
          ? new Map((v as { Map: Array<[string, unknown]> }).Map)
          : new Map<string, unknown>();
      const tx = map(map(block).get('tx'));
      const memo = (tx.get('memo') as { Blob?: Uint8Array } | undefined)?.Blob;
      const amt = (tx.get('amt') as { Nat?: bigint } | undefined)?.Nat;
      const expected = movementMemo(m.id);
      if (!memo || memo.length !== expected.length || memo.some((b, i) => b !== expected[i]) || amt !== m.amount_e8s) {
        return Err({
          InvalidArgument: `block ${block_index} is not movement ${id} (memo dom-mv:${id}, amount ${m.amount_e8s})`,
        });
      }
      const still = stores.movements.get(id);
      if (!still) return Ok(null);
      apply(ctx, still, { done: block_index });
      return Ok(null);
    },

    /** Anyone: pushes one campaign's settlement along now (instead of waiting for the scheduler). */
    async settle_campaign(ctx: CallContext, campaign_id: string): Promise<Result<Campaign, CampaignError>> {
      const id = parseId(campaign_id);
      if (id === undefined || !stores.campaigns.has(id)) return Err({ CampaignNotFound: null });
      for (const m of pendingFor(id)) await attempt(ctx, m);
      await settleOne(ctx, id);
      return Ok(view(stores.campaigns.get(id)!, ctx.now));
    },

    /** When the settle step is next due: the earliest deadline of an unsettled campaign still open. */
    next_settlement(ctx: CallContext): bigint | undefined {
      let next: bigint | undefined;
      for (const [id] of stores.unsettled.entries({ limit: 1000 })) {
        const c = stores.campaigns.get(id)!;
        // A closed campaign waiting on a pending movement is due when that movement is (below).
        if ((c.cancelled || ctx.now >= c.deadline) && pendingFor(id).length) continue;
        const due = c.cancelled || ctx.now >= c.deadline ? ctx.now : c.deadline;
        if (next === undefined || due < next) next = due;
      }
      // The oldest pending movement is retried once it is MOVEMENT_RETRY_AFTER old (never a busy loop).
      for (const [, m] of stores.movements.entries({ limit: SETTLE_BATCH })) {
        const at = retryAt(m) < ctx.now ? ctx.now : retryAt(m);
        if (next === undefined || at < next) next = at;
      }
      return next;
    },
  };
}
