// The campaign canister's core (spec 1 "USD goal calculation", decision G18): crowdfunding campaigns
// with a goal in DOM or USD, contributions valued at the ratified price, progress in both views. Money
// is real DOM (decisions L14–L19): a contribution is pulled from the member's ledger account
// (after the member's icrc2_approve) into the campaign's escrow subaccount; at the deadline the escrow
// goes to the beneficiary (goal met) or back to every contributor (failed or cancelled), by the
// scheduler's settle step; members may also burn DOM as a recorded donation. Every movement runs
// through escrow.ts (intent first, one deduplicated ledger call, outcome).
// Registered, Active and Expired members may create campaigns and contribute (spec 2 rule 5); Revoked
// ones and non-members may not. The price is read from governance on every update and cached, so
// get_campaign (a query, which cannot call other canisters) answers from the tick read last; governance
// asks for a fresh read when it ratifies a price (decision G50).
import { Err, Ok, type CallContext, type Result } from '@domdao/canister-kit';
import { DEFAULT_PRICE_MAX_AGE } from '@domdao/canister-kit/rules';
import { contributionMethods } from './contributions.ts';
import { donationMethods } from './donations.ts';
import { queryMethods } from './queries.ts';
import { settlementMethods } from './settlement.ts';
import { campaignState, parseId } from './state.ts';
import {
  MAX_CAMPAIGN_LENGTH,
  MAX_CONTRIBUTION_E8S,
  MAX_DESCRIPTION_CHARS,
  MAX_TITLE_CHARS,
  MIN_CAMPAIGN_LENGTH,
  type CampaignDeps,
  type CampaignError,
  type CampaignStores,
  type CreateCampaignArgs,
} from './types.ts';

export * from './types.ts';

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

export function campaignCore(stores: CampaignStores, deps: CampaignDeps) {
  const state = campaignState(stores, deps);
  const { config, isMember, readPrice, storePrice, view } = state;

  return {
    init(init: { admins: string[]; price_max_age?: bigint; self: string; governance?: string }): void {
      if (stores.config.has('config')) throw new Error('already initialised');
      stores.config.set('config', {
        admins: [...init.admins],
        price_max_age: init.price_max_age ?? DEFAULT_PRICE_MAX_AGE,
        self: init.self,
        ...(init.governance !== undefined && { governance: init.governance }),
      });
    },

    /** The governance canister refresh_price answers (an upgrade may re-point it; state from before decision G50 learns it). */
    set_governance(governance: string): void {
      const c = config();
      if (c.governance !== governance) stores.config.set('config', { ...c, governance });
    },

    async create_campaign(ctx: CallContext, args: CreateCampaignArgs): Promise<Result<string, CampaignError>> {
      const problem = createProblem(args, ctx.now);
      if (problem) return Err({ InvalidArgument: problem });
      if (!(await isMember(ctx.caller))) return Err({ NotAMember: null });
      const tick = await readPrice();
      const id = stores.counters.get('campaign') ?? 1n;
      stores.counters.set('campaign', id + 1n);
      stores.campaigns.set(id, {
        id,
        title: args.title.trim(),
        description: args.description,
        owner: ctx.caller,
        beneficiary: args.beneficiary ?? ctx.caller,
        goal: args.goal,
        deadline: args.deadline,
        created_at: ctx.now,
        cancelled: false,
        raised_dom: 0n,
        contributions: 0n,
        refunds: 0n,
        settled: false,
      });
      stores.unsettled.set(id, null);
      storePrice(tick);
      return Ok(id.toString());
    },
    ...contributionMethods(stores, deps, state),
    ...donationMethods(stores, state),
    ...settlementMethods(stores, deps, state),

    /** The owner or an admin, while the campaign is Open. */
    cancel_campaign(ctx: CallContext, campaign_id: string): Result<null, CampaignError> {
      const id = parseId(campaign_id);
      const c = id === undefined ? undefined : stores.campaigns.get(id);
      if (!c) return Err({ CampaignNotFound: null });
      if (c.owner !== ctx.caller && !config().admins.includes(ctx.caller)) return Err({ NotAuthorized: null });
      if (view(c, ctx.now).status !== 'Open') return Err({ CampaignClosed: null });
      stores.campaigns.set(c.id, { ...c, cancelled: true });
      return Ok(null);
    },

    /**
     * Reads the price (and the ledger fee) from governance now, so get_campaign, a query, values progress
     * at it. Decision G50: governance asks for it in the step that ratifies a price; the timer (every
     * 10 minutes, decision G18) stays as the fallback. Decision G51: only governance, this canister's own
     * timer and the admins may ask, as each call costs this canister two calls of its own.
     */
    async refresh_price(ctx: CallContext): Promise<Result<null, CampaignError>> {
      const c = config();
      if (ctx.caller !== c.self && ctx.caller !== c.governance && !c.admins.includes(ctx.caller))
        return Err({ NotAuthorized: null });
      const tick = await deps.governance.get_dom_price();
      const ledgerFee = await deps.ledger.icrc1_fee();
      storePrice(tick);
      stores.fee.set('fee', ledgerFee);
      return Ok(null);
    },
    ...queryMethods(stores, deps, state),
  };
}

function createProblem(a: CreateCampaignArgs, now: bigint): string | undefined {
  const title = a.title.trim();
  if (title.length === 0 || title.length > MAX_TITLE_CHARS || CONTROL.test(a.title))
    return `title must be 1 to ${MAX_TITLE_CHARS} characters without control characters`;
  if (a.description.length > MAX_DESCRIPTION_CHARS || CONTROL.test(a.description))
    return `description must be at most ${MAX_DESCRIPTION_CHARS} characters without control characters`;
  if (
    'DomTokens' in a.goal
      ? a.goal.DomTokens <= 0n || a.goal.DomTokens > MAX_CONTRIBUTION_E8S * 1000n
      : !Number.isFinite(a.goal.UsdValue) || a.goal.UsdValue <= 0 || a.goal.UsdValue > 1e12
  ) {
    return 'goal must be a positive amount';
  }
  if (a.deadline < now + MIN_CAMPAIGN_LENGTH || a.deadline > now + MAX_CAMPAIGN_LENGTH)
    return 'deadline must be 1 hour to 365 days from now';
  return undefined;
}

export type CampaignCore = ReturnType<typeof campaignCore>;
