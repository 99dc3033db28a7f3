// Spec 1 governance canister, through its public methods on the embedded platform with a controllable
// clock: proposals, the state machine, voting, quorum and threshold edges, receipts, execution, events.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN, BRIDGE, DAY, HOUR, harness, tempDir, type Harness } from './harness.ts';
import { principalFromSeed } from '../src/principals.ts';
import type { GovernanceClient } from '../src/api.ts';

const general = {
  title: 'Adopt a code of conduct',
  body: 'We adopt the **Contributor Covenant**.',
  category: 'General' as const,
};
const priceProposal = (price_usd: number, extra: Record<string, unknown> = {}) => ({
  title: `DOM at $${price_usd}`,
  body: 'Oracle aggregate',
  category: 'SetDomPrice' as const,
  payload: { SetDomPrice: { price_usd, source_url: 'https://oracle.example.org/dom', ...extra } },
});

/** A harness with `n` Active members and a helper that runs a proposal to the end of its vote. */
async function withMembers(n: number): Promise<Harness & { members: string[]; gov: (p: string) => GovernanceClient }> {
  const h = await harness();
  const members = await h.activateMany('member', n);
  return Object.assign(h, { members, gov: (p: string) => h.as(p).governance });
}

async function events(h: Harness) {
  return h.admin.governance.list_admin_events(undefined, 100);
}

describe('create_proposal (decision G7: Active members, admins, trusted proposers)', () => {
  it('an Active member creates a proposal: Created, opens after the voting delay, window of its category', async () => {
    const h = await withMembers(1);
    const id = h.ok(await h.gov(h.members[0]!).create_proposal(general));
    const p = (await h.gov(h.members[0]!).get_proposal(id))!;
    assert.equal(p.status, 'Created');
    assert.equal(p.proposed_by, h.members[0]);
    assert.equal(p.voting_opens, p.created_at + HOUR, 'decision G6: one hour to read before voting opens');
    assert.equal(p.voting_closes, p.voting_opens + 7n * DAY, 'General: 7-day window');
    assert.equal(p.tally, undefined, 'no tally before the window opens');
    assert.equal(p.payload, undefined);
  });

  it('every category gets its default window (spec 1 Categories)', async () => {
    const h = await withMembers(1);
    const g = h.gov(h.members[0]!);
    const expected = {
      TreasuryPayout: 5n * DAY,
      SetDomPrice: 3n * DAY,
      MembershipPolicy: 7n * DAY,
      ConstitutionalAmendment: 14n * DAY,
      EmergencyAction: 24n * HOUR,
    };
    const payloads = {
      TreasuryPayout: { TreasuryPayout: { recipient: h.members[0]!, amount: { DomE8s: 1n } } },
      SetDomPrice: { SetDomPrice: { price_usd: 1 } },
      MembershipPolicy: { MembershipPolicy: { add_admins: [h.members[0]!], remove_admins: [], revoke: [] } },
      ConstitutionalAmendment: {
        ConstitutionalAmendment: { category_rules: [{ category: 'General' as const, voting_window: 3n * DAY }] },
      },
      EmergencyAction: undefined,
    };
    for (const [category, window] of Object.entries(expected)) {
      const payload = payloads[category as keyof typeof payloads];
      const id = h.ok(
        await g.create_proposal({
          title: category,
          body: 'x',
          category: category as 'General',
          ...(payload && { payload }),
        }),
      );
      const p = (await g.get_proposal(id))!;
      assert.equal(p.voting_closes - p.voting_opens, window, category);
    }
  });

  it('EmergencyAction bypasses the delay: Open at creation with its 24-hour fast track and the quorum snapshot', async () => {
    const h = await withMembers(3);
    const id = h.ok(
      await h
        .gov(h.members[0]!)
        .create_proposal({ title: 'Pause payouts', body: 'Incident', category: 'EmergencyAction' }),
    );
    const p = (await h.gov(h.members[0]!).get_proposal(id))!;
    assert.equal(p.status, 'Open');
    assert.equal(p.voting_opens, p.created_at);
    assert.equal(p.voting_closes, p.created_at + 24n * HOUR);
    assert.equal(p.tally!.total_eligible, 3n);
  });

  it('Registered members have read-only governance: NotAMember; anonymous: NotAuthorized', async () => {
    const h = await withMembers(1);
    const registered = await h.register('registered-only');
    assert.deepEqual(await h.gov(registered).create_proposal(general), { Err: { NotAMember: null } });
    assert.deepEqual(await h.gov(principalFromSeed('stranger')).create_proposal(general), {
      Err: { NotAMember: null },
    });
    assert.deepEqual(await h.gov('2vxsx-fae').create_proposal(general), { Err: { NotAuthorized: null } });
    assert.deepEqual(await h.gov(registered).list_proposals({}), [], 'nothing was created');
    const id = h.ok(await h.admin.governance.create_proposal(general));
    assert.deepEqual(
      (await h.gov(registered).list_proposals({})).map((p) => p.id),
      [id],
      'but they can read',
    );
    assert.equal((await h.gov(registered).get_proposal(id))!.title, general.title);
  });

  it('admins and the trusted bridge may propose; the bridge may name the member it relays for', async () => {
    const h = await withMembers(1);
    assert.ok('Ok' in (await h.admin.governance.create_proposal(general)));
    const price = h.ok(await h.bridge.governance.create_proposal(priceProposal(0.5)));
    assert.equal((await h.admin.governance.get_proposal(price))!.proposed_by, BRIDGE);
    const relayed = h.ok(await h.bridge.governance.create_proposal({ ...general, proposer: h.members[0]! }));
    assert.equal((await h.admin.governance.get_proposal(relayed))!.proposed_by, h.members[0]);
    assert.deepEqual(
      await h.bridge.governance.create_proposal({ ...general, proposer: principalFromSeed('not-a-member') }),
      { Err: { NotAMember: null } },
    );
    assert.deepEqual(
      await h.gov(h.members[0]!).create_proposal({ ...general, proposer: ADMIN }),
      { Err: { NotAuthorized: null } },
      'only trusted proposers name a proposer',
    );
  });

  it('invalid payloads are refused with InvalidPayload at creation and nothing is stored', async () => {
    const h = await withMembers(1);
    const g = h.gov(h.members[0]!);
    const bad = [
      { ...general, payload: { SetDomPrice: { price_usd: 1 } } },
      { title: 'p', body: 'b', category: 'SetDomPrice' as const },
      priceProposal(Number.NaN),
      priceProposal(Number.POSITIVE_INFINITY),
      priceProposal(0),
      priceProposal(-1),
      priceProposal(1, { effective_at: h.now() + 2n * DAY, expires_at: h.now() + DAY }),
      priceProposal(1, { expires_at: h.now() - 1n }),
      priceProposal(1, { source_url: 'javascript:alert(1)' }),
      { title: 'p', body: 'b', category: 'TreasuryPayout' as const },
      {
        title: 'p',
        body: 'b',
        category: 'TreasuryPayout' as const,
        payload: { TreasuryPayout: { recipient: ADMIN, amount: { DomE8s: 0n } } },
      },
      {
        title: 'p',
        body: 'b',
        category: 'TreasuryPayout' as const,
        payload: { TreasuryPayout: { recipient: ADMIN, amount: { Usd: Number.NaN } } },
      },
      {
        title: 'p',
        body: 'b',
        category: 'MembershipPolicy' as const,
        payload: { MembershipPolicy: { add_admins: [], remove_admins: [], revoke: [] } },
      },
      {
        title: 'p',
        body: 'b',
        category: 'ConstitutionalAmendment' as const,
        payload: {
          ConstitutionalAmendment: { category_rules: [{ category: 'General' as const, threshold_bps: 5000 }] },
        },
      },
      {
        title: 'p',
        body: 'b',
        category: 'EmergencyAction' as const,
        payload: { ConstitutionalAmendment: { category_rules: [], voting_delay: 0n } },
      },
      { ...general, title: '   ' },
      { ...general, title: 'x'.repeat(201) },
      { ...general, body: 'x'.repeat(50_001) },
      { ...general, title: 'bell\u0007' },
      { ...general, title: "'; DROP TABLE proposals; --", body: '' },
    ];
    for (const args of bad) {
      const r = await g.create_proposal(args);
      const what = JSON.stringify(args, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)).slice(0, 120);
      // Decision G22: the refusal carries its reason.
      assert.ok(
        'Err' in r &&
          'InvalidPayload' in r.Err &&
          typeof r.Err.InvalidPayload === 'string' &&
          r.Err.InvalidPayload.length > 0,
        `${what}: ${JSON.stringify(r)}`,
      );
    }
    assert.deepEqual(await g.list_proposals({}), []);
    assert.deepEqual(await events(h), []);
    // SQL-looking text is just text.
    const id = h.ok(await g.create_proposal({ ...general, title: "'; DROP TABLE proposals; --" }));
    assert.equal((await g.get_proposal(id))!.title, "'; DROP TABLE proposals; --");
  });
});

