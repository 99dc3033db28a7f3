// Decisions G28–G34: liquid democracy and reasons with votes, the governance core driven directly with
// plain stores, a membership the test controls, and a clock it moves.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { plainStore } from '@domdao/canister-kit/testing';
import { GOVERNANCE_STORE_NAMES, governanceCore, type GovernanceStores } from '../core/governance.ts';
import { NS_PER_DAY, NS_PER_HOUR } from '../core/rules/categories.ts';
import { IDL } from '@icp-sdk/core/candid';
import type { GovernanceDeps, ProposalCategory, Vote } from '../core/types.ts';
import { expectedBallots } from '../core/delegation-oracle.ts';

/** `deps`: what the test adds to the core's dependencies (an instruction counter, decision G20). */
function setup(members: string[], deps: Partial<GovernanceDeps> = {}) {
  const stores = Object.fromEntries(
    Object.keys(GOVERNANCE_STORE_NAMES).map((k) => [k, plainStore()]),
  ) as unknown as GovernanceStores;
  const clock = { now: 1_000n * NS_PER_HOUR };
  /** Who is Active, and since when (Active at `at` means since < at, as M8 counts). */
  const activeSince = new Map<string, bigint>(members.map((m) => [m, 0n]));
  const core = governanceCore(stores, {
    candid: IDL,
    membership: {
      get_membership_status: async (o) => (activeSince.has(o) ? { is_active: true } : undefined),
      active_member_snapshot: async () => ({
        count: BigInt([...activeSince.values()].filter((s) => s < clock.now).length),
        at: clock.now,
      }),
      voting_eligibility: async (o, at) => ({
        active_now: activeSince.has(o),
        active_at: (activeSince.get(o) ?? at) < at,
      }),
      apply_policy: async () => ({ Ok: null }),
    },
    treasury: { execute_payout: async () => ({ Ok: null }) },
    ...deps,
  });
  core.init({
    self: 'gov',
    membership_canister: 'm',
    treasury_canister: 't',
    admins: ['admin'],
    trusted_proposers: [],
  });
  const ctx = (caller: string) => ({ caller, now: clock.now });
  const ok = <T>(r: { Ok: T } | { Err: unknown }): T => {
    if ('Err' in r) throw new Error(`expected Ok, got ${JSON.stringify(r.Err)}`);
    return r.Ok;
  };
  const propose = async (category: ProposalCategory = 'EmergencyAction') =>
    ok(await core.create_proposal(ctx('admin'), { title: 'T', body: 'b', category }));
  const delegate = async (from: string, to: string, category?: ProposalCategory, show_name = false) =>
    core.set_delegation(ctx(from), { delegate: to, show_name, ...(category && { category }) });
  /** Past the window, then scheduler steps until the delegated votes are counted. */
  const close = async (id: bigint) => {
    clock.now = core.get_proposal(ctx('x'), id)!.voting_closes;
    for (let i = 0; i < 50 && core.get_turnout(ctx('x'), id)?.delegated_counted !== true; i++)
      await core.tick(ctx('scheduler'));
    return core.get_proposal(ctx('x'), id)!;
  };
  const step = () => (clock.now += 1n);
  return { core, clock, ctx, ok, propose, delegate, close, step, activeSince, stores };
}

