// The governance canister's wiring, declared once for its Azle entry point and the embedded platform
// (packages/canister-kit/src/wiring.ts): membership status, counts and policy changes from the
// membership canister, payouts through the treasury, a ratified price told to the campaign canister
// (decision G50), and a scheduler step (transitions, executions, receipt burning) at least every
// minute, sooner when a proposal's next transition is due.
import type { CanisterWiring } from '@domdao/canister-kit';
import type { GovernanceCore } from './core/governance.ts';
import type { GovernanceDeps } from './core/types.ts';

export const GOVERNANCE_TICK_SECONDS = 60;

export const governanceWiring: CanisterWiring<'membership' | 'treasury' | 'campaign', GovernanceDeps, GovernanceCore> =
  {
    calls: ['membership', 'treasury', 'campaign'],
    deps: (call, host) => ({
      membership: {
        get_membership_status: (owner) => call('membership', 'get_membership_status', owner),
        active_member_snapshot: () => call('membership', 'active_member_snapshot'),
        voting_eligibility: (owner, at) => call('membership', 'voting_eligibility', owner, at),
        apply_policy: (policy) => call('membership', 'apply_policy', policy),
      },
      treasury: { execute_payout: (id, payout) => call('treasury', 'execute_payout', id, payout) },
      campaign: { refresh_price: () => call('campaign', 'refresh_price') },
      ...(host.instructions && { instructions: host.instructions }),
      candid: host.candid,
    }),
    timers: [
      {
        name: 'tick',
        every_seconds: GOVERNANCE_TICK_SECONDS,
        run: (core, ctx) => core.tick(ctx),
        due: (core, ctx) => core.next_wakeup(ctx),
      },
    ],
  };
