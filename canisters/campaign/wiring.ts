// The campaign canister's wiring, declared once for its Azle entry point and the embedded platform
// (packages/canister-kit/src/wiring.ts): it reads the ratified price from governance and membership
// status from the membership canister, moves DOM on the ledger (decision L14), refreshes its cached price
// and the ledger fee every 10 minutes (decision G18), and settles campaigns: at least every minute,
// at once when a deadline passes or a movement is pending (decision L15).
import type { CanisterWiring } from '@domdao/canister-kit';
import type { CampaignCore, CampaignDeps } from './core/campaign.ts';

export const CAMPAIGN_PRICE_REFRESH_SECONDS = 600;
export const CAMPAIGN_SETTLE_SECONDS = 60;

export const campaignWiring: CanisterWiring<'governance' | 'membership' | 'ledger', CampaignDeps, CampaignCore> = {
  calls: ['governance', 'membership', 'ledger'],
  deps: (call, host) => ({
    governance: { get_dom_price: () => call('governance', 'get_dom_price') },
    membership: { get_membership_status: (owner) => call('membership', 'get_membership_status', owner) },
    ledger: {
      icrc1_transfer: (args) => call('ledger', 'icrc1_transfer', args),
      icrc2_transfer_from: (args) => call('ledger', 'icrc2_transfer_from', args),
      icrc1_fee: () => call('ledger', 'icrc1_fee'),
      icrc1_minting_account: () => call('ledger', 'icrc1_minting_account'),
      icrc3_get_blocks: (ranges) => call('ledger', 'icrc3_get_blocks', ranges),
    },
    ...(host.instructions && { instructions: host.instructions }),
  }),
  timers: [
    {
      name: 'refresh_price',
      every_seconds: CAMPAIGN_PRICE_REFRESH_SECONDS,
      run: (core, ctx) => core.refresh_price(ctx),
    },
    {
      name: 'settle',
      every_seconds: CAMPAIGN_SETTLE_SECONDS,
      run: (core, ctx) => core.settle(ctx),
      due: (core, ctx) => core.next_settlement(ctx),
    },
  ],
};