describe('liquid democracy on the governance core (decisions G28–G33)', () => {
  it('decision G31: a delegate votes once for every delegator; counted at close, each member once; ballots say by whom', async () => {
    const s = setup(['a', 'b', 'c', 'd']);
    s.ok(await s.delegate('a', 'd'));
    s.ok(await s.delegate('b', 'd'));
    s.step();
    const id = await s.propose();
    s.step();
    s.ok(await s.core.cast_vote(s.ctx('d'), id, 'Yes'));
    s.ok(await s.core.cast_vote(s.ctx('c'), id, 'Abstain'));
    // Open: the delegators see their delegate's vote, not yet final; only direct votes are counted so far.
    assert.deepEqual(s.core.get_my_ballot(s.ctx('a'), id), { vote: 'Yes', delegate: 'd', final: false });
    assert.deepEqual(s.core.get_turnout(s.ctx('x'), id), { direct: 2n, delegated: 0n, delegated_counted: false });
    const p = await s.close(id);
    assert.deepEqual([p.tally?.yes_votes, p.tally?.abstentions, p.tally?.total_eligible], [3n, 1n, 4n]);
    assert.equal(p.status, 'Executed', 'approved (4 of 4 turnout, 3 yes of 3 decided) and executed at once');
    assert.deepEqual(s.core.get_turnout(s.ctx('x'), id), { direct: 2n, delegated: 2n, delegated_counted: true });
    assert.deepEqual(s.core.get_my_ballot(s.ctx('a'), id), { vote: 'Yes', delegate: 'd', final: true });
    assert.deepEqual(s.core.get_my_ballot(s.ctx('d'), id), { vote: 'Yes', final: true });
    const votes = s.core.list_votes(s.ctx('admin'), id);
    assert.deepEqual(votes.map((v) => [v.voter, v.vote, v.delegate ?? null]).sort(), [
      ['a', 'Yes', 'd'],
      ['b', 'Yes', 'd'],
      ['c', 'Abstain', null],
      ['d', 'Yes', null],
    ]);
  });

  it("decision G31: a member's own vote before close replaces their delegate's, whichever comes first", async () => {
    const s = setup(['a', 'b', 'd']);
    s.ok(await s.delegate('a', 'd'));
    s.ok(await s.delegate('b', 'd'));
    s.step();
    const id = await s.propose();
    s.ok(await s.core.cast_vote(s.ctx('b'), id, 'No')); // before the delegate
    s.ok(await s.core.cast_vote(s.ctx('d'), id, 'Yes'));
    s.ok(await s.core.cast_vote(s.ctx('a'), id, 'Abstain')); // after the delegate
    const p = await s.close(id);
    assert.deepEqual([p.tally?.yes_votes, p.tally?.no_votes, p.tally?.abstentions], [1n, 1n, 1n]);
    assert.deepEqual(s.core.get_turnout(s.ctx('x'), id), { direct: 3n, delegated: 0n, delegated_counted: true });
    assert.deepEqual(s.core.get_my_ballot(s.ctx('a'), id), { vote: 'Abstain', final: true });
  });

  it('decision G29: a chain resolves to the first member who voted (at most 16 hops); a cycle counts nobody twice', async () => {
    const s = setup(['a', 'b', 'c', 'x', 'y']);
    s.ok(await s.delegate('a', 'b'));
    s.ok(await s.delegate('b', 'c'));
    s.ok(await s.delegate('x', 'y'));
    s.ok(await s.delegate('y', 'x'));
    s.step();
    const id = await s.propose();
    s.ok(await s.core.cast_vote(s.ctx('c'), id, 'No'));
    const p = await s.close(id);
    assert.deepEqual(
      [p.tally?.no_votes, p.tally?.yes_votes],
      [3n, 0n],
      'a and b through c; the x ↔ y cycle with no voter counts nobody',
    );
    assert.deepEqual(s.core.get_my_ballot(s.ctx('a'), id), { vote: 'No', delegate: 'c', final: true });
    // A cycle with a voter in it: y votes, x follows y, and y is counted once.
    const id2 = await s.propose();
    s.ok(await s.core.cast_vote(s.ctx('y'), id2, 'Yes'));
    const p2 = await s.close(id2);
    assert.equal(p2.tally?.yes_votes, 2n);
  });

  it('decision G29: a chain longer than the hop limit stops there: 16 hops counted, 17 not (the limit as a literal, not the constant)', async () => {
    // 18 members m00 → m01 → … → m17; m17 votes. m01 is 16 hops from m17, m00 is 17.
    const chain = Array.from({ length: 18 }, (_, i) => `m${String(i).padStart(2, '0')}`);
    const s = setup(chain);
    for (let i = 0; i + 1 < chain.length; i++) s.ok(await s.delegate(chain[i]!, chain[i + 1]!));
    s.step();
    const id = await s.propose();
    s.ok(await s.core.cast_vote(s.ctx('m17'), id, 'Yes'));
    assert.equal(s.core.get_my_ballot(s.ctx('m01'), id)?.delegate, 'm17', 'the preview: 16 hops');
    assert.equal(s.core.get_my_ballot(s.ctx('m00'), id), undefined, 'the preview: 17 hops');
    const p = await s.close(id);
    assert.equal(s.core.get_my_ballot(s.ctx('m01'), id)?.delegate, 'm17');
    assert.equal(s.core.get_my_ballot(s.ctx('m00'), id), undefined);
    assert.equal(p.tally?.yes_votes, 17n, 'm17 and the 16 members within 16 hops of it');
  });

  it('decision G30: power is fixed when the window opens: later delegations and revocations apply to later proposals', async () => {
    const s = setup(['a', 'd', 'e']);
    s.ok(await s.delegate('a', 'd'));
    s.step();
    const first = await s.propose();
    s.step();
    s.ok(s.core.revoke_delegation(s.ctx('a')));
    s.ok(await s.delegate('a', 'e'));
    s.step();
    const second = await s.propose();
    s.ok(await s.core.cast_vote(s.ctx('d'), first, 'Yes'));
    s.ok(await s.core.cast_vote(s.ctx('d'), second, 'Yes'));
    s.ok(await s.core.cast_vote(s.ctx('e'), first, 'No'));
    s.ok(await s.core.cast_vote(s.ctx('e'), second, 'No'));
    await s.close(first);
    await s.close(second);
    assert.equal(s.core.get_my_ballot(s.ctx('a'), first)?.delegate, 'd');
    assert.equal(s.core.get_my_ballot(s.ctx('a'), second)?.delegate, 'e');
  });

  it('decision G28: a per-category delegation wins over the one for all categories; revoking it falls back', async () => {
    const s = setup(['a', 'd', 'e']);
    s.ok(await s.delegate('a', 'd'));
    s.ok(await s.delegate('a', 'e', 'EmergencyAction'));
    assert.deepEqual(
      s.core.get_my_delegations(s.ctx('a')).map((d) => [d.category ?? 'All', d.delegate]),
      [
        ['All', 'd'],
        ['EmergencyAction', 'e'],
      ],
    );
    s.step();
    const emergency = await s.propose('EmergencyAction');
    s.ok(await s.core.cast_vote(s.ctx('d'), emergency, 'Yes'));
    s.ok(await s.core.cast_vote(s.ctx('e'), emergency, 'No'));
    assert.equal(s.core.get_my_ballot(s.ctx('a'), emergency)?.delegate, 'e');
    s.ok(s.core.revoke_delegation(s.ctx('a'), 'EmergencyAction'));
    s.step();
    const later = await s.propose('EmergencyAction');
    s.ok(await s.core.cast_vote(s.ctx('d'), later, 'Yes'));
    assert.equal(s.core.get_my_ballot(s.ctx('a'), later)?.delegate, 'd');
  });

  it('decision G31: 2,001 delegators (one more than a step counts, 2,000) are counted in two steps, the second going on where the first stopped', async () => {
    const delegators = Array.from({ length: 2_001 }, (_, i) => `a${String(i).padStart(4, '0')}`);
    const s = setup([...delegators, 'd']);
    for (const m of delegators) s.ok(await s.delegate(m, 'd'));
    s.step();
    const id = await s.propose();
    s.ok(await s.core.cast_vote(s.ctx('d'), id, 'Yes'));
    s.clock.now = s.core.get_proposal(s.ctx('x'), id)!.voting_closes;
    await s.core.tick(s.ctx('scheduler'));
    assert.deepEqual(
      s.core.get_turnout(s.ctx('x'), id),
      { direct: 1n, delegated: 2_000n, delegated_counted: false },
      'the first step stops at 2,000',
    );
    assert.equal(s.core.get_proposal(s.ctx('x'), id)!.status, 'Tallied');
    await s.core.tick(s.ctx('scheduler'));
    assert.deepEqual(
      s.core.get_turnout(s.ctx('x'), id),
      { direct: 1n, delegated: 2_001n, delegated_counted: true },
      'the second step counts the last one',
    );
    const p = s.core.get_proposal(s.ctx('x'), id)!;
    assert.equal(p.tally?.yes_votes, 2_002n);
    assert.notEqual(p.status, 'Tallied', 'judged once counted');
    assert.equal(s.core.get_my_ballot(s.ctx('a2000'), id)?.delegate, 'd');
  });

  it('decisions G20, G31: a counting step stopped by the instruction budget goes on where it stopped; every ballot is counted once, over several steps', async () => {
    // Each scheduler step is one message: the counter starts again at 0 and reports the budget spent
    // after its third check, so a step counts two members at most.
    const meter = { checks: 0 };
    const s = setup(['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8', 'a9', 'd'], {
      instructions: () => (++meter.checks > 3 ? 1_000_000_000_000_000n : 0n),
    });
    for (let i = 0; i < 10; i++) s.ok(await s.delegate(`a${i}`, 'd'));
    s.step();
    const id = await s.propose();
    s.ok(await s.core.cast_vote(s.ctx('d'), id, 'No'));
    s.clock.now = s.core.get_proposal(s.ctx('x'), id)!.voting_closes;
    const counted: bigint[] = [];
    for (let step = 0; step < 50 && s.core.get_turnout(s.ctx('x'), id)?.delegated_counted !== true; step++) {
      meter.checks = 0;
      await s.core.tick(s.ctx('scheduler'));
      counted.push(s.core.get_turnout(s.ctx('x'), id)!.delegated);
    }
    assert.equal(
      s.core.get_turnout(s.ctx('x'), id)?.delegated_counted,
      true,
      `finished (delegated after each step: ${counted.join(', ')})`,
    );
    assert.ok(counted.length >= 5, `several steps: ${counted.join(', ')}`);
    for (let i = 1; i < counted.length - 1; i++)
      assert.ok(counted[i]! > counted[i - 1]!, `each step goes on: ${counted.join(', ')}`);
    assert.equal(counted.at(-1), 10n);
    const votes = s.core.list_votes(s.ctx('admin'), id);
    assert.equal(votes.length, 11);
    assert.equal(new Set(votes.map((v) => v.voter)).size, 11, 'one ballot per member');
    assert.equal(s.core.get_proposal(s.ctx('x'), id)!.tally?.no_votes, 11n);
  });

  it("decision G29: a chain A → B → C where B's id sorts before A's: A's ballot is C's, the first direct voter, though B is counted (through C) first", async () => {
    // Counting walks the delegating members in id order: 'b-middle' before 'z-first'.
    const [A, B, C] = ['z-first', 'b-middle', 'c-voter'];
    const s = setup([A, B, C]);
    s.ok(await s.delegate(A, B));
    s.ok(await s.delegate(B, C));
    s.step();
    const id = await s.propose();
    s.ok(await s.core.cast_vote(s.ctx(C), id, 'Yes'));
    assert.deepEqual(s.core.get_my_ballot(s.ctx(A), id), { vote: 'Yes', delegate: C, final: false });
    await s.close(id);
    assert.deepEqual(s.core.get_my_ballot(s.ctx(B), id), { vote: 'Yes', delegate: C, final: true });
    assert.deepEqual(s.core.get_my_ballot(s.ctx(A), id), { vote: 'Yes', delegate: C, final: true });
    assert.deepEqual(
      s.core
        .list_votes(s.ctx('admin'), id)
        .map((v) => [v.voter, v.delegate ?? null])
        .sort(),
      [
        [B, C],
        [C, null],
        [A, C],
      ].sort(),
    );
  });

  it('decisions G30, G47: a delegation made at the opening instant, or between the scheduled opening and the recorded one, does not count for that window; the preview agrees with the count', async () => {
    const s = setup(['at-opening', 'in-between', 'before', 'd', 'same-instant']);
    s.ok(await s.delegate('before', 'd'));
    s.step();
    const id = await s.propose('General'); // opens after the voting delay; the scheduler records it later
    const opens = s.core.get_proposal(s.ctx('x'), id)!.voting_opens;
    s.clock.now = opens;
    s.ok(await s.delegate('at-opening', 'd'));
    s.clock.now = opens + 2n;
    s.ok(await s.delegate('in-between', 'd'));
    s.clock.now = opens + 5n;
    await s.core.tick(s.ctx('scheduler')); // the opening recorded (eligible_at) 5 ns after the scheduled one
    s.ok(await s.core.cast_vote(s.ctx('d'), id, 'Yes'));
    const preview = (m: string) => s.core.get_my_ballot(s.ctx(m), id);
    assert.deepEqual(preview('before'), { vote: 'Yes', delegate: 'd', final: false });
    assert.equal(preview('at-opening'), undefined);
    assert.equal(preview('in-between'), undefined);
    assert.deepEqual(s.core.list_represented(s.ctx('admin'), id, 'd').members, ['before']);
    const p = await s.close(id);
    assert.deepEqual(s.core.get_my_ballot(s.ctx('before'), id), { vote: 'Yes', delegate: 'd', final: true });
    assert.equal(s.core.get_my_ballot(s.ctx('at-opening'), id), undefined);
    assert.equal(s.core.get_my_ballot(s.ctx('in-between'), id), undefined);
    assert.deepEqual(s.core.get_turnout(s.ctx('x'), id), { direct: 1n, delegated: 1n, delegated_counted: true });
    assert.equal(p.tally?.yes_votes, 2n);
    // A window that opens as it is created (EmergencyAction): a delegation made at that very instant does not count
    // either.
    s.step();
    s.ok(await s.delegate('same-instant', 'd'));
    const now = await s.propose('EmergencyAction');
    assert.equal(s.core.get_proposal(s.ctx('x'), now)!.voting_opens, s.clock.now);
    s.ok(await s.core.cast_vote(s.ctx('d'), now, 'No'));
    assert.equal(s.core.get_my_ballot(s.ctx('same-instant'), now), undefined);
    assert.deepEqual(s.core.get_my_ballot(s.ctx('before'), now), { vote: 'No', delegate: 'd', final: false });
    await s.close(now);
    assert.equal(s.core.get_my_ballot(s.ctx('same-instant'), now), undefined);
    assert.deepEqual(
      s.core.get_turnout(s.ctx('x'), now),
      { direct: 1n, delegated: 3n, delegated_counted: true },
      'before, at-opening and in-between count now',
    );
  });

  it('decision G32: get_turnout while the window is open and nobody has delegated says the delegated votes are not counted yet', async () => {
    const s = setup(['a', 'b']);
    const id = await s.propose();
    s.ok(await s.core.cast_vote(s.ctx('a'), id, 'Yes'));
    assert.deepEqual(s.core.get_turnout(s.ctx('x'), id), { direct: 1n, delegated: 0n, delegated_counted: false });
    s.clock.now = s.core.get_proposal(s.ctx('x'), id)!.voting_closes - 1n;
    assert.equal(s.core.get_turnout(s.ctx('x'), id)?.delegated_counted, false, 'one ns before close');
    s.clock.now += 1n;
    assert.equal(s.core.get_turnout(s.ctx('x'), id)?.delegated_counted, true, 'at close: nothing to count');
  });

  it('decision G28: refusals change nothing: self, a non-member either side, revoking what is not delegated, an unreachable membership', async () => {
    const s = setup(['a', 'd']);
    assert.deepEqual(await s.delegate('a', 'a'), { Err: { SelfDelegation: null } });
    assert.deepEqual(await s.delegate('a', 'stranger'), { Err: { DelegateNotAMember: null } });
    assert.deepEqual(await s.delegate('stranger', 'a'), { Err: { NotAMember: null } });
    assert.deepEqual(await s.delegate('2vxsx-fae', 'a'), { Err: { NotAMember: null } });
    assert.deepEqual(s.core.revoke_delegation(s.ctx('a')), { Err: { NotDelegating: null } });
    assert.deepEqual(s.core.get_my_delegations(s.ctx('a')), []);
    assert.equal(s.stores.delegating.size, 0);
  });

  it('decision G33: a delegate sees how many delegate to them, and the principals of those who allowed it, a page at a time', async () => {
    const s = setup(['a', 'b', 'c', 'd']);
    s.ok(await s.delegate('a', 'd', undefined, true));
    s.ok(await s.delegate('b', 'd'));
    s.ok(await s.delegate('c', 'd', 'General', true));
    const all = s.core.list_my_delegators(s.ctx('d'));
    assert.equal(all.total, 3n);
    assert.deepEqual(
      all.items.map((i) => [i.member ?? null, i.category ?? 'All']),
      [
        ['a', 'All'],
        [null, 'All'],
        ['c', 'General'],
      ],
    );
    const page = s.core.list_my_delegators(s.ctx('d'), all.items[0]!.key, 1);
    assert.deepEqual(page.items.length, 1);
    assert.equal(page.items[0]!.key, all.items[1]!.key);
    // Admin only: who d's vote on an open proposal stands for now (decision G33, for the activity feed).
    s.step();
    const id = await s.propose('General');
    s.clock.now += NS_PER_HOUR;
    s.ok(await s.core.cast_vote(s.ctx('d'), id, 'Yes'));
    s.ok(await s.core.cast_vote(s.ctx('b'), id, 'No'));
    assert.deepEqual(s.core.list_represented(s.ctx('admin'), id, 'd').members.sort(), ['a', 'c']);
    const first = s.core.list_represented(s.ctx('admin'), id, 'd', undefined, 1);
    assert.deepEqual(
      [first.members, s.core.list_represented(s.ctx('admin'), id, 'd', first.next, 5).members.sort()],
      [['a'], ['c']],
    );
    assert.throws(() => s.core.list_represented(s.ctx('d'), id, 'd'), /NotAuthorized/);
    s.ok(await s.delegate('a', 'c')); // a changes delegate: d loses one
    assert.equal(s.core.list_my_delegators(s.ctx('d')).total, 2n);
    assert.equal(s.core.list_my_delegators(s.ctx('c')).total, 1n);
  });

  it('decisions G23, G31: a delegator not Active when the window opened is not counted through their delegate', async () => {
    const s = setup(['a', 'd']);
    s.ok(await s.delegate('a', 'd'));
    s.activeSince.set('a', s.clock.now + 10n); // lapsed and renewed after the opening
    s.step();
    const id = await s.propose();
    s.ok(await s.core.cast_vote(s.ctx('d'), id, 'Yes'));
    const p = await s.close(id);
    assert.equal(p.tally?.yes_votes, 1n);
    assert.ok((p.tally?.yes_votes ?? 0n) <= (p.tally?.total_eligible ?? 0n));
  });
});