describe('state machine: Created → Open → Tallied → Approved/Rejected → Executed/Expired (spec 1, decision G6)', () => {
  it('moves on time without anyone calling (scheduler) and reads correctly when observed late', async () => {
    const h = await withMembers(2);
    const g = h.gov(h.members[0]!);
    const id = h.ok(await g.create_proposal(general));
    h.advance(HOUR);
    assert.equal((await g.get_proposal(id))!.status, 'Open', 'observed late: Open by time before any tick');
    await h.tick();
    assert.equal((await g.get_tally(id))!.total_eligible, 2n, 'quorum snapshot taken when the window opened');
    h.ok(await g.cast_vote(id, 'Yes'));
    h.advance(7n * DAY);
    assert.equal((await g.get_proposal(id))!.status, 'Approved', 'observed late: Tallied and evaluated by time');
    await h.tick();
    const p = (await g.get_proposal(id))!;
    assert.equal(p.status, 'Executed', 'General executes at once (informational)');
    const changes = (await events(h)).flatMap((e) =>
      'StatusChanged' in e.kind ? [`${e.kind.StatusChanged.from}→${e.kind.StatusChanged.to}`] : [],
    );
    assert.deepEqual(changes, ['Created→Open', 'Open→Tallied', 'Tallied→Approved', 'Approved→Executed']);
  });

  it('quorum not met → Rejected', async () => {
    const h = await withMembers(11);
    const g = h.gov(h.members[0]!);
    const id = h.ok(await g.create_proposal(general));
    h.advance(HOUR);
    h.ok(await g.cast_vote(id, 'Yes')); // 1 of 11 < 10 %
    h.advance(7n * DAY);
    await h.tick();
    const p = (await g.get_proposal(id))!;
    assert.equal(p.status, 'Rejected');
    assert.equal(p.tally!.quorum_met, false);
    assert.equal(p.tally!.threshold_met, true);
  });

  it('a proposal nobody votes on is Rejected even when its opening was never recorded', async () => {
    const h = await withMembers(1);
    const id = h.ok(await h.gov(h.members[0]!).create_proposal(general));
    h.advance(30n * DAY);
    assert.equal((await h.admin.governance.get_proposal(id))!.status, 'Rejected');
    await h.tick();
    assert.equal((await h.admin.governance.get_proposal(id))!.status, 'Rejected');
  });

  it('Approved but not executed within the execution window → Expired; a failed execution is observable and retryable', async () => {
    const h = await withMembers(1);
    const m = h.members[0]!;
    const id = h.ok(
      await h.gov(m).create_proposal({
        title: 'Pay',
        body: 'b',
        category: 'TreasuryPayout',
        payload: { TreasuryPayout: { recipient: m, amount: { DomE8s: 500n } } },
      }),
    );
    h.advance(HOUR);
    h.ok(await h.gov(m).cast_vote(id, 'Yes'));
    h.advance(5n * DAY);
    await h.tick();
    assert.equal((await h.gov(m).get_proposal(id))!.status, 'Approved', 'the treasury is empty: execution failed');
    const failed = (await events(h)).filter((e) => 'ExecutionFailed' in e.kind);
    assert.equal(failed.length, 1);
    assert.match(
      (failed[0]!.kind as { ExecutionFailed: { message: string } }).ExecutionFailed.message,
      /InsufficientFunds/,
    );
    assert.deepEqual(await h.gov(m).execute_proposal(id), {
      Err: { ExecutionFailed: 'treasury refused the payout: InsufficientFunds: {"balance":"0","required":"10500"}' },
    });
    await h.mint(h.platform.ids.treasury, 11_000n);
    assert.deepEqual(await h.gov(m).execute_proposal(id), { Ok: null }, 'retry within the window succeeds');
    assert.equal((await h.gov(m).get_proposal(id))!.status, 'Executed');
    assert.equal(await h.admin.treasury.get_balance(), 500n, '11 000 − 500 − the 10 000 fee');
    assert.deepEqual(await h.gov(m).execute_proposal(id), {
      Err: { ExecutionFailed: 'proposal is Executed, not Approved' },
    });

    const id2 = h.ok(
      await h.gov(m).create_proposal({
        title: 'Pay more',
        body: 'b',
        category: 'TreasuryPayout',
        payload: { TreasuryPayout: { recipient: m, amount: { DomE8s: 10_000n } } },
      }),
    );
    h.advance(HOUR);
    h.ok(await h.gov(m).cast_vote(id2, 'Yes'));
    h.advance(5n * DAY + 7n * DAY);
    assert.equal((await h.gov(m).get_proposal(id2))!.status, 'Expired', 'observed late, past the execution window');
    await h.tick();
    assert.equal((await h.gov(m).get_proposal(id2))!.status, 'Expired');
    assert.deepEqual(await h.gov(m).execute_proposal(id2), {
      Err: { ExecutionFailed: 'proposal is Expired, not Approved' },
    });
    assert.equal(await h.admin.treasury.get_balance(), 500n, 'nothing paid');
  });

  it('the scheduler retries a failed execution every 5 minutes until it succeeds', async () => {
    const h = await withMembers(1);
    const m = h.members[0]!;
    const id = h.ok(
      await h.gov(m).create_proposal({
        title: 'Pay',
        body: 'b',
        category: 'TreasuryPayout',
        payload: { TreasuryPayout: { recipient: m, amount: { DomE8s: 5n } } },
      }),
    );
    h.advance(HOUR);
    h.ok(await h.gov(m).cast_vote(id, 'Yes'));
    h.advance(5n * DAY);
    await h.tick();
    await h.tick();
    assert.equal(
      (await events(h)).filter((e) => 'ExecutionFailed' in e.kind).length,
      1,
      'not retried before 5 minutes',
    );
    await h.mint(h.platform.ids.treasury, 10_005n);
    h.advance(300n * 1_000_000_000n);
    await h.tick();
    assert.equal((await h.gov(m).get_proposal(id))!.status, 'Executed');
  });
});

