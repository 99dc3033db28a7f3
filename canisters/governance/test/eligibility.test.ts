// Decision G23 (with M8): only members Active when a proposal's window opened vote on it, so turnout
// never exceeds total_eligible. The governance core driven directly, with the real membership core on
// plain stores behind its membership dependency and one clock for both.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IDL } from '@icp-sdk/core/candid';
import { plainStore } from '@domdao/canister-kit/testing';
import { MEMBERSHIP_STORE_NAMES, membershipCore, type MembershipStores } from '@domdao/canister-membership';
import { GOVERNANCE_STORE_NAMES, governanceCore, type GovernanceStores } from '../core/governance.ts';
import { NS_PER_DAY, NS_PER_HOUR, NS_PER_SECOND } from '../core/rules/categories.ts';
import type { GovernanceDeps, ProposalCategory } from '../core/types.ts';

const USER = 'user-canister';
const GOV = 'gov';
const at = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;
const stores = <S>(names: Record<string, string>) =>
  Object.fromEntries(Object.keys(names).map((k) => [k, plainStore()])) as unknown as S;

function setup(start = '2026-03-10T12:00:00Z') {
  const clock = { now: at(start) };
  const ctx = (caller: string) => ({ caller, now: clock.now });
  const ms = stores<MembershipStores>(MEMBERSHIP_STORE_NAMES);
  const m = membershipCore(ms);
  m.init({ user_canister: USER, governance_canister: GOV, admins: ['admin'] });
  const deps: GovernanceDeps = {
    membership: {
      get_membership_status: async (o) => m.get_membership_status(ctx(GOV), o),
      active_member_snapshot: async () => m.active_member_snapshot(ctx(GOV)),
      voting_eligibility: async (o, t) => m.voting_eligibility(ctx(GOV), o, t),
      apply_policy: async (p) => m.apply_policy(ctx(GOV), p),
    },
    treasury: { execute_payout: async () => ({ Ok: null }) },
    candid: IDL,
  };
  const gs = stores<GovernanceStores>(GOVERNANCE_STORE_NAMES);
  const gov = governanceCore(gs, deps);
  gov.init({ self: GOV, membership_canister: 'm', treasury_canister: 't', admins: ['admin'], trusted_proposers: [] });
  const join = (p: string) => assert.ok('Ok' in m.mint_membership_registered(ctx(USER), p, clock.now - 1n));
  const activate = (p: string) => {
    if (!m.get_membership_status(ctx(GOV), p)) join(p);
    assert.deepEqual(m.upgrade_to_active(ctx(USER), p, new Uint8Array([1])), { Ok: null });
  };
  const propose = async (category: ProposalCategory = 'General') => {
    const r = await gov.create_proposal(ctx('admin'), { title: 'T', body: 'b', category });
    assert.ok('Ok' in r);
    return r.Ok;
  };
  const vote = (p: string, id: bigint) => gov.cast_vote(ctx(p), id, 'Yes');
  const turnout = (id: bigint) => {
    const t = gov.get_tally(ctx('admin'), id)!;
    return { cast: t.yes_votes + t.no_votes + t.abstentions, eligible: t.total_eligible };
  };
  return { clock, ctx, m, ms, gs, gov, join, activate, propose, vote, turnout };
}

