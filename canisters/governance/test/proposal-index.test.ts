// Decision W8: list_proposals by category or status reads its candidates only (an index by
// category, by final status, and the active proposals), not the history it skips. Checked against a
// plain filter over every proposal for every status, category and starting id, counted in records
// read, and through the build of the index for a store kept by a release without it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IDL } from '@icp-sdk/core/candid';
import { plainStore } from '@domdao/canister-kit/testing';
import type { Store, StoreKey } from '@domdao/canister-kit';
import { GOVERNANCE_STORE_NAMES, governanceCore, type GovernanceStores } from '../core/governance.ts';
import { INDEX_DONE, INDEX_STEP } from '../core/proposal-index.ts';
import { NS_PER_HOUR } from '../core/rules/categories.ts';
import type { ListProposalsArgs, ProposalCategory, ProposalStatus } from '../core/types.ts';

const STATUSES: ProposalStatus[] = ['Created', 'Open', 'Tallied', 'Approved', 'Rejected', 'Executed', 'Expired'];

/** A store that counts the records it hands out. */
function counted<K extends StoreKey, V>(store: Store<K, V>, count: { read: number }): Store<K, V> {
  return {
    get: (k) => {
      const v = store.get(k);
      if (v !== undefined) count.read++;
      return v;
    },
    has: (k) => store.has(k),
    set: (k, v) => store.set(k, v),
    delete: (k) => store.delete(k),
    get size() {
      return store.size;
    },
    *entries(o) {
      for (const e of store.entries(o)) {
        count.read++;
        yield e;
      }
    },
  };
}

async function governanceWith(proposals: Array<{ category: ProposalCategory; votes: number; at: number }>) {
  const count = { read: 0 };
  const raw = Object.fromEntries(
    Object.keys(GOVERNANCE_STORE_NAMES).map((k) => [k, plainStore()]),
  ) as unknown as GovernanceStores;
  const stores = { ...raw, proposals: counted(raw.proposals, count) };
  const core = governanceCore(stores, {
    membership: {
      get_membership_status: async () => ({ is_active: true }),
      active_member_snapshot: async () => ({ count: 3n, at: 0n }),
      voting_eligibility: async () => ({ active_now: true, active_at: true }),
      apply_policy: async () => ({ Ok: null }),
    },
    treasury: { execute_payout: async () => ({ Ok: null }) },
    candid: IDL,
  });
  const clock = { now: 1_000n * NS_PER_HOUR };
  const ctx = (caller: string) => ({ caller, now: clock.now });
  core.init({
    self: 'gov',
    membership_canister: 'm',
    treasury_canister: 't',
    admins: ['admin'],
    trusted_proposers: [],
  });
  const ids: bigint[] = [];
  for (const p of proposals) {
    clock.now = 1_000n * NS_PER_HOUR + BigInt(p.at) * NS_PER_HOUR;
    const r = await core.create_proposal(ctx('admin'), {
      title: `P${ids.length}`,
      body: 'b'.repeat(10),
      category: p.category,
    });
    assert.ok('Ok' in r);
    ids.push(r.Ok);
    if (p.votes > 0) {
      clock.now += 2n * NS_PER_HOUR; // open (an EmergencyAction is open at once)
      await core.tick(ctx('timer'));
      for (let v = 0; v < p.votes; v++) await core.cast_vote(ctx(`voter-${v}`), r.Ok, 'Yes');
    }
  }
  return { core, ctx, clock, ids, stores: raw, count };
}

/** What list_proposals must answer: every proposal, newest first, filtered. */
function expected(g: Awaited<ReturnType<typeof governanceWith>>, args: ListProposalsArgs) {
  return [...g.ids]
    .reverse()
    .filter((id) => args.from_id === undefined || id <= args.from_id)
    .map((id) => g.core.get_proposal(g.ctx('anyone'), id)!)
    .filter(
      (p) =>
        (args.category === undefined || p.category === args.category) &&
        (args.status === undefined || p.status === args.status),
    );
}

function checkEveryFilter(g: Awaited<ReturnType<typeof governanceWith>>) {
  for (const status of [undefined, ...STATUSES]) {
    for (const category of [undefined, 'General', 'EmergencyAction'] as const) {
      for (const from_id of [undefined, g.ids[0], g.ids[Math.floor(g.ids.length / 2)], g.ids.at(-1)! + 5n]) {
        const args: ListProposalsArgs = {
          limit: 100,
          ...(status && { status }),
          ...(category && { category }),
          ...(from_id !== undefined && { from_id }),
        };
        assert.deepEqual(
          g.core.list_proposals(g.ctx('anyone'), args),
          expected(g, args).slice(0, 100),
          JSON.stringify(args, (_, v) => (typeof v === 'bigint' ? `${v}` : v)),
        );
      }
    }
  }
}