describe('counting (decision G1): quorum = turnout / total_eligible, threshold = yes / (yes + no), "at least"', () => {
  async function vote(n: number, category: 'TreasuryPayout' | 'SetDomPrice', yes: number, no: number, abstain: number) {
    const h = await withMembers(n);
    const payload =
      category === 'SetDomPrice'
        ? { SetDomPrice: { price_usd: 2 } }
        : { TreasuryPayout: { recipient: h.members[0]!, amount: { DomE8s: 1n } } };
    const id = h.ok(await h.admin.governance.create_proposal({ title: 't', body: 'b', category, payload }));
    h.advance(HOUR);
    const choices = [...Array(yes).fill('Yes'), ...Array(no).fill('No'), ...Array(abstain).fill('Abstain')] as Array<
      'Yes' | 'No' | 'Abstain'
    >;
    for (const [i, c] of choices.entries()) h.ok(await h.gov(h.members[i]!).cast_vote(id, c));
    h.advance(6n * DAY);
    return (await h.admin.governance.get_proposal(id))!;
  }

  it('TreasuryPayout quorum 20 %: exactly 2 of 10 meets it (abstentions count), 1 of 10 does not', async () => {
    const exact = await vote(10, 'TreasuryPayout', 1, 0, 1);
    assert.equal(exact.tally!.quorum_met, true);
    assert.equal(exact.status, 'Approved');
    const short = await vote(10, 'TreasuryPayout', 1, 0, 0);
    assert.equal(short.tally!.quorum_met, false);
    assert.equal(short.status, 'Rejected');
  });

  it('SetDomPrice threshold 55 %: 11 yes / 9 no passes (exactly 55 %), 10 yes / 9 no fails (one vote short)', async () => {
    const exact = await vote(20, 'SetDomPrice', 11, 9, 0);
    assert.equal(exact.tally!.threshold_met, true);
    assert.equal(exact.status, 'Approved');
    const short = await vote(20, 'SetDomPrice', 10, 9, 1);
    assert.equal(short.tally!.threshold_met, false);
    assert.equal(short.status, 'Rejected');
  });
});

