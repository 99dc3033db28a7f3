// The membership canister's wiring (packages/canister-kit/src/wiring.ts): it calls no other canister
// and has no timers; the user canister and governance call it.
import type { CanisterWiring } from '@domdao/canister-kit';
import type { MembershipCore } from './core/membership.ts';

export const membershipWiring: CanisterWiring<never, Record<string, never>, MembershipCore> = {
  calls: [],
  deps: () => ({}),
  timers: [],
};
