// The user canister's wiring, declared once for its Azle entry point and the embedded platform
// (packages/canister-kit/src/wiring.ts): memberships minted and upgraded by the membership canister,
// tokens from the host's randomness, and the mint retry queue worked every 5 minutes (spec 2 Limits
// "mint retry"), sooner when an item is due.
import type { CanisterWiring } from '@domdao/canister-kit';
import type { UserCore } from './core/user.ts';
import type { UserDeps } from './core/types.ts';

export const USER_RETRY_QUEUE_SECONDS = 300;

export const userWiring: CanisterWiring<'membership', UserDeps, UserCore> = {
  calls: ['membership'],
  deps: (call, host) => ({
    membership: {
      mint_membership_registered: (owner, tos) => call('membership', 'mint_membership_registered', owner, tos),
      upgrade_to_active: (owner, proof) => call('membership', 'upgrade_to_active', owner, proof),
      get_membership_status: (owner) => call('membership', 'get_membership_status', owner),
    },
    randomBytes: () => host.randomBytes(),
  }),
  timers: [
    {
      name: 'process_retry_queue',
      every_seconds: USER_RETRY_QUEUE_SECONDS,
      run: (core, ctx) => core.process_retry_queue(ctx),
      due: (core, ctx) => core.next_retry_at(ctx),
    },
  ],
};
