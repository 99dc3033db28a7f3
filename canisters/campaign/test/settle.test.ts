// Decision L16: the settle step retries a pending movement MOVEMENT_RETRY_AFTER after its creation or
// its last attempt, so a movement in flight is left to its own call and a stuck one never makes the
// scheduler spin; through the campaign core's public methods on the embedded host, with a ledger
// that rejects every call.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EmbeddedHost } from '@domdao/canister-kit/embedded';
import { CAMPAIGN_STORE_NAMES, campaignCore, MOVEMENT_RETRY_AFTER, type CampaignStores } from '../core/campaign.ts';

const NOW = BigInt(Date.parse('2026-06-01T00:00:00Z')) * 1_000_000n;
const DAY = 86_400_000_000_000n;

describe('settle step timing (decision L16)', () => {
  it('a pending movement is due 30 s after its creation, then 30 s after each failed attempt', async () => {
    const host = EmbeddedHost.open({});
    const stores = Object.fromEntries(
      Object.entries(CAMPAIGN_STORE_NAMES).map(([k, n]) => [k, host.store('campaign', n)]),
    ) as unknown as CampaignStores;
    let calls = 0;
    const reject = async (): Promise<never> => {
      host.commitPoint();
      calls++;
      throw new Error('ledger stopped');
    };
    const core = campaignCore(stores, {
      governance: { get_dom_price: async () => undefined },
      membership: { get_membership_status: async () => ({ status: 'Registered' }) },
      ledger: {
        icrc1_transfer: reject,
        icrc2_transfer_from: reject,
        icrc1_fee: async () => 10_000n,
        icrc1_minting_account: async () => ({ owner: 'gov' }),
        icrc3_get_blocks: async () => ({ blocks: [] }),
      },
    });
    let now = NOW;
    const ctx = (caller = 'member') => ({ caller, now });
    await host.update('campaign', () => core.init({ admins: [], self: 'campaign-canister' }));
    const id = (
      (await host.update('campaign', () =>
        core.create_campaign(ctx(), {
          title: 't',
          description: '',
          goal: { DomTokens: 100_000_000n },
          deadline: NOW + DAY,
        }),
      )) as { Ok: string }
    ).Ok;
    await assert.rejects(host.update('campaign', () => core.contribute(ctx(), id, { Dom: 100_000_000n }, 'op-1')));
    assert.equal(
      host.query('campaign', () => core.next_settlement(ctx())),
      NOW + MOVEMENT_RETRY_AFTER,
      'not due at once: the call that made it is still in charge',
    );
    await host.update('campaign', () => core.settle(ctx()));
    assert.equal(calls, 1, 'the settle step left it alone');
    now = NOW + MOVEMENT_RETRY_AFTER;
    await host.update('campaign', () => core.settle(ctx()));
    assert.equal(calls, 2, 'retried once due');
    const [m] = host.query('campaign', () => core.list_pending_movements(ctx()));
    assert.deepEqual([m!.attempted_at, m!.last_error], [now, 'ledger stopped']);
    assert.equal(
      host.query('campaign', () => core.next_settlement(ctx())),
      now + MOVEMENT_RETRY_AFTER,
      'the next retry is 30 s after this attempt, not now',
    );
  });

  it('next_settlement is the earliest deadline of the open campaigns, whichever was made first', async () => {
    const host = EmbeddedHost.open({});
    const stores = Object.fromEntries(
      Object.entries(CAMPAIGN_STORE_NAMES).map(([k, n]) => [k, host.store('campaign', n)]),
    ) as unknown as CampaignStores;
    const never = async (): Promise<never> => {
      throw new Error('not called');
    };
    const core = campaignCore(stores, {
      governance: { get_dom_price: async () => undefined },
      membership: { get_membership_status: async () => ({ status: 'Registered' }) },
      ledger: {
        icrc1_transfer: never,
        icrc2_transfer_from: never,
        icrc1_fee: async () => 10_000n,
        icrc1_minting_account: async () => ({ owner: 'gov' }),
        icrc3_get_blocks: async () => ({ blocks: [] }),
      },
    });
    const ctx = { caller: 'member', now: NOW };
    await host.update('campaign', () => core.init({ admins: [], self: 'campaign-canister' }));
    for (const deadline of [NOW + 3n * DAY, NOW + DAY, NOW + 2n * DAY])
      await host.update('campaign', () =>
        core.create_campaign(ctx, { title: 't', description: '', goal: { DomTokens: 100_000_000n }, deadline }),
      );
    assert.equal(
      host.query('campaign', () => core.next_settlement(ctx)),
      NOW + DAY,
    );
  });
});
