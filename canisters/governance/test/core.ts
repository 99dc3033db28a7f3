// The governance core driven directly (no host): plain stores, dependencies the test chooses, a clock
// it moves, and one General proposal created by the admin, an hour before its vote opens.
import assert from 'node:assert/strict';
import { IDL } from '@icp-sdk/core/candid';
import { plainStore } from '@domdao/canister-kit/testing';
import { GOVERNANCE_STORE_NAMES, governanceCore, type GovernanceStores } from '../core/governance.ts';
import { NS_PER_HOUR } from '../core/rules/categories.ts';
import type { GovernanceDeps } from '../core/types.ts';

/** `wrap` lets a test watch the stores (e.g. count reads); by default they are plain. */
export async function coreWithProposal(
  deps: Partial<GovernanceDeps> & { eligible?: bigint } = {},
  wrap: (stores: GovernanceStores) => GovernanceStores = (s) => s,
) {
  const stores = wrap(
    Object.fromEntries(
      Object.keys(GOVERNANCE_STORE_NAMES).map((k) => [k, plainStore()]),
    ) as unknown as GovernanceStores,
  );
  const { eligible = 3n, ...rest } = deps;
  const clock = { now: 1_000n * NS_PER_HOUR };
  const core = governanceCore(stores, {
    membership: {
      get_membership_status: async () => ({ is_active: true }),
      active_member_snapshot: async () => ({ count: eligible, at: clock.now }),
      voting_eligibility: async () => ({ active_now: true, active_at: true }),
      apply_policy: async () => ({ Ok: null }),
    },
    treasury: { execute_payout: async () => ({ Ok: null }) },
    ...rest,
    candid: rest.candid ?? IDL,
  });
  const ctx = (caller: string) => ({ caller, now: clock.now });
  core.init({
    self: 'gov',
    membership_canister: 'm',
    treasury_canister: 't',
    admins: ['admin'],
    trusted_proposers: [],
  });
  const created = await core.create_proposal(ctx('admin'), { title: 'T', body: 'b', category: 'General' });
  assert.ok('Ok' in created);
  return { core, ctx, clock, id: created.Ok };
}
