// The treasury canister's wiring, declared once for its Azle entry point and the embedded platform
// (packages/canister-kit/src/wiring.ts): the ratified price from governance for USD payouts; no timers.
import type { CanisterWiring } from '@domdao/canister-kit';
import type { TreasuryCore, TreasuryDeps } from './core/treasury.ts';

export const treasuryWiring: CanisterWiring<'governance', TreasuryDeps, TreasuryCore> = {
  calls: ['governance'],
  deps: (call) => ({ governance: { get_dom_price: () => call('governance', 'get_dom_price') } }),
  timers: [],
};