describe('reasons with votes (decision G34)', () => {
  it('a reason of 1,000 characters is kept; 1,001 is ReasonTooLong {max: 1000} and nothing is voted (the limit as a literal)', async () => {
    const s = setup(['a', 'b']);
    const id = await s.propose();
    const long = 'é'.repeat(1_001);
    assert.deepEqual(await s.core.cast_vote_with_reason(s.ctx('a'), id, 'Yes', long), {
      Err: { ReasonTooLong: { max: 1_000 } },
    });
    assert.equal(s.core.get_my_vote(s.ctx('a'), id), undefined);
    const atLimit = 'é'.repeat(1_000);
    s.ok(await s.core.cast_vote_with_reason(s.ctx('a'), id, 'Yes', atLimit));
    s.ok(await s.core.cast_vote_with_reason(s.ctx('b'), id, 'No', '  too costly  '));
    assert.deepEqual(s.core.get_my_ballot(s.ctx('a'), id), { vote: 'Yes', reason: atLimit, final: true });
    assert.deepEqual(
      s.core.list_vote_reasons(s.ctx('anyone'), id).map((r) => [r.seq, r.vote, r.reason.length]),
      [
        [1n, 'Yes', 1_000],
        [2n, 'No', 'too costly'.length],
      ],
    );
    assert.deepEqual(
      s.core.list_vote_reasons(s.ctx('anyone'), id, 1n).map((r) => r.reason),
      ['too costly'],
    );
    assert.equal(s.core.list_votes(s.ctx('admin'), id).find((v) => v.voter === 'b')?.reason, 'too costly');
    assert.deepEqual(
      s.core.list_vote_reasons(s.ctx('anyone'), id, 0xffff_ffff_ffff_ffffn),
      [],
      'after the last nat64: nothing, no trap',
    );
  });
});