describe('cast_vote (spec 1 Authentication rule 1, decision G9)', () => {
  it('the right error for not found, not open, closed window, not a member and already voted; votes cannot change', async () => {
    const h = await withMembers(2);
    const [a, b] = h.members as [string, string];
    const id = h.ok(await h.gov(a).create_proposal(general));
    assert.deepEqual(await h.gov(a).cast_vote(99n, 'Yes'), { Err: { ProposalNotFound: null } });
    assert.deepEqual(await h.gov(a).cast_vote(id, 'Yes'), { Err: { ProposalNotOpen: null } }, 'Created: not open yet');
    h.advance(HOUR);
    const registered = await h.register('registered');
    assert.deepEqual(
      await h.gov(registered).cast_vote(id, 'Yes'),
      { Err: { NotAMember: null } },
      'Registered members do not vote',
    );
    assert.deepEqual(await h.gov(principalFromSeed('nobody')).cast_vote(id, 'Yes'), { Err: { NotAMember: null } });
    assert.deepEqual(await h.gov(a).cast_vote(id, 'No'), { Ok: null });
    assert.deepEqual(await h.gov(a).cast_vote(id, 'Yes'), { Err: { AlreadyVoted: null } });
    assert.deepEqual(await h.gov(a).get_my_vote(id), 'No', 'the first vote stands');
    assert.deepEqual(await h.gov(b).get_my_vote(id), undefined);
    const t = (await h.gov(b).get_tally(id))!;
    assert.deepEqual([t.yes_votes, t.no_votes, t.abstentions], [0n, 1n, 0n]);
    h.advance(7n * DAY);
    assert.deepEqual(
      await h.gov(b).cast_vote(id, 'Yes'),
      { Err: { VotingWindowClosed: null } },
      'even before the scheduler ran',
    );
  });

  it('a membership that expired (Dec 31 23:59:59 UTC) or was revoked no longer votes', async () => {
    const h = await withMembers(2);
    const [a, b] = h.members as [string, string];
    h.ok(await h.admin.membership.revoke_membership(b));
    h.setNow('2027-01-01T00:00:00Z');
    const id = h.ok(await h.admin.governance.create_proposal(general));
    h.advance(HOUR);
    assert.deepEqual(await h.gov(a).cast_vote(id, 'Yes'), { Err: { NotAMember: null } }, 'expired');
    assert.deepEqual(await h.gov(b).cast_vote(id, 'Yes'), { Err: { NotAMember: null } }, 'revoked');
    assert.equal((await h.admin.governance.get_tally(id))!.total_eligible, 0n);
  });

  it('an unreachable membership canister is reported, not mistaken for a non-member', async () => {
    let down = false;
    const h = await harness({
      interceptCall: (_f, to) => {
        if (down && to === 'membership') throw new Error('canister stopped');
      },
    });
    const m = await h.activate('m');
    const id = h.ok(await h.admin.governance.create_proposal(general));
    h.advance(HOUR);
    down = true;
    assert.deepEqual(await h.as(m).governance.cast_vote(id, 'Yes'), {
      Err: { MembershipUnavailable: 'canister stopped' },
    });
    down = false;
    assert.deepEqual(await h.as(m).governance.cast_vote(id, 'Yes'), { Ok: null });
  });
});

