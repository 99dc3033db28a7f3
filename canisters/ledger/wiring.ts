// The ledger canister's wiring (packages/canister-kit/src/wiring.ts): it calls no other canister (its one
// dependency is the host's Candid library, for consent messages, decision L36) and has no timers
// (deduplication entries are pruned by the update calls themselves).
import type { CanisterWiring } from '@domdao/canister-kit';
import type { LedgerDeps } from './core/consent.ts';
import type { LedgerCore } from './core/ledger.ts';

export const ledgerWiring: CanisterWiring<never, LedgerDeps, LedgerCore> = {
  calls: [],
  deps: (_call, host) => ({ candid: host.candid }),
  timers: [],
};