// The property (decisions G29–G31): one member, one vote, under any sequence of delegations,
// revocations, direct votes and window openings. The oracle keeps the delegations itself, fixes them
// at each opening, and resolves each member's chain at close.
const MEMBERS = ['m0', 'm1', 'm2', 'm3', 'm4', 'm5'];
const VOTES: Vote[] = ['Yes', 'No', 'Abstain'];
const scope = fc.constantFrom<'All' | ProposalCategory>('All', 'EmergencyAction', 'General');
const op = fc.oneof(
  fc.record({
    kind: fc.constant('delegate' as const),
    from: fc.nat(MEMBERS.length - 1),
    to: fc.nat(MEMBERS.length - 1),
    scope,
  }),
  fc.record({ kind: fc.constant('revoke' as const), from: fc.nat(MEMBERS.length - 1), scope }),
  fc.record({
    kind: fc.constant('vote' as const),
    by: fc.nat(MEMBERS.length - 1),
    proposal: fc.nat(3),
    vote: fc.nat(2),
  }),
  fc.record({
    kind: fc.constant('open' as const),
    category: fc.constantFrom<ProposalCategory>('EmergencyAction', 'General'),
  }),
);

describe('one member, one vote (decisions G29–G31, property)', () => {
  it('under any sequence of delegations, revocations, direct votes and openings, each member is counted at most once, as the oracle resolves', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
        const s = setup(MEMBERS);
        const live = new Map<string, string>(); // member|scope → delegate
        const proposals: Array<{
          id: bigint;
          category: ProposalCategory;
          fixed: Map<string, string>;
          direct: Map<string, Vote>;
        }> = [];
        for (const o of ops) {
          s.step();
          if (o.kind === 'delegate') {
            const r = await s.delegate(MEMBERS[o.from]!, MEMBERS[o.to]!, o.scope === 'All' ? undefined : o.scope);
            if (o.from === o.to) assert.deepEqual(r, { Err: { SelfDelegation: null } });
            else live.set(`${MEMBERS[o.from]}|${o.scope}`, MEMBERS[o.to]!);
          } else if (o.kind === 'revoke') {
            const r = s.core.revoke_delegation(s.ctx(MEMBERS[o.from]!), o.scope === 'All' ? undefined : o.scope);
            assert.equal('Ok' in r, live.delete(`${MEMBERS[o.from]}|${o.scope}`));
          } else if (o.kind === 'open') {
            const id = await s.propose(o.category);
            // General opens an hour later: the first vote or step records it; delegations before then count.
            if (o.category === 'General') {
              s.clock.now += NS_PER_HOUR;
              await s.core.tick(s.ctx('scheduler'));
            }
            proposals.push({ id, category: o.category, fixed: new Map(live), direct: new Map() });
          } else {
            const p = proposals[o.proposal];
            if (!p) continue;
            const by = MEMBERS[o.by]!;
            const r = await s.core.cast_vote(s.ctx(by), p.id, VOTES[o.vote]!);
            assert.equal('Ok' in r, !p.direct.has(by));
            if (!p.direct.has(by)) p.direct.set(by, VOTES[o.vote]!);
          }
        }
        s.clock.now += 15n * NS_PER_DAY;
        for (let i = 0; i < 20; i++) await s.core.tick(s.ctx('scheduler'));
        for (const p of proposals) {
          const expected = expectedBallots(p.fixed, p.direct, p.category, MEMBERS);
          const votes = s.core.list_votes(s.ctx('admin'), p.id);
          assert.equal(new Set(votes.map((v) => v.voter)).size, votes.length, 'one ballot per member');
          assert.deepEqual(
            new Map(
              votes.map((v) => [v.voter, { vote: v.vote, ...(v.delegate !== undefined && { delegate: v.delegate }) }]),
            ),
            expected,
          );
          const t = s.core.get_proposal(s.ctx('x'), p.id)!.tally!;
          assert.equal(t.yes_votes + t.no_votes + t.abstentions, BigInt(expected.size));
          assert.ok(BigInt(expected.size) <= t.total_eligible);
          const turnout = s.core.get_turnout(s.ctx('x'), p.id)!;
          assert.equal(turnout.direct, BigInt(p.direct.size));
          assert.equal(turnout.delegated, BigInt(expected.size - p.direct.size));
        }
      }),
      { numRuns: 150 },
    );
  });
});
