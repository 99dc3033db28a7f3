// The campaign canister's queries: campaigns, contributions, donations and pending movements, paged.
import {
  ANSWER_STORED_BYTES,
  clampLimit,
  compositeKey,
  u64Key,
  withinReplyBudget,
  withPrefix,
  type CallContext,
} from '@domdao/canister-kit';
import type { Movement } from './escrow.ts';
import { parseId, type CampaignState } from './state.ts';
import type { Campaign, CampaignDeps, CampaignStores, Contribution, Donation } from './types.ts';

export function queryMethods(stores: CampaignStores, deps: CampaignDeps, state: CampaignState) {
  const { view } = state;
  return {
    get_campaign(ctx: CallContext, campaign_id: string): Campaign | undefined {
      const id = parseId(campaign_id);
      const c = id === undefined ? undefined : stores.campaigns.get(id);
      return c && view(c, ctx.now);
    },

    /** Newest first, from from_id (inclusive). */
    list_campaigns(ctx: CallContext, from_id?: string, limit?: number): Campaign[] {
      const n = clampLimit(limit, 20, 100);
      const from = from_id === undefined ? undefined : parseId(from_id);
      if (n === 0 || (from_id !== undefined && from === undefined)) return [];
      // Long descriptions end a page early rather than pass the reply limit (decision W6).
      const metered = deps.instructions !== undefined;
      const views = (function* () {
        for (const [, c] of stores.campaigns.entries({
          reverse: true,
          ...(from !== undefined && { from }),
          ...(metered && { maxStoredBytes: ANSWER_STORED_BYTES }),
        }))
          yield view(c, ctx.now);
      })();
      return withinReplyBudget(views, n, (c) => c.title + c.description, { metered });
    },

    /** A member's contributions (with their refunds), oldest campaign first, at most `limit` (default 20, max 100). */
    list_contributions_by(_ctx: CallContext, contributor: string, limit?: number): Contribution[] {
      const n = clampLimit(limit, 20, 100);
      const out: Contribution[] = [];
      if (n === 0) return out;
      for (const [k] of withPrefix((from) => stores.by_contributor.entries({ from }), `${contributor}|`)) {
        out.push(stores.contributions.get(k.slice(contributor.length + 1))!);
        if (out.length === n) break;
      }
      return out;
    },

    /** Donation burns, newest first from from_id (inclusive). */
    list_donations(_ctx: CallContext, from_id?: bigint, limit?: number): Donation[] {
      const n = clampLimit(limit, 20, 100);
      return n === 0
        ? []
        : Array.from(
            stores.donations.entries({ reverse: true, limit: n, ...(from_id !== undefined && { from: from_id }) }),
            ([, v]) => v,
          );
    },

    /** Ledger movements decided but not yet known to be done, oldest first (admins watch these). */
    list_pending_movements: (_ctx: CallContext): Movement[] =>
      Array.from(stores.movements.entries({ limit: 100 }), ([, v]) => v),

    /** Oldest first, after contribution `after_seq` when given. */
    list_contributions(_ctx: CallContext, campaign_id: string, after_seq?: bigint, limit?: number): Contribution[] {
      const id = parseId(campaign_id);
      const n = clampLimit(limit, 20, 100);
      // Nothing follows the largest nat64: the next key would not be a nat64 (decision B55).
      if (id === undefined || n === 0 || (after_seq !== undefined && after_seq >= 0xffff_ffff_ffff_ffffn)) return [];
      const prefix = `${u64Key(id)}|`;
      const start = after_seq === undefined ? prefix : compositeKey(u64Key(id), u64Key(after_seq + 1n));
      const out: Contribution[] = [];
      for (const [, v] of withPrefix((from) => stores.contributions.entries({ from }), prefix, start)) {
        out.push(v);
        if (out.length === n) break;
      }
      return out;
    },
  };
}
