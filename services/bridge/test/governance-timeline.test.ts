// The proposal timeline and the votes a page at a time, with names beside principals (decisions V30,
// V31, G46, F22): GET /api/governance/proposals/{id}/timeline from a proposal's times, its admin events
// (as the follower copied them) and its execution deadline; GET …/votes paged with names and delegates;
// the delegate's and delegator's names in my-vote, the delegation and the delegators list.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_EMAIL, bridge, eventually, type Bridge, type Jar } from './harness.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
let h: Bridge;
const people: Record<string, { jar: Jar; user_id: string; principal: string; email: string }> = {};

interface Step {
  kind: string;
  at: string;
  done: boolean;
  event: { id: string; type: string; data: Record<string, unknown> } | null;
}
interface Timeline {
  proposal_id: string;
  status: string;
  steps: Step[];
  execution_failures: string;
}

async function signIn() {
  for (const p of Object.values(people)) p.jar = (await h.login(p.email)).jar;
}
const call = (who: string | undefined, method: 'GET' | 'PUT' | 'DELETE' | 'POST', url: string, payload?: object) =>
  h.request({ method, url, ...(payload && { payload }), ...(who && { jar: people[who]!.jar }) });
const timeline = async (id: string) => {
  const r = await call(undefined, 'GET', `/api/governance/proposals/${id}/timeline`);
  assert.equal(r.statusCode, 200, r.body);
  return r.json() as Timeline;
};
/** The timeline once the follower has copied the events its steps name (it polls the canister's log). */
const timelineWith = (id: string, ready: (t: Timeline) => boolean) =>
  eventually(`the timeline of ${id}`, async () => {
    const t = await timeline(id);
    return ready(t) ? t : undefined;
  });
const kinds = (t: Timeline) => t.steps.map((s) => `${s.kind}:${s.done ? 'done' : 'planned'}`);
const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();

async function propose(who: string, body: object): Promise<string> {
  const r = await call(who, 'POST', '/api/governance/propose', body);
  assert.equal(r.statusCode, 201, r.body);
  return r.json().proposal_id as string;
}
async function openVoting() {
  h.advance(HOUR_MS + 1000);
  await h.opened.canisters.platform!.tick();
  await signIn();
}
async function closeVoting(id: string) {
  const p = (await call(undefined, 'GET', `/api/governance/proposals/${id}`)).json() as { voting_closes: string };
  h.advance(Date.parse(p.voting_closes) - h.now() + 1000);
  for (let i = 0; i < 5; i++) await h.opened.canisters.platform!.tick();
  await signIn();
}

