// Decision S11: each canister's wiring (canisters/<name>/wiring.ts) is the one description of whom it
// calls and of its timers, read by its Azle entry point and by the embedded platform. These checks
// hold every declaration to the Candid interfaces both hosts use.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CanisterCall } from '@domdao/canister-kit';
import { campaignWiring } from '@domdao/canister-campaign';
import { governanceWiring } from '@domdao/canister-governance';
import { ledgerWiring } from '@domdao/canister-ledger';
import { membershipWiring } from '@domdao/canister-membership';
import { treasuryWiring } from '@domdao/canister-treasury';
import { userWiring } from '@domdao/canister-user';
import type { CanisterName } from '../src/api.ts';
import { METHOD_TABLES } from '../src/tables.ts';

const WIRING = {
  governance: governanceWiring,
  membership: membershipWiring,
  user: userWiring,
  campaign: campaignWiring,
  treasury: treasuryWiring,
  ledger: ledgerWiring,
};

/** Every dependency function, called once with placeholder arguments, as the calls it makes. */
async function callsMade(canister: CanisterName): Promise<Array<{ to: string; method: string; args: unknown[] }>> {
  const made: Array<{ to: string; method: string; args: unknown[] }> = [];
  const call: CanisterCall<string> = async (to, method, ...args) => {
    made.push({ to, method, args });
    return undefined as never;
  };
  const deps = (
    WIRING[canister].deps as (c: CanisterCall<string>, h: { randomBytes(): Promise<Uint8Array> }) => object
  )(call, {
    randomBytes: async () => new Uint8Array(16),
  });
  for (const group of Object.values(deps)) {
    if (typeof group !== 'object') continue;
    for (const fn of Object.values(group as Record<string, (...a: unknown[]) => Promise<unknown>>)) await fn('x', 'y');
  }
  return made;
}

describe('canister wiring (decision S11)', () => {
  for (const canister of Object.keys(WIRING) as CanisterName[]) {
    it(`${canister}: every dependency is a call to a declared callee's Candid method`, async () => {
      const made = await callsMade(canister);
      for (const { to, method } of made) {
        assert.ok(
          (WIRING[canister].calls as readonly string[]).includes(to),
          `${canister} calls ${to}, not in its calls`,
        );
        assert.ok(
          METHOD_TABLES[to as CanisterName][method],
          `${canister} calls ${to}.${method}, not in ${to}'s Candid interface`,
        );
      }
      assert.deepEqual(
        [...new Set(made.map((m) => m.to))].sort(),
        [...WIRING[canister].calls].sort(),
        `${canister} declares callees it never calls`,
      );
    });
  }

  it('the call graph has no canister calling itself, and only governance, user, campaign and membership have timers (the ledger calls no one and has none)', () => {
    for (const [canister, w] of Object.entries(WIRING)) assert.ok(!(w.calls as readonly string[]).includes(canister));
    assert.deepEqual(
      Object.entries(WIRING).flatMap(([c, w]) => w.timers.map((t) => `${c}.${t.name}/${t.every_seconds}s`)),
      [
        'governance.tick/60s',
        'membership.count-active/60s',
        'user.process_retry_queue/300s',
        'campaign.refresh_price/600s',
        'campaign.settle/60s',
      ],
    );
  });
});