describe('vote-pass receipts (spec 1 Events rule 2, ICRC-7 and ICRC-10)', () => {
  it('minted to each voter, readable through the ICRC-7 query set, soul-bound, burned when the proposal is finalised', async () => {
    const h = await withMembers(3);
    const [a, b, c] = h.members as [string, string, string];
    const p1 = h.ok(await h.admin.governance.create_proposal(general));
    const p2 = h.ok(await h.admin.governance.create_proposal({ ...general, title: 'second' }));
    h.advance(HOUR);
    for (const m of [a, b]) h.ok(await h.gov(m).cast_vote(p1, 'Yes'));
    h.ok(await h.gov(a).cast_vote(p2, 'No'));
    const g = h.gov(c);
    assert.equal(await g.icrc7_total_supply(), 3n);
    assert.deepEqual(
      await g.icrc7_balance_of([
        { owner: a },
        { owner: b },
        { owner: c },
        { owner: a, subaccount: new Uint8Array(32).fill(7) },
      ]),
      [2n, 1n, 0n, 0n],
    );
    assert.deepEqual(await g.icrc7_tokens_of({ owner: a }, undefined, undefined), [1n, 3n]);
    assert.deepEqual(await g.icrc7_tokens_of({ owner: a }, 1n, 1n), [3n], 'prev and take page');
    assert.deepEqual(await g.icrc7_owner_of([2n, 42n]), [{ owner: b }, undefined]);
    assert.deepEqual(
      await g.icrc7_token_metadata([1n]),
      [
        [
          ['proposal_id', { Nat: p1 }],
          ['minted_at', { Nat: h.now() }],
        ],
      ],
      'the vote itself is not disclosed',
    );
    assert.equal(await g.icrc7_symbol(), 'DOMVOTE');
    assert.deepEqual((await g.icrc7_collection_metadata()).map(([k]) => k).slice(0, 4), [
      'icrc7:name',
      'icrc7:symbol',
      'icrc7:description',
      'icrc7:total_supply',
    ]);
    assert.equal(await g.icrc7_max_query_batch_size(), 100n);
    assert.equal(await g.icrc7_max_take_value(), 100n);
    assert.deepEqual(
      (await g.icrc10_supported_standards()).map((s) => s.name),
      ['ICRC-7', 'ICRC-10', 'ICRC-21'], // ICRC-21: consent messages (decision G24)
    );
    const [t] = await h.gov(a).icrc7_transfer([{ token_id: 1n, to: { owner: c } }]);
    assert.match((t as { Err: { GenericError: { message: string } } }).Err.GenericError.message, /soul-bound/);
    await assert.rejects(g.icrc7_owner_of(Array.from({ length: 101 }, (_, i) => BigInt(i))), /at most 100/);
    await assert.rejects(g.icrc7_tokens_of({ owner: a }, undefined, 101n), /take must be at most 100/);

    h.advance(7n * DAY);
    await h.tick();
    assert.equal((await g.get_proposal(p1))!.status, 'Executed');
    assert.equal((await g.get_proposal(p2))!.status, 'Rejected');
    assert.equal(await g.icrc7_total_supply(), 0n, 'burned on finalisation');
    assert.deepEqual(await g.icrc7_balance_of([{ owner: a }]), [0n]);
    assert.equal((await h.admin.governance.list_votes(p1)).length, 2, 'the votes themselves remain on record');
  });
});

describe('queries: list_proposals, get_tally, list_votes (decision G8)', () => {
  it('filters by status and category, pages newest first from from_id, default 20, clamps to 100', async () => {
    const h = await withMembers(1);
    const g = h.gov(h.members[0]!);
    for (let i = 0; i < 105; i++) h.ok(await g.create_proposal({ ...general, title: `p${i + 1}` }));
    h.ok(await g.create_proposal(priceProposal(1.5)));
    assert.equal((await g.list_proposals({})).length, 20);
    assert.equal((await g.list_proposals({ limit: 1000 })).length, 100, 'clamped to 100');
    assert.deepEqual(
      (await g.list_proposals({ limit: 3 })).map((p) => p.id),
      [106n, 105n, 104n],
    );
    assert.deepEqual(
      (await g.list_proposals({ from_id: 5n, limit: 10 })).map((p) => p.id),
      [5n, 4n, 3n, 2n, 1n],
    );
    assert.deepEqual(
      (await g.list_proposals({ category: 'SetDomPrice' })).map((p) => p.id),
      [106n],
    );
    assert.deepEqual(await g.list_proposals({ status: 'Open' }), []);
    assert.equal((await g.list_proposals({ status: 'Created', limit: 100 })).length, 100);
    assert.deepEqual(await g.list_proposals({ limit: 0 }), []);
    assert.equal(await g.get_proposal(999n), undefined);
  });

  it('get_tally answers for open and closed proposals, not for unopened ones; list_votes is admin only', async () => {
    const h = await withMembers(2);
    const [a, b] = h.members as [string, string];
    const id = h.ok(await h.gov(a).create_proposal(general));
    assert.equal(await h.gov(a).get_tally(id), undefined);
    assert.equal(await h.gov(a).get_tally(77n), undefined);
    h.advance(HOUR);
    h.ok(await h.gov(a).cast_vote(id, 'Yes'));
    h.ok(await h.gov(b).cast_vote(id, 'Abstain'));
    assert.deepEqual(await h.gov(a).get_tally(id), {
      yes_votes: 1n,
      no_votes: 0n,
      abstentions: 1n,
      total_eligible: 2n,
      quorum_met: true,
      threshold_met: true,
    });
    await assert.rejects(h.gov(a).list_votes(id), /NotAuthorized/);
    await assert.rejects(h.bridge.governance.list_votes(id), /NotAuthorized/);
    const votes = await h.admin.governance.list_votes(id);
    assert.deepEqual(
      new Map(votes.map((v) => [v.voter, v.vote])),
      new Map([
        [a, 'Yes'],
        [b, 'Abstain'],
      ]),
    );
    assert.ok(votes.every((v) => v.voted_at === h.now() && v.receipt_token_id > 0n));
    h.advance(7n * DAY);
    assert.equal((await h.gov(a).get_tally(id))!.yes_votes, 1n, 'closed proposals keep their tally');
  });
});