describe('eligibility is fixed when voting opens (decision G23)', () => {
  it('a member Active at the opening votes; one made Active after it is refused with NotActiveWhenVotingOpened; turnout never exceeds total_eligible', async () => {
    const s = setup();
    for (const p of ['a', 'b', 'c', 'd']) s.activate(p);
    const id = await s.propose();
    s.clock.now += NS_PER_HOUR; // voting_opens
    const opened = s.clock.now;
    await s.gov.tick(s.ctx('scheduler'));
    for (const p of ['a', 'b', 'c', 'd']) assert.deepEqual(await s.vote(p, id), { Ok: null }, p);
    s.clock.now += 1n;
    s.activate('late');
    assert.equal(s.m.count_active_members(s.ctx('x')), 5n, 'five members are Active now');
    assert.deepEqual(await s.vote('late', id), { Err: { NotActiveWhenVotingOpened: { opened_at: opened } } });
    assert.deepEqual(s.turnout(id), { cast: 4n, eligible: 4n });
    assert.equal(s.gov.list_votes(s.ctx('admin'), id).length, 4, 'the refused vote left nothing');
    // The late member votes on a proposal whose window opens after they became Active.
    const next = await s.propose();
    s.clock.now += NS_PER_HOUR;
    await s.gov.tick(s.ctx('scheduler'));
    assert.deepEqual(await s.vote('late', next), { Ok: null });
    assert.deepEqual(s.turnout(next), { cast: 1n, eligible: 5n });
  });

  it('at the opening instant: Active one nanosecond before it votes; made Active at the instant itself is refused', async () => {
    const s = setup();
    s.activate('early');
    const id = await s.propose();
    s.clock.now += NS_PER_HOUR - 1n;
    s.activate('limit'); // one nanosecond before the opening
    s.clock.now += 1n;
    s.activate('instant'); // at the opening, before the scheduler counts (the same instant)
    await s.gov.tick(s.ctx('scheduler'));
    assert.deepEqual(s.turnout(id), { cast: 0n, eligible: 3n }, 'all three were counted at the opening');
    assert.deepEqual(await s.vote('limit', id), { Ok: null });
    assert.deepEqual(await s.vote('instant', id), { Err: { NotActiveWhenVotingOpened: { opened_at: s.clock.now } } });
    assert.deepEqual(await s.vote('early', id), { Ok: null });
  });

  it("the first vote opens a window the scheduler has not recorded: eligibility at that vote's instant", async () => {
    const s = setup();
    s.activate('a');
    const id = await s.propose();
    s.clock.now += 2n * NS_PER_HOUR;
    s.activate('b'); // after voting_opens, before the opening is recorded
    assert.deepEqual(
      await s.vote('b', id),
      { Err: { NotActiveWhenVotingOpened: { opened_at: s.clock.now } } },
      'made Active at the instant the first vote counts',
    );
    s.clock.now += 1n;
    assert.deepEqual(await s.vote('a', id), { Ok: null }, 'the first vote opens it');
    const opened = s.clock.now;
    s.clock.now += 1n;
    assert.deepEqual(await s.vote('b', id), { Ok: null }, 'b was Active when it opened');
    s.clock.now += 1n;
    s.activate('c');
    assert.deepEqual(await s.vote('c', id), { Err: { NotActiveWhenVotingOpened: { opened_at: opened } } });
    assert.deepEqual(s.turnout(id), { cast: 2n, eligible: 2n });
  });

  it('an EmergencyAction opens at creation: only members Active before it vote', async () => {
    const s = setup();
    s.activate('a');
    s.clock.now += 1n;
    const id = await s.propose('EmergencyAction');
    const opened = s.clock.now;
    s.clock.now += 1n;
    s.activate('b');
    assert.deepEqual(await s.vote('b', id), { Err: { NotActiveWhenVotingOpened: { opened_at: opened } } });
    assert.deepEqual(await s.vote('a', id), { Ok: null });
    assert.deepEqual(s.turnout(id), { cast: 1n, eligible: 1n });
  });

  it('spec 1 Authentication rule 1 still holds: Active at the opening but expired or revoked since → NotAMember; renewed after a lapse → votes', async () => {
    const s = setup('2026-12-30T12:00:00Z');
    for (const p of ['lapses', 'renews', 'revoked']) s.activate(p);
    const id = await s.propose();
    s.clock.now += NS_PER_HOUR;
    await s.gov.tick(s.ctx('scheduler'));
    s.clock.now = at('2026-12-31T23:59:59Z'); // every membership of 2026 ends now (spec 2: Dec 31 23:59:59 UTC)
    assert.deepEqual(await s.vote('lapses', id), { Err: { NotAMember: null } });
    s.clock.now = at('2027-01-02T09:00:00Z');
    s.activate('renews'); // renewed after the lapse: a new run of Active status, the one before kept
    assert.deepEqual(await s.vote('renews', id), { Ok: null }, 'Active at the opening (the previous run) and now');
    s.activate('revoked');
    assert.deepEqual(s.m.revoke_membership(s.ctx('admin'), 'revoked'), { Ok: null });
    assert.deepEqual(await s.vote('revoked', id), { Err: { NotAMember: null } });
    assert.deepEqual(s.turnout(id), { cast: 1n, eligible: 3n });
  });

  it('state from before the release: a proposal opened without eligible_at uses voting_opens; a membership without history is Active since it joined', async () => {
    const s = setup();
    s.activate('old');
    // A token as an earlier release stored it: no history fields.
    const tid = s.ms.byOwner.get('old')!;
    const { active_since: _a, previous_term: _p, revoked_at: _r, ...legacy } = s.ms.tokens.get(tid)!;
    s.ms.tokens.set(tid, legacy);
    const id = await s.propose();
    const opens = s.clock.now + NS_PER_HOUR;
    s.clock.now = opens + 10n * NS_PER_SECOND;
    s.activate('between'); // after voting_opens, before the scheduler records the opening 30 s late
    s.clock.now = opens + 30n * NS_PER_SECOND;
    await s.gov.tick(s.ctx('scheduler'));
    // The proposal as an earlier release recorded its opening: total_eligible without its instant.
    const { eligible_at, ...before } = s.gs.proposals.get(id)!;
    assert.equal(eligible_at, s.clock.now, 'this release records the instant of the count');
    s.gs.proposals.set(id, before);
    s.clock.now += NS_PER_DAY;
    assert.deepEqual(await s.vote('old', id), { Ok: null }, 'a member from before the history: Active since joining');
    assert.deepEqual(
      await s.vote('between', id),
      { Err: { NotActiveWhenVotingOpened: { opened_at: opens } } },
      'voting_opens stands in',
    );
  });
});
