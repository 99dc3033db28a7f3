// The treasury canister's wiring, declared once for its Azle entry point and the embedded platform
// (packages/canister-kit/src/wiring.ts): the ratified price from governance for USD payouts, and the
// DOM ledger for its balance and payouts (decision L11); no timers.
import type { CanisterWiring } from '@domdao/canister-kit';
import type { TreasuryCore, TreasuryDeps } from './core/treasury.ts';

export const treasuryWiring: CanisterWiring<'governance' | 'ledger', TreasuryDeps, TreasuryCore> = {
  calls: ['governance', 'ledger'],
  deps: (call) => ({
    governance: { get_dom_price: () => call('governance', 'get_dom_price') },
    ledger: {
      icrc1_transfer: (args) => call('ledger', 'icrc1_transfer', args),
      icrc1_balance_of: (account) => call('ledger', 'icrc1_balance_of', account),
      icrc1_fee: () => call('ledger', 'icrc1_fee'),
    },
  }),
  timers: [],
};
