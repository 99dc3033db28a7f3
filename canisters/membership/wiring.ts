// The membership canister's wiring (packages/canister-kit/src/wiring.ts): it calls no other canister;
// the user canister and governance call it. Its one timer counts the Active memberships of a store
// written before the count existed (decision M7); it has nothing to do otherwise.
import type { CanisterWiring } from '@domdao/canister-kit';
import type { MembershipCore } from './core/membership.ts';

export const membershipWiring: CanisterWiring<never, Record<string, never>, MembershipCore> = {
  calls: [],
  deps: () => ({}),
  timers: [
    {
      name: 'count-active',
      every_seconds: 60,
      run: async (core) => core.count_active_step(),
      due: (core, ctx) => core.count_active_due(ctx),
    },
  ],
};