/** 40 proposals of two categories over 400 hours, a third voted for; the clock then at hour 300. */
function history() {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: 40 }, (_, i) => ({
    category: (next() < 0.3 ? 'EmergencyAction' : 'General') as ProposalCategory,
    votes: next() < 0.35 ? 3 : 0,
    at: i * 10,
  }));
}

describe('filtered proposal lists (decision W8)', () => {
  it('answer what a filter over every proposal answers, for every status, category and starting id', async () => {
    const g = await governanceWith(history());
    const seen = new Set<ProposalStatus>();
    for (const hour of [395, 420, 800]) {
      g.clock.now = 1_000n * NS_PER_HOUR + BigInt(hour) * NS_PER_HOUR;
      for (const p of g.core.list_proposals(g.ctx('anyone'), { limit: 100 })) seen.add(p.status);
      checkEveryFilter(g); // statuses derived now, some not yet recorded
      await g.core.tick(g.ctx('timer'));
      checkEveryFilter(g);
    }
    assert.deepEqual([...seen].sort(), ['Approved', 'Executed', 'Expired', 'Open', 'Rejected']);
  });

  it('read only their candidates: a rare category or a live status costs the same however long the history', async () => {
    const many = Array.from({ length: 300 }, (_, i) => ({ category: 'General' as ProposalCategory, votes: 0, at: i }));
    const g = await governanceWith([
      { category: 'EmergencyAction', votes: 0, at: 0 },
      ...many,
      { category: 'EmergencyAction', votes: 0, at: 300 },
    ]);
    g.clock.now += 24n * 30n * NS_PER_HOUR;
    await g.core.tick(g.ctx('timer')); // every proposal closed (no votes: Rejected) and final
    const late = await g.core.create_proposal(g.ctx('admin'), { title: 'Late', body: 'b', category: 'General' });
    assert.ok('Ok' in late);
    const reads = (args: ListProposalsArgs) => {
      g.count.read = 0;
      const page = g.core.list_proposals(g.ctx('anyone'), { limit: 10, ...args });
      return { ids: page.map((p) => p.id), read: g.count.read };
    };
    assert.deepEqual(reads({ category: 'EmergencyAction' }), { ids: [302n, 1n], read: 2 });
    assert.deepEqual(reads({ status: 'Created' }), { ids: [late.Ok], read: 1 });
    // A final status: its index, and the active proposals (here the late one), whose status is derived now.
    assert.deepEqual(reads({ status: 'Rejected', category: 'EmergencyAction' }), { ids: [302n, 1n], read: 3 });
    assert.equal(reads({ status: 'Rejected', from_id: 150n }).read, 10);
  });

  it('a store kept without the index is listed by a scan until the scheduler has indexed it, a bounded part per step', async () => {
    const g = await governanceWith([
      ...history(),
      ...Array.from({ length: INDEX_STEP + 50 }, (_, i) => ({
        category: 'General' as ProposalCategory,
        votes: 0,
        at: 400 + i,
      })),
    ]);
    g.clock.now = 1_000n * NS_PER_HOUR + 500n * NS_PER_HOUR;
    await g.core.tick(g.ctx('timer'));
    // As a release without the index left it: no index, no mark.
    for (const [k] of [...g.stores.proposalIndex.entries()]) g.stores.proposalIndex.delete(k);
    g.stores.counters.delete(INDEX_DONE);
    checkEveryFilter(g);
    assert.ok(g.core.next_wakeup(g.ctx('timer'))! <= g.clock.now, 'the scheduler has work: the index');
    await g.core.tick(g.ctx('timer'));
    assert.equal(g.stores.counters.get(INDEX_DONE), undefined, `one step indexes at most ${INDEX_STEP} proposals`);
    checkEveryFilter(g);
    await g.core.tick(g.ctx('timer'));
    assert.equal(g.stores.counters.get(INDEX_DONE), 1n);
    checkEveryFilter(g);
    g.count.read = 0;
    assert.deepEqual(g.core.list_proposals(g.ctx('anyone'), { category: 'EmergencyAction', limit: 1 }).length, 1);
    assert.equal(g.count.read, 1);
  });
});
