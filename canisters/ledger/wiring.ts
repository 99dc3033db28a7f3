// The ledger canister's wiring (packages/canister-kit/src/wiring.ts): it calls no other canister and
// has no timers (deduplication entries are pruned by the update calls themselves).
import type { CanisterWiring } from '@domdao/canister-kit';
import type { LedgerCore } from './core/ledger.ts';

export const ledgerWiring: CanisterWiring<never, Record<string, never>, LedgerCore> = {
  calls: [],
  deps: () => ({}),
  timers: [],
};