describe('list_votes_page (decision V25)', () => {
  it('pages through every vote once, in voter order, after an exclusive cursor; page size defaults to 100 and is capped at 200; admin only', async () => {
    const h = await withMembers(7);
    const id = h.ok(await h.gov(h.members[0]!).create_proposal(general));
    const other = h.ok(await h.gov(h.members[0]!).create_proposal(general));
    h.advance(HOUR);
    for (const m of h.members) h.ok(await h.gov(m).cast_vote(id, 'Yes'));
    h.ok(await h.gov(h.members[0]!).cast_vote(other, 'No'));
    const g = h.admin.governance;
    const all = await g.list_votes(id);
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await g.list_votes_page(id, after, 3);
      assert.ok(page.length <= 3);
      if (page.length === 0) break;
      seen.push(...page.map((v) => v.voter));
      after = page.at(-1)!.voter;
    }
    assert.deepEqual(
      seen,
      all.map((v) => v.voter),
      'the same votes as list_votes, in the same order, each once',
    );
    assert.deepEqual(seen, [...seen].sort(), 'voter order');
    assert.equal((await g.list_votes_page(id)).length, 7, 'default page (100) holds them all');
    assert.deepEqual(
      (await g.list_votes_page(other)).map((v) => v.vote),
      ['No'],
      "another proposal's votes stay apart",
    );
    assert.equal((await g.list_votes_page(id, undefined, 0)).length, 1, 'a page holds at least one');
    assert.deepEqual(await g.list_votes_page(99n), []);
    await assert.rejects(h.gov(h.members[0]!).list_votes_page(id), /NotAuthorized/);
  });
});

describe('SetDomPrice execution and the price oracle (spec 1 Execution rules)', () => {
  async function ratify(
    h: Harness & { members: string[]; gov: (p: string) => GovernanceClient },
    price: number,
    extra: Record<string, unknown> = {},
  ) {
    const id = h.ok(await h.bridge.governance.create_proposal(priceProposal(price, extra)));
    h.advance(HOUR);
    h.ok(await h.gov(h.members[0]!).cast_vote(id, 'Yes'));
    h.advance(3n * DAY);
    await h.tick();
    return id;
  }

  it('stores the tick with set_by = governance and the proposal id, emits PriceUpdated, keeps history', async () => {
    const h = await withMembers(1);
    assert.equal(await h.admin.governance.get_dom_price(), undefined);
    const id = await ratify(h, 0.25);
    const tick = (await h.admin.governance.get_dom_price())!;
    assert.deepEqual(tick, { price_usd: 0.25, set_by: h.platform.ids.governance, proposal_id: id, timestamp: h.now() });
    assert.equal((await h.admin.governance.get_proposal(id))!.status, 'Executed');
    const updated = (await events(h)).find((e) => 'PriceUpdated' in e.kind)!;
    assert.deepEqual(updated.kind, {
      PriceUpdated: {
        proposal_id: id,
        price_usd: 0.25,
        effective_at: h.now(),
        source_url: 'https://oracle.example.org/dom',
      },
    });
    const id2 = await ratify(h, 0.3);
    assert.deepEqual(
      (await h.admin.governance.list_price_history(undefined)).map((t) => t.proposal_id),
      [id2, id],
    );
    assert.deepEqual(
      (await h.admin.governance.list_price_history(1)).map((t) => t.price_usd),
      [0.3],
    );
  });

  it('effective_at in the future takes effect then; expires_at reverts to the previous price', async () => {
    const h = await withMembers(1);
    await ratify(h, 1);
    const start = h.now();
    const effective = start + 10n * DAY;
    await ratify(h, 2, { effective_at: effective, expires_at: effective + 2n * DAY });
    assert.equal((await h.admin.governance.get_dom_price())!.price_usd, 1, 'not yet effective');
    h.setNow(effective);
    assert.equal((await h.admin.governance.get_dom_price())!.price_usd, 2);
    assert.equal((await h.admin.governance.get_dom_price())!.timestamp, effective);
    h.setNow(effective + 2n * DAY);
    assert.equal((await h.admin.governance.get_dom_price())!.price_usd, 1, 'expired: the previous price applies again');
  });

  it('update_dom_price applies an Approved SetDomPrice proposal when governance calls it on itself (rule 1)', async () => {
    const h = await withMembers(1);
    const id = h.ok(await h.bridge.governance.create_proposal(priceProposal(0.42)));
    h.advance(HOUR);
    h.ok(await h.gov(h.members[0]!).cast_vote(id, 'Yes'));
    h.advance(3n * DAY);
    assert.equal((await h.admin.governance.get_proposal(id))!.status, 'Approved', 'closed, not executed yet');
    const self = h.as(h.platform.ids.governance).governance;
    assert.deepEqual(await self.update_dom_price({ proposal_id: 999n, price_usd: 0.42 }), {
      Err: { ProposalNotFound: null },
    });
    assert.deepEqual(await self.update_dom_price({ proposal_id: id, price_usd: Number.NaN }), {
      Err: { InvalidPayload: 'price_usd must be a finite number above 0' },
    });
    assert.deepEqual(await self.update_dom_price({ proposal_id: id, price_usd: 0.42 }), { Ok: null });
    assert.deepEqual(await h.admin.governance.get_dom_price(), {
      price_usd: 0.42,
      set_by: h.platform.ids.governance,
      proposal_id: id,
      timestamp: h.now(),
    });
  });

  it('update_dom_price is refused for a SetDomPrice proposal that is Open, Rejected or Executed (rule 1: Approved only)', async () => {
    const h = await withMembers(1);
    const self = h.as(h.platform.ids.governance).governance;
    const open = h.ok(await h.bridge.governance.create_proposal(priceProposal(0.1)));
    const rejected = h.ok(await h.bridge.governance.create_proposal(priceProposal(0.2)));
    const executed = h.ok(await h.bridge.governance.create_proposal(priceProposal(0.3)));
    h.advance(HOUR);
    h.ok(await h.gov(h.members[0]!).cast_vote(rejected, 'No'));
    h.ok(await h.gov(h.members[0]!).cast_vote(executed, 'Yes'));
    assert.equal((await h.admin.governance.get_proposal(open))!.status, 'Open');
    assert.deepEqual(
      await self.update_dom_price({ proposal_id: open, price_usd: 0.1 }),
      { Err: { ProposalNotFound: null } },
      'Open',
    );
    h.advance(3n * DAY);
    await h.tick();
    assert.equal((await h.admin.governance.get_proposal(rejected))!.status, 'Rejected');
    assert.equal((await h.admin.governance.get_proposal(executed))!.status, 'Executed');
    const history = await h.admin.governance.list_price_history(undefined);
    assert.deepEqual(
      history.map((t) => t.price_usd),
      [0.3],
    );
    assert.deepEqual(
      await self.update_dom_price({ proposal_id: rejected, price_usd: 0.2 }),
      { Err: { ProposalNotFound: null } },
      'Rejected',
    );
    assert.deepEqual(
      await self.update_dom_price({ proposal_id: executed, price_usd: 0.3 }),
      { Err: { ProposalNotFound: null } },
      'Executed: applied once',
    );
    assert.deepEqual(await h.admin.governance.list_price_history(undefined), history, 'nothing applied');
  });

  it('update_dom_price is callable by the governance canister only', async () => {
    const h = await withMembers(1);
    for (const who of [ADMIN, BRIDGE, h.members[0]!]) {
      assert.deepEqual(await h.as(who).governance.update_dom_price({ proposal_id: 1n, price_usd: 9 }), {
        Err: { NotAuthorized: null },
      });
    }
    assert.equal(await h.admin.governance.get_dom_price(), undefined);
  });
});