describe('the proposal timeline and the votes list (decisions V30, V31, G46)', () => {
  before(async () => {
    h = await bridge();
    const c = h.opened.canisters.clients;
    for (const [name, display] of [
      ['ann', 'Ann Arbor'],
      ['ben', 'Ben Nevis'],
      ['cat', 'Cat Stevens'],
    ] as const) {
      const email = `${name}@domdao.example`;
      const m = await h.member(email);
      const { principal } = await h.opened.db
        .selectFrom('users')
        .select('principal')
        .where('id', '=', m.user_id)
        .executeTakeFirstOrThrow();
      assert.ok('Ok' in (await c.user.record_kyc(principal, true)));
      assert.ok(
        'Ok' in
          (await c.user.upgrade_membership_to_active({
            principal,
            kyc_proof: new Uint8Array([1]),
            payment_proof: new Uint8Array([2]),
          })),
      );
      people[name] = { ...m, email, principal };
      assert.equal((await call(name, 'PUT', '/api/me/display-name', { display_name: display })).statusCode, 200);
    }
    const admin = await h.member(ADMIN_EMAIL);
    people.admin = { ...admin, email: ADMIN_EMAIL, principal: '' };
  });
  after(() => h.close());

  it('decision V30: errors: a bad id 400, an id past nat64 400, an unknown proposal 404; public, no session needed', async () => {
    const bad = await call(undefined, 'GET', '/api/governance/proposals/abc/timeline');
    assert.deepEqual([bad.statusCode, bad.json().error], [400, 'VALIDATION_ERROR']);
    const big = await call(undefined, 'GET', '/api/governance/proposals/18446744073709551616/timeline');
    assert.deepEqual([big.statusCode, big.json().error], [400, 'VALIDATION_ERROR']);
    const unknown = await call(undefined, 'GET', '/api/governance/proposals/987654/timeline');
    assert.deepEqual([unknown.statusCode, unknown.json().error], [404, 'ProposalNotFound']);
  });

  it('decisions V30, G46: created, then planned steps with their times; opened, closed, approved and executed with the events that recorded them', async () => {
    // Decision V31 first: ann delegates to ben before the vote opens (G30), with her name shown to him.
    const d = await call('ann', 'PUT', '/api/governance/delegation', {
      delegate: people.ben!.principal,
      show_name: true,
    });
    assert.equal(d.statusCode, 200, d.body);
    assert.deepEqual(
      (d.json() as { delegations: Array<{ delegate: string; delegate_name: string }> }).delegations.map((x) => [
        x.delegate,
        x.delegate_name,
      ]),
      [[people.ben!.principal, 'Ben Nevis']],
    );
    const delegators = (await call('ben', 'GET', '/api/governance/delegation/delegators')).json() as {
      items: Array<{ member: string; member_name: string }>;
    };
    assert.deepEqual(
      delegators.items.map((i) => [i.member, i.member_name]),
      [[people.ann!.principal, 'Ann Arbor']],
    );
    h.advance(1000);

    const id = await propose('cat', { title: 'Paint the fence', body: 'Green.', category: 'General' });
    const p = (await call(undefined, 'GET', `/api/governance/proposals/${id}`)).json() as {
      created_at: string;
      voting_opens: string;
      voting_closes: string;
    };
    const created = await timelineWith(id, (t) => t.steps[0]!.event !== null);
    assert.equal(created.status, 'Created');
    assert.deepEqual(kinds(created), [
      'created:done',
      'opens:planned',
      'closes:planned',
      'tallied:planned',
      'result:planned',
      'execution_deadline:planned',
    ]);
    assert.deepEqual(created.steps[0]!.event!.type, 'ProposalCreated');
    assert.equal(created.steps[0]!.at, p.created_at);
    assert.equal(created.steps[1]!.at, p.voting_opens, 'a planned step: its planned time');
    assert.equal(created.steps[2]!.at, p.voting_closes);
    const deadline = (await h.opened.canisters.clients.governance.get_execution_deadline(BigInt(id)))!;
    assert.equal(created.steps[5]!.at, iso(deadline));
    assert.equal(
      Date.parse(created.steps[5]!.at),
      Date.parse(p.voting_closes) + 7 * DAY_MS,
      'the default execution window, 7 days (decision G46)',
    );
    assert.equal(created.execution_failures, '0');

    await openVoting();
    const open = await timelineWith(id, (t) => t.steps[1]!.event !== null);
    assert.deepEqual(kinds(open), [
      'created:done',
      'opens:done',
      'closes:planned',
      'tallied:planned',
      'result:planned',
      'execution_deadline:planned',
    ]);
    assert.equal(open.steps[1]!.event!.type, 'ProposalOpened');
    assert.equal(
      open.steps[1]!.at,
      new Date(h.now()).toISOString(),
      'when the opening was recorded, not when it was planned',
    );

    assert.equal(
      (await call('ben', 'POST', '/api/governance/vote', { proposal_id: id, vote: 'Yes', reason: 'it is grey' }))
        .statusCode,
      200,
    );
    // Decision V31: ann's ballot names her delegate.
    const mine = (await call('ann', 'GET', `/api/governance/proposals/${id}/my-vote`)).json();
    assert.deepEqual(
      [mine.cast, mine.delegate, mine.delegate_name, mine.final],
      ['delegate', people.ben!.principal, 'Ben Nevis', false],
    );
    const own = (await call('ben', 'GET', `/api/governance/proposals/${id}/my-vote`)).json();
    assert.deepEqual([own.cast, own.delegate, own.delegate_name], ['direct', null, null]);

    await closeVoting(id);
    const done = await timelineWith(
      id,
      (t) => t.status === 'Executed' && t.steps.every((s) => s.kind === 'closes' || s.event !== null),
    );
    assert.deepEqual(kinds(done), [
      'created:done',
      'opens:done',
      'closes:done',
      'tallied:done',
      'approved:done',
      'executed:done',
    ]);
    assert.deepEqual(
      done.steps.map((s) => s.event?.type ?? null),
      [
        null,
        'ProposalCreated',
        'ProposalOpened',
        null,
        'ProposalTallied',
        'ProposalApproved',
        'ProposalExecuted',
      ].slice(1),
    );
    assert.ok(
      done.steps.every((s, i) => i === 0 || Date.parse(s.at) >= Date.parse(done.steps[i - 1]!.at)),
      'in time order',
    );
    assert.ok(done.steps.every((s) => s.event === null || s.event.data.proposal_id === id));

    // Decision V31: the admin's votes list, with names and "by delegate".
    const votes = await call('admin', 'GET', `/api/governance/proposals/${id}/votes`);
    assert.equal(votes.statusCode, 200, votes.body);
    const items = (votes.json() as { items: Array<Record<string, string | null>>; next_after: string | null }).items;
    assert.deepEqual(items.map((v) => [v.voter_name, v.vote, v.delegate_name, v.reason]).sort(), [
      ['Ann Arbor', 'Yes', 'Ben Nevis', null],
      ['Ben Nevis', 'Yes', null, 'it is grey'],
    ]);
    assert.equal(votes.json().next_after, null);
  });

  it('decision V31: the votes a page at a time: limit 1–200, next_after at a full page, after a voter; refusals change nothing', async () => {
    const id = await propose('cat', { title: 'Mend the gate', body: 'Hinges.', category: 'General' });
    await openVoting();
    for (const who of ['ann', 'ben', 'cat'])
      assert.equal((await call(who, 'POST', '/api/governance/vote', { proposal_id: id, vote: 'No' })).statusCode, 200);
    const url = `/api/governance/proposals/${id}/votes`;
    const all = (await call('admin', 'GET', url)).json() as {
      items: Array<{ voter: string }>;
      next_after: string | null;
    };
    assert.equal(all.items.length, 3);
    assert.equal(all.next_after, null, 'a short page: no more');
    const voters = all.items.map((v) => v.voter);
    assert.deepEqual(voters, [...voters].sort(), 'voter order');
    const first = (await call('admin', 'GET', `${url}?limit=1`)).json() as {
      items: Array<{ voter: string }>;
      next_after: string;
    };
    assert.deepEqual([first.items.map((v) => v.voter), first.next_after], [[voters[0]], voters[0]]);
    const rest = (await call('admin', 'GET', `${url}?limit=2&after=${first.next_after}`)).json() as {
      items: Array<{ voter: string }>;
      next_after: string;
    };
    assert.deepEqual(
      rest.items.map((v) => v.voter),
      voters.slice(1),
    );
    assert.equal(rest.next_after, voters[2], 'a full page names its last voter');
    const end = (await call('admin', 'GET', `${url}?limit=2&after=${rest.next_after}`)).json() as {
      items: unknown[];
      next_after: string | null;
    };
    assert.deepEqual([end.items, end.next_after], [[], null]);
    assert.equal((await call('admin', 'GET', `${url}?limit=200`)).statusCode, 200, 'at the limit');
    for (const q of ['limit=201', 'limit=0', 'after=Not%20A%20Principal']) {
      const r = await call('admin', 'GET', `${url}?${q}`);
      assert.deepEqual([r.statusCode, r.json().error], [400, 'VALIDATION_ERROR'], q);
    }
    assert.deepEqual((await call('admin', 'GET', '/api/governance/proposals/abc/votes')).statusCode, 400);
    const unknown = await call('admin', 'GET', '/api/governance/proposals/987654/votes');
    assert.deepEqual([unknown.statusCode, unknown.json().error], [404, 'ProposalNotFound']);
    // Spec 1 Authentication rule 2: admins only.
    assert.equal((await call('ann', 'GET', url)).json().error, 'FORBIDDEN');
    assert.equal((await call(undefined, 'GET', url)).statusCode, 401);
  });

  it('decision V30: a rejected proposal ends at "rejected", nothing planned after it', async () => {
    const id = await propose('cat', { title: 'Sell the hall', body: 'No.', category: 'General' });
    await openVoting();
    assert.equal((await call('ben', 'POST', '/api/governance/vote', { proposal_id: id, vote: 'No' })).statusCode, 200);
    await closeVoting(id);
    const t = await timelineWith(id, (x) => x.status === 'Rejected' && x.steps.at(-1)!.event !== null);
    assert.deepEqual(kinds(t), ['created:done', 'opens:done', 'closes:done', 'tallied:done', 'rejected:done']);
    assert.equal(t.steps.at(-1)!.event!.type, 'ProposalRejected');
  });

  it('decisions V30, G46: failed executions (the newest 5 shown, all counted: at the limit and one past it), then expired at the deadline', async () => {
    // A payout in USD with no ratified price fails to execute (PriceStale), whoever asks.
    const id = await propose('cat', {
      title: 'Pay for the paint',
      body: 'Receipts attached.',
      category: 'TreasuryPayout',
      payload: { recipient: people.cat!.principal, amount: { usd: 10 } },
    });
    await openVoting();
    assert.equal((await call('ben', 'POST', '/api/governance/vote', { proposal_id: id, vote: 'Yes' })).statusCode, 200);
    await closeVoting(id);
    // Failures so far, from the canister's own log (the scheduler may have tried already at close).
    const failed = async () =>
      (await h.opened.canisters.clients.governance.list_admin_events(undefined, 1000)).filter(
        (e) => 'ExecutionFailed' in e.kind && String(e.kind.ExecutionFailed.proposal_id) === id,
      ).length;
    for (let n = await failed(); n < 5; n++) {
      h.advance(1000);
      const r = await call('ann', 'POST', '/api/governance/execute', { proposal_id: id });
      assert.equal(r.statusCode, 409, r.body);
    }
    const five = await timelineWith(id, (t) => t.execution_failures === '5');
    assert.equal(five.status, 'Approved');
    const shown = five.steps.filter((s) => s.kind === 'execution_failed');
    assert.equal(shown.length, 5, 'at the limit: every failure shown');
    assert.deepEqual(
      shown.map((s) => s.event!.data.attempt),
      [1, 2, 3, 4, 5],
    );
    assert.match(String(shown[0]!.event!.data.message), /.+/);
    assert.deepEqual(kinds(five).slice(-1), ['execution_deadline:planned']);

    h.advance(1000);
    assert.equal((await call('ann', 'POST', '/api/governance/execute', { proposal_id: id })).statusCode, 409);
    const six = await timelineWith(id, (t) => t.execution_failures === '6');
    assert.deepEqual(
      six.steps.filter((s) => s.kind === 'execution_failed').map((s) => s.event!.data.attempt),
      [2, 3, 4, 5, 6],
      'one past it: the newest five, in order',
    );

    const deadline = six.steps.at(-1)!.at;
    h.advance(Date.parse(deadline) - h.now() + 1000);
    await h.opened.canisters.platform!.tick();
    const expired = await timelineWith(id, (t) => t.status === 'Expired' && t.steps.at(-1)!.event !== null);
    assert.deepEqual(kinds(expired).slice(4), [
      'approved:done',
      ...Array(5).fill('execution_failed:done'),
      'expired:done',
    ]);
    assert.equal(expired.steps.at(-1)!.event!.type, 'ProposalExpired');
    assert.ok(Date.parse(expired.steps.at(-1)!.at) >= Date.parse(deadline));
  });
});
