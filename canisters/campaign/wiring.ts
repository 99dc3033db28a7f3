// The campaign canister's wiring, declared once for its Azle entry point and the embedded platform
// (packages/canister-kit/src/wiring.ts): it reads the ratified price from governance and membership
// status from the membership canister, and refreshes its cached price every 10 minutes (decision G18).
import type { CanisterWiring } from '@domdao/canister-kit';
import type { CampaignCore, CampaignDeps } from './core/campaign.ts';

export const CAMPAIGN_PRICE_REFRESH_SECONDS = 600;

export const campaignWiring: CanisterWiring<'governance' | 'membership', CampaignDeps, CampaignCore> = {
  calls: ['governance', 'membership'],
  deps: (call) => ({
    governance: { get_dom_price: () => call('governance', 'get_dom_price') },
    membership: { get_membership_status: (owner) => call('membership', 'get_membership_status', owner) },
  }),
  timers: [{ name: 'refresh_price', every_seconds: CAMPAIGN_PRICE_REFRESH_SECONDS, run: (core, ctx) => core.refresh_price(ctx) }],
};