describe('ConstitutionalAmendment and MembershipPolicy execution (spec 1 rule 2, decisions G11–G12)', () => {
  it('an amendment changes the rules for proposals created afterwards; the window in force at creation stays fixed mid-vote', async () => {
    const h = await withMembers(1);
    const m = h.members[0]!;
    const amend = h.ok(
      await h.gov(m).create_proposal({
        title: 'Shorter general votes',
        body: 'b',
        category: 'ConstitutionalAmendment',
        payload: {
          ConstitutionalAmendment: {
            category_rules: [{ category: 'General', voting_window: 3n * DAY, quorum_bps: 2000 }],
          },
        },
      }),
    );
    h.advance(HOUR);
    h.ok(await h.gov(m).cast_vote(amend, 'Yes'));
    h.advance(10n * DAY);
    const before = h.ok(await h.gov(m).create_proposal(general)); // created under the 7-day window
    h.advance(4n * DAY + HOUR);
    await h.tick();
    assert.equal((await h.gov(m).get_proposal(amend))!.status, 'Executed');
    assert.ok((await events(h)).some((e) => 'ConfigChanged' in e.kind));
    const settings = await h.gov(m).get_settings();
    assert.deepEqual(
      settings.rules.find((r) => r.category === 'General'),
      { category: 'General', quorum_bps: 2000, threshold_bps: 5100, voting_window: 3n * DAY },
    );
    const p = (await h.gov(m).get_proposal(before))!;
    assert.equal(p.voting_closes - p.voting_opens, 7n * DAY, 'fixed at creation');
    assert.equal(p.status, 'Open', 'still open although 3 days have passed since it opened');
    const after = h.ok(await h.gov(m).create_proposal(general));
    const q = (await h.gov(m).get_proposal(after))!;
    assert.equal(q.voting_closes - q.voting_opens, 3n * DAY);
  });

  it('a MembershipPolicy proposal revokes memberships and changes membership admins', async () => {
    const h = await withMembers(2);
    const [a, b] = h.members as [string, string];
    const newAdmin = principalFromSeed('new-admin');
    const id = h.ok(
      await h.gov(a).create_proposal({
        title: 'Policy',
        body: 'b',
        category: 'MembershipPolicy',
        payload: { MembershipPolicy: { add_admins: [newAdmin], remove_admins: [], revoke: [b] } },
      }),
    );
    h.advance(HOUR);
    h.ok(await h.gov(a).cast_vote(id, 'Yes'));
    h.ok(await h.gov(b).cast_vote(id, 'Yes'));
    h.advance(7n * DAY);
    await h.tick();
    assert.equal((await h.admin.governance.get_proposal(id))!.status, 'Executed');
    assert.equal((await h.admin.membership.get_membership_status(b))!.status, 'Revoked');
    h.ok(await h.as(newAdmin).membership.revoke_membership(a));
  });
});

describe('durability of the embedded host across a restart', () => {
  it('decision P4: a vote writes the counts under their own key; a proposal voted on before that keeps its counts and counts on, across a restart', async () => {
    const { tempDir } = await import('./harness.ts');
    const h = await harness({ dir: tempDir() });
    const [a, b, c] = await h.activateMany('p4', 3);
    const id = h.ok(await h.as(a!).governance.create_proposal(general));
    h.advance(HOUR);
    const host = h.platform.host;
    const proposals = host.store<bigint, { yes_votes: bigint; no_votes: bigint; abstentions: bigint; status: string }>(
      'governance',
      'proposals',
    );
    const tallies = host.store<bigint, { yes_votes: bigint; no_votes: bigint; abstentions: bigint }>(
      'governance',
      'tallies',
    );
    const counts = (t: { yes_votes: bigint; no_votes: bigint; abstentions: bigint } | undefined) =>
      t && [t.yes_votes, t.no_votes, t.abstentions];
    h.ok(await h.as(a!).governance.cast_vote(id, 'Yes'));
    assert.deepEqual(counts(tallies.get(id)), [1n, 0n, 0n]);
    assert.deepEqual(counts(proposals.get(id)), [0n, 0n, 0n], 'the proposal record is not rewritten by the vote');
    assert.deepEqual(counts(await h.admin.governance.get_tally(id)), [1n, 0n, 0n]);
    // The state as an earlier release left it: the counts on the proposal record, no tallies entry.
    await host.update('governance', () => {
      proposals.set(id, { ...proposals.get(id)!, ...tallies.get(id)! });
      tallies.delete(id);
    });
    assert.deepEqual(counts(await h.admin.governance.get_tally(id)), [1n, 0n, 0n], 'read from the record');
    h.ok(await h.as(b!).governance.cast_vote(id, 'No'));
    const h2 = await h.reopen();
    h.ok(await h2.as(c!).governance.cast_vote(id, 'Abstain'));
    assert.deepEqual(counts(await h2.admin.governance.get_tally(id)), [1n, 1n, 1n]);
    assert.deepEqual(counts((await h2.admin.governance.list_proposals({ limit: 10 }))[0]!.tally), [1n, 1n, 1n]);
    h2.setNow((await h2.admin.governance.get_proposal(id))!.voting_closes + 1n);
    await h2.tick();
    assert.equal(
      (await h2.admin.governance.get_proposal(id))!.status,
      'Rejected',
      'decided on the merged counts: 1 yes of 2 yes and no is below the threshold',
    );
    h2.platform.close();
  });

  it('proposals, votes, tallies, receipts, prices and events survive; timers resume from stored state', async () => {
    const { tempDir } = await import('./harness.ts');
    const h = await harness({ dir: tempDir() });
    const [a, b] = await h.activateMany('m', 2);
    const id = h.ok(await h.as(a!).governance.create_proposal(priceProposal(0.7)));
    h.advance(HOUR);
    h.ok(await h.as(a!).governance.cast_vote(id, 'Yes'));
    const before = {
      p: await h.admin.governance.get_proposal(id),
      e: await events(h),
      s: await h.admin.governance.icrc7_total_supply(),
    };
    const h2 = await h.reopen();
    assert.deepEqual(await h2.admin.governance.get_proposal(id), before.p);
    assert.deepEqual(await events(h2), before.e);
    assert.equal(await h2.admin.governance.icrc7_total_supply(), before.s);
    assert.deepEqual(await h2.as(a!).governance.cast_vote(id, 'No'), { Err: { AlreadyVoted: null } });
    h.ok(await h2.as(b!).governance.cast_vote(id, 'Yes'));
    h2.advance(3n * DAY);
    await h2.tick();
    assert.equal((await h2.admin.governance.get_dom_price())!.price_usd, 0.7);
    const h3 = await h2.reopen();
    assert.equal((await h3.admin.governance.get_dom_price())!.price_usd, 0.7);
    assert.equal((await h3.admin.governance.get_proposal(id))!.status, 'Executed');
    h3.platform.close();
  });
});

describe('development voting times (decision G45: embedded host only, not stored)', () => {
  const MINUTE = 60_000_000_000n;
  it('a platform opened with devVoting gives new proposals its delay and window, EmergencyAction opening at once; get_settings says so', async () => {
    const h = await harness({ devVoting: { delay: MINUTE, window: 10n * MINUTE } });
    const [member] = await h.activateMany('dev-voter', 1);
    const gov = h.as(member!).governance;
    const p = (await gov.get_proposal(h.ok(await gov.create_proposal(general))))!;
    assert.deepEqual([p.voting_opens - p.created_at, p.voting_closes - p.voting_opens], [MINUTE, 10n * MINUTE]);
    const emergency = (await gov.get_proposal(
      h.ok(await gov.create_proposal({ title: 'Pause payouts', body: 'Now.', category: 'EmergencyAction' })),
    ))!;
    assert.deepEqual(
      [emergency.voting_opens - emergency.created_at, emergency.voting_closes - emergency.voting_opens],
      [0n, 10n * MINUTE],
    );
    const settings = await gov.get_settings();
    assert.equal(settings.voting_delay, MINUTE);
    assert.ok(settings.rules.every((r) => r.voting_window === 10n * MINUTE));
    // The quorum and threshold stay the constitution's.
    assert.deepEqual(
      settings.rules.map((r) => [r.category, r.quorum_bps, r.threshold_bps]),
      (await (await harness()).admin.governance.get_settings()).rules.map((r) => [
        r.category,
        r.quorum_bps,
        r.threshold_bps,
      ]),
    );
  });

  it('not stored: the same state reopened without devVoting gives the settings again, and the proposals made before keep their times', async () => {
    const dir = tempDir();
    let h = await harness({ dir, devVoting: { delay: MINUTE, window: 10n * MINUTE } });
    const [member] = await h.activateMany('dev-voter-2', 1);
    const before = h.ok(await h.as(member!).governance.create_proposal(general));
    h.platform.close();
    h = await harness({ dir, start: '2026-03-10T12:00:01Z' });
    const gov = h.as(member!).governance;
    const after = (await gov.get_proposal(h.ok(await gov.create_proposal(general))))!;
    assert.deepEqual(
      [after.voting_opens - after.created_at, after.voting_closes - after.voting_opens],
      [HOUR, 7n * DAY],
    );
    const old = (await gov.get_proposal(before))!;
    assert.equal(old.voting_closes - old.voting_opens, 10n * MINUTE);
    assert.equal((await gov.get_settings()).voting_delay, HOUR);
    h.platform.close();
  });
});
