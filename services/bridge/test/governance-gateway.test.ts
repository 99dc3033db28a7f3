// Governance gateway (decisions V8–V12): members vote and execute through POST
// /api/governance/*, as their own principal; every VoteError through HTTP with its documented status
// and the variant as the code; the session, cross-site and bearer-defect rules (spec 1
// Authentication rules 3 and 6) on every mutation; GET a proposal with its tally.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { principalFromSeed } from '@domdao/canisters';
import { ADMIN_EMAIL, APP, bridge, type Bridge, type Jar } from './harness.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
let membershipDown = false;
let h: Bridge;
let alice: { jar: Jar; user_id: string };
let bob: { jar: Jar; user_id: string };

async function activate(userId: string) {
  const bridgeClients = h.opened.canisters.clients;
  const { principal } = await h.opened.db
    .selectFrom('users')
    .select('principal')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  assert.ok('Ok' in (await bridgeClients.user.record_kyc(principal, true)));
  assert.ok(
    'Ok' in
      (await bridgeClients.user.upgrade_membership_to_active({
        principal,
        kyc_proof: new Uint8Array([1]),
        payment_proof: new Uint8Array([2]),
      })),
  );
  return principal;
}

/** Time moves by days in these tests: sign both in again so idle sessions do not expire. */
async function signIn() {
  alice = { jar: (await h.login('alice@domdao.example')).jar, user_id: alice.user_id };
  bob = { jar: (await h.login('bob@domdao.example')).jar, user_id: bob.user_id };
}

async function openProposal(): Promise<string> {
  const r = await h.opened.canisters.clients.governance.create_proposal({
    title: 'Fund the garden',
    body: 'b',
    category: 'General',
  });
  assert.ok('Ok' in r);
  h.advance(HOUR_MS);
  await h.opened.canisters.platform!.tick();
  await signIn();
  return String(r.Ok);
}

const vote = (
  jar: Jar | undefined,
  payload: unknown,
  extra: { origin?: string | null; headers?: Record<string, string> } = {},
) =>
  h.request({ method: 'POST', url: '/api/governance/vote', payload: payload as object, ...(jar && { jar }), ...extra });

describe('governance gateway', () => {
  before(async () => {
    h = await bridge(
      undefined,
      {},
      {
        interceptCall: (_f, to, _m) => {
          if (membershipDown && to === 'membership') throw new Error('membership canister stopped');
        },
      },
    );
    alice = await h.member('alice@domdao.example');
    bob = await h.member('bob@domdao.example');
    await activate(alice.user_id);
  });
  after(() => h.close());

  it('a member votes as their own principal; GET the proposal shows the tally (V8, V12)', async () => {
    const id = await openProposal();
    const r = await vote(alice.jar, { proposal_id: id, vote: 'Yes' });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { proposal_id: id, vote: 'Yes' });
    const { principal } = await h.opened.db
      .selectFrom('users')
      .select('principal')
      .where('id', '=', alice.user_id)
      .executeTakeFirstOrThrow();
    assert.equal(
      await h.opened.canisters.platform!.as(principal).governance.get_my_vote(BigInt(id)),
      'Yes',
      'recorded under the member principal',
    );
    const g = await h.request({ method: 'GET', url: `/api/governance/proposals/${id}` });
    assert.equal(g.statusCode, 200);
    assert.equal(g.headers['cache-control'], 'public, max-age=5');
    const p = g.json() as { id: string; status: string; tally: null | Record<string, string>; voting_opens: string };
    assert.equal(p.id, id);
    assert.equal(p.status, 'Open');
    assert.match(p.voting_opens, /^\d{4}-\d\d-\d\dT/);
    assert.equal(
      (await h.request({ method: 'GET', url: '/api/governance/proposals/999999' })).json().error,
      'ProposalNotFound',
    );
  });

  it('every VoteError through HTTP: status and variant name (V9)', async () => {
    const id = await openProposal();
    assert.equal((await vote(alice.jar, { proposal_id: id, vote: 'No' })).statusCode, 200);
    const cases: [string, Jar, unknown, number, string][] = [
      ['AlreadyVoted', alice.jar, { proposal_id: id, vote: 'Yes' }, 409, 'AlreadyVoted'],
      ['NotAMember', bob.jar, { proposal_id: id, vote: 'Yes' }, 403, 'NotAMember'],
      ['ProposalNotFound', alice.jar, { proposal_id: '424242', vote: 'Yes' }, 404, 'ProposalNotFound'],
    ];
    for (const [what, jar, body, status, code] of cases) {
      const r = await vote(jar, body);
      assert.deepEqual([r.statusCode, r.json().error], [status, code], `${what}: ${r.body}`);
    }
    // Created, not yet open.
    const created = await h.opened.canisters.clients.governance.create_proposal({
      title: 'Later',
      body: 'b',
      category: 'General',
    });
    assert.ok('Ok' in created);
    let r = await vote(alice.jar, { proposal_id: String(created.Ok), vote: 'Yes' });
    assert.deepEqual([r.statusCode, r.json().error], [409, 'ProposalNotOpen']);
    // Membership canister unreachable.
    const other = await openProposal();
    membershipDown = true;
    try {
      r = await vote(alice.jar, { proposal_id: other, vote: 'Yes' });
    } finally {
      membershipDown = false;
    }
    assert.deepEqual([r.statusCode, r.json().error], [503, 'MembershipUnavailable']);
    assert.equal(r.headers['retry-after'], '5');
    // Window over but not yet tallied (no scheduler step).
    h.advance(8 * DAY_MS);
    await signIn();
    r = await vote(alice.jar, { proposal_id: other, vote: 'Yes' });
    assert.deepEqual([r.statusCode, r.json().error], [409, 'VotingWindowClosed']);
  });

  it('decision G23: a member made Active after voting opened is refused with 403 NotActiveWhenVotingOpened, a message that says why and when; votes on the next proposal', async () => {
    const carol = await h.member('carol@domdao.example');
    const id = await openProposal();
    const opened = (await h.request({ method: 'GET', url: `/api/governance/proposals/${id}` })).json() as {
      voting_opens: string;
      tally: { total_eligible: string };
    };
    h.advance(1000);
    await activate(carol.user_id);
    const jar = (await h.login('carol@domdao.example')).jar;
    const r = await vote(jar, { proposal_id: id, vote: 'Yes' });
    assert.deepEqual([r.statusCode, r.json().error], [403, 'NotActiveWhenVotingOpened'], r.body);
    assert.equal(
      r.json().message,
      `your membership became Active after voting opened on this proposal, so you cannot vote on it; you can vote on proposals that open from now on (voting opened at ${opened.voting_opens})`,
    );
    const after = (await h.request({ method: 'GET', url: `/api/governance/proposals/${id}` })).json() as {
      tally: { yes_votes: string; total_eligible: string };
    };
    assert.deepEqual(
      [after.tally.yes_votes, after.tally.total_eligible],
      ['0', opened.tally.total_eligible],
      'nothing counted',
    );
    const next = await openProposal();
    const ok = await vote((await h.login('carol@domdao.example')).jar, { proposal_id: next, vote: 'Yes' });
    assert.equal(ok.statusCode, 200, ok.body);
  });

  it('bad bodies: per-field 400, nothing changes; oversized body 413 (V11)', async () => {
    await signIn();
    for (const body of [{ proposal_id: 'x1', vote: 'Yes' }, { proposal_id: '1', vote: 'Maybe' }, { vote: 'Yes' }]) {
      const r = await vote(alice.jar, body);
      assert.equal(r.statusCode, 400, JSON.stringify(body));
      assert.equal(r.json().error, 'VALIDATION_ERROR');
    }
    assert.match((await vote(alice.jar, { proposal_id: '1', vote: 'Maybe' })).json().message, /vote/);
    assert.equal(
      (await vote(alice.jar, { proposal_id: '99999999999999999999', vote: 'Yes' })).json().message,
      'proposal_id: out of range (nat64)',
    );
    const big = await vote(alice.jar, { proposal_id: '1', vote: 'Yes', pad: 'x'.repeat(20_000) });
    assert.equal(big.statusCode, 413);
  });

  it('session, cross-site and bearer-defect rules on every mutation (spec 1 Authentication 3 and 6; V10)', async () => {
    await signIn();
    const id = await openProposal();
    for (const url of ['/api/governance/propose', '/api/governance/vote', '/api/governance/execute']) {
      const payload = url.endsWith('vote')
        ? { proposal_id: id, vote: 'Yes' }
        : url.endsWith('propose')
          ? { title: 't', body: 'b', category: 'General' }
          : { proposal_id: id };
      let r = await h.request({ method: 'POST', url, payload });
      assert.deepEqual([r.statusCode, r.json().error], [401, 'UNAUTHORIZED'], `${url} without a session`);
      r = await h.request({ method: 'POST', url, payload, headers: { authorization: 'Bearer abc.def' } });
      assert.deepEqual([r.statusCode, r.json().error], [401, 'SESSION_REQUIRED'], `${url} bearer only`);
      assert.match(
        r.json().message,
        /sign in again at https:\/\/bridge\.domdao\.example\/login\?returnUrl=https%3A%2F%2Fapp\.domdao\.example/,
      );
      assert.equal(
        r.headers['x-login-url'],
        `https://bridge.domdao.example/login?returnUrl=${encodeURIComponent(APP)}`,
      );
      r = await h.request({ method: 'POST', url, payload, jar: alice.jar, origin: 'https://evil.example' });
      assert.deepEqual([r.statusCode, r.json().error], [403, 'CSRF_REJECTED'], `${url} foreign origin`);
      r = await h.request({ method: 'POST', url, payload, jar: alice.jar, origin: null });
      assert.deepEqual([r.statusCode, r.json().error], [403, 'CSRF_REJECTED'], `${url} no origin`);
    }
    assert.equal(
      await h.opened.canisters.clients.governance.get_tally(BigInt(id)).then((t) => t?.yes_votes ?? 0n),
      0n,
      'none of the refused requests voted',
    );
    assert.equal(
      (await h.opened.canisters.clients.governance.list_proposals({})).filter((p) => p.title === 't').length,
      0,
      'none of them proposed',
    );
  });

  it('execute: permissionless for a signed-in member; refused (409 ExecutionFailed) while Open and once Executed', async () => {
    await signIn();
    const id = await openProposal();
    assert.equal((await vote(alice.jar, { proposal_id: id, vote: 'Yes' })).statusCode, 200);
    let r = await h.request({
      method: 'POST',
      url: '/api/governance/execute',
      payload: { proposal_id: id },
      jar: bob.jar,
    });
    assert.deepEqual([r.statusCode, r.json().error], [409, 'ExecutionFailed'], r.body);
    assert.match(r.json().message, /not Approved/);
    h.advance(8 * DAY_MS);
    await h.opened.canisters.platform!.tick();
    await signIn();
    const status = (await h.request({ method: 'GET', url: `/api/governance/proposals/${id}` })).json().status as string;
    r = await h.request({ method: 'POST', url: '/api/governance/execute', payload: { proposal_id: id }, jar: bob.jar });
    assert.equal(status, 'Executed', 'the canister timer executed the approved General proposal');
    r = await h.request({ method: 'POST', url: '/api/governance/execute', payload: { proposal_id: id }, jar: bob.jar });
    assert.equal(r.statusCode, 409, r.body);
  });

  it('propose: 201 with id, status and window; payload per category checked field by field (V11, V13)', async () => {
    await signIn();
    const propose = (jar: Jar, payload: object) =>
      h.request({ method: 'POST', url: '/api/governance/propose', payload, jar });
    let r = await propose(alice.jar, { title: 'Plant trees', body: '# Why\nShade.', category: 'General' });
    assert.equal(r.statusCode, 201, r.body);
    const created = r.json() as { proposal_id: string; status: string; voting_opens: string; voting_closes: string };
    assert.equal(created.status, 'Created');
    assert.equal(Date.parse(created.voting_opens) - h.now(), HOUR_MS, 'opens after the voting delay');
    const { principal } = await h.opened.db
      .selectFrom('users')
      .select('principal')
      .where('id', '=', alice.user_id)
      .executeTakeFirstOrThrow();
    assert.equal(
      (await h.opened.canisters.clients.governance.get_proposal(BigInt(created.proposal_id)))!.proposed_by,
      principal,
      'proposed as the member',
    );

    r = await propose(alice.jar, {
      title: 'Price',
      body: 'b',
      category: 'SetDomPrice',
      payload: {
        price_usd: 0.5,
        source_url: 'https://bridge.domdao.example/api/price/dom-usd/records/1',
        effective_at: Math.floor(h.now() / 1000) + 7 * 86_400,
      },
    });
    assert.equal(r.statusCode, 201, r.body);
    const view = (
      await h.request({ method: 'GET', url: `/api/governance/proposals/${r.json().proposal_id}` })
    ).json() as {
      payload: { SetDomPrice: { price_usd: number; effective_at: string } };
    };
    assert.equal(view.payload.SetDomPrice.price_usd, 0.5);
    assert.equal(
      BigInt(view.payload.SetDomPrice.effective_at),
      BigInt(Math.floor(h.now() / 1000) + 7 * 86_400) * 1_000_000_000n,
      'Unix seconds in, ns on the canister',
    );

    const bad: [object, RegExp][] = [
      [{ title: 'x', body: 'b', category: 'SetDomPrice', payload: { price_usd: -1 } }, /payload\.price_usd/],
      [
        { title: 'x', body: 'b', category: 'SetDomPrice', payload: { price_usd: 1, source_url: 'ftp://x' } },
        /payload\.source_url/,
      ],
      [{ title: 'x', body: 'b', category: 'General', payload: { price_usd: 1 } }, /payload\.price_usd: unknown field/],
      [
        { title: 'x', body: 'b', category: 'TreasuryPayout', payload: { recipient: principal, amount: { usd: 0 } } },
        /payload\.amount/,
      ],
      [
        { title: 'x', body: 'b', category: 'MembershipPolicy', payload: { revoke: ['not a principal!'] } },
        /payload\.revoke/,
      ],
      [
        {
          title: 'x',
          body: 'b',
          category: 'ConstitutionalAmendment',
          payload: { category_rules: [{ category: 'General', quorum_bps: 20_000 }] },
        },
        /quorum_bps/,
      ],
      [{ title: 'x', body: 'b', category: 'Nope' }, /category/],
      [{ title: '', body: 'b', category: 'General' }, /title/],
    ];
    for (const [body, message] of bad) {
      r = await propose(alice.jar, body);
      assert.deepEqual([r.statusCode, r.json().error], [400, 'VALIDATION_ERROR'], JSON.stringify(body));
      assert.match(r.json().message, message);
    }
    r = await propose(alice.jar, {
      title: 'Pay',
      body: 'b',
      category: 'TreasuryPayout',
      payload: { recipient: principal, amount: { dom_e8s: '100000000' }, memo: 'thanks' },
    });
    assert.equal(r.statusCode, 201, r.body);
    r = await propose(bob.jar, { title: 'From a non-member', body: 'b', category: 'General' });
    assert.equal(r.statusCode, 403, r.body);
    assert.equal(r.json().error, 'NotAMember');
  });

  it("decision G22: source_url is https only, at most 2048 characters, by one rule; a refusal names the field, the canister's too", async () => {
    await signIn();
    const propose = (payload: object) =>
      h.request({
        method: 'POST',
        url: '/api/governance/propose',
        payload: { title: 'Price', body: 'b', category: 'SetDomPrice', payload },
        jar: alice.jar,
      });
    const count = async () => (await h.opened.canisters.clients.governance.list_proposals({ limit: 100 })).length;
    const before = await count();
    const at = (n: number) => 'https://p.example/' + 'x'.repeat(n - 'https://p.example/'.length);
    for (const source_url of ['http://prices.example/dom', 'https://prices example/dom', at(2049)]) {
      const r = await propose({ price_usd: 1, source_url });
      assert.deepEqual([r.statusCode, r.json().error], [400, 'VALIDATION_ERROR'], source_url.slice(0, 40));
      assert.equal(r.json().message, 'payload.source_url: an https URL of at most 2048 characters, without spaces');
    }
    assert.equal(await count(), before, 'nothing created');
    assert.equal((await propose({ price_usd: 1, source_url: at(2048) })).statusCode, 201, 'at the limit');
    // What only the canister can judge (the expiry against its clock) comes back with its field named.
    const r = await propose({ price_usd: 1, expires_at: 1 });
    assert.deepEqual([r.statusCode, r.json().error], [400, 'InvalidPayload']);
    assert.match(r.json().message, /: expires_at must be after/);
  });

  it('reads: proposals filtered and paged, ratified price (404 before any), history, settings; cacheable (V14)', async () => {
    await openProposal();
    await openProposal();
    await openProposal();
    let r = await h.request({ method: 'GET', url: '/api/governance/proposals?status=Open&limit=2' });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.headers['cache-control'], 'public, max-age=5');
    const open = (r.json() as { items: { status: string }[] }).items;
    assert.ok(open.length === 2 && open.every((p) => p.status === 'Open'), JSON.stringify(open));
    const price = (r = await h.request({
      method: 'GET',
      url: '/api/governance/proposals?category=SetDomPrice',
    })).json() as { items: { category: string }[] };
    assert.ok(price.items.length >= 1 && price.items.every((p) => p.category === 'SetDomPrice'));
    for (const q of ['status=Nope', 'limit=0', 'limit=101', 'from_id=abc', 'category=Other']) {
      r = await h.request({ method: 'GET', url: `/api/governance/proposals?${q}` });
      assert.deepEqual([r.statusCode, r.json().error], [400, 'VALIDATION_ERROR'], q);
    }
    r = await h.request({ method: 'GET', url: '/api/governance/price' });
    assert.deepEqual([r.statusCode, r.json().error], [404, 'NO_RATIFIED_PRICE']);
    r = await h.request({ method: 'GET', url: '/api/governance/price/history' });
    assert.deepEqual(r.json(), { items: [] });
    r = await h.request({ method: 'GET', url: '/api/governance/settings' });
    const settings = r.json() as { rules: { category: string; quorum_bps: number }[]; voting_delay: string };
    assert.equal(settings.rules.length, 6);
    assert.equal(settings.voting_delay, String(3_600_000_000_000n));
    assert.equal(r.headers['cache-control'], 'public, max-age=60');
  });

  it('my vote (session) and the admin event log (admin; from the follower, decision V3) (V15)', async () => {
    const id = await openProposal();
    assert.equal((await vote(alice.jar, { proposal_id: id, vote: 'Abstain' })).statusCode, 200);
    let r = await h.request({ method: 'GET', url: `/api/governance/proposals/${id}/my-vote`, jar: alice.jar });
    // Decision V27: the receipt also says how the vote was cast.
    assert.deepEqual(r.json(), {
      proposal_id: id,
      vote: 'Abstain',
      cast: 'direct',
      delegate: null,
      delegate_name: null,
      reason: null,
      final: true,
    });
    assert.equal(r.headers['cache-control'], 'private, no-cache');
    assert.deepEqual(
      (await h.request({ method: 'GET', url: `/api/governance/proposals/${id}/my-vote`, jar: bob.jar })).json(),
      {
        proposal_id: id,
        vote: null,
        cast: null,
        delegate: null,
        delegate_name: null,
        reason: null,
        final: false,
      },
    );
    assert.equal((await h.request({ method: 'GET', url: `/api/governance/proposals/${id}/my-vote` })).statusCode, 401);

    assert.equal(
      (await h.request({ method: 'GET', url: '/api/governance/admin/events', jar: alice.jar })).statusCode,
      403,
    );
    const admin = await h.member(ADMIN_EMAIL);
    const deadline = Date.now() + 5_000;
    let items: { seq: string; id: string; type: string; data: { proposal_id: string } }[] = [];
    while (Date.now() < deadline) {
      r = await h.request({ method: 'GET', url: '/api/governance/admin/events?limit=500', jar: admin.jar });
      assert.equal(r.statusCode, 200, r.body);
      items = r.json().items;
      if (items.some((e) => e.type === 'ProposalOpened' && e.data.proposal_id === id)) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    assert.ok(
      items.some((e) => e.type === 'ProposalCreated' && e.data.proposal_id === id),
      'ProposalCreated copied by the follower',
    );
    assert.ok(
      items.some((e) => e.type === 'ProposalOpened' && e.data.proposal_id === id),
      'ProposalOpened copied by the follower',
    );
    const page = (
      await h.request({ method: 'GET', url: '/api/governance/admin/events?limit=1', jar: admin.jar })
    ).json() as {
      items: { seq: string }[];
      next_after_seq: string;
    };
    assert.equal(page.items.length, 1);
    const next = (
      await h.request({
        method: 'GET',
        url: `/api/governance/admin/events?limit=1&after_seq=${page.next_after_seq}`,
        jar: admin.jar,
      })
    ).json() as {
      items: { seq: string }[];
    };
    assert.ok(BigInt(next.items[0]!.seq) > BigInt(page.items[0]!.seq));
  });
});

describe('governance gateway: receipts, votes, ETags, execute (decisions V22, V23)', () => {
  let g: Bridge;
  let carol: { jar: Jar; user_id: string };
  let dave: { jar: Jar; user_id: string };
  before(async () => {
    g = await bridge();
    carol = await g.member('carol@domdao.example');
    dave = await g.member('dave@domdao.example');
    for (const m of [carol, dave]) {
      const { principal } = await g.opened.db
        .selectFrom('users')
        .select('principal')
        .where('id', '=', m.user_id)
        .executeTakeFirstOrThrow();
      assert.ok('Ok' in (await g.opened.canisters.clients.user.record_kyc(principal, true)));
      assert.ok(
        'Ok' in
          (await g.opened.canisters.clients.user.upgrade_membership_to_active({
            principal,
            kyc_proof: new Uint8Array([1]),
            payment_proof: new Uint8Array([2]),
          })),
      );
    }
  });
  after(() => g.close());

  const open = async () => {
    const r = await g.opened.canisters.clients.governance.create_proposal({
      title: 'Plant trees',
      body: 'b',
      category: 'General',
    });
    assert.ok('Ok' in r);
    g.advance(HOUR_MS);
    await g.opened.canisters.platform!.tick();
    carol = { ...carol, jar: (await g.login('carol@domdao.example')).jar };
    dave = { ...dave, jar: (await g.login('dave@domdao.example')).jar };
    return String(r.Ok);
  };

  it('my vote-pass receipts (spec 1 Events rule 2): one per vote, naming the proposal, only mine; session required', async () => {
    const a = await open();
    const b = await open();
    for (const id of [a, b])
      assert.equal(
        (
          await g.request({
            method: 'POST',
            url: '/api/governance/vote',
            payload: { proposal_id: id, vote: 'Yes' },
            jar: carol.jar,
          })
        ).statusCode,
        200,
      );
    const r = await g.request({ method: 'GET', url: '/api/governance/my-receipts', jar: carol.jar });
    assert.equal(r.statusCode, 200, r.body);
    const body = r.json() as {
      principal: string;
      items: { token_id: string; proposal_id: string; minted_at: string }[];
      next_prev: string | null;
    };
    assert.deepEqual(
      body.items.map((x) => x.proposal_id),
      [a, b],
    );
    assert.match(body.items[0]!.minted_at, /^\d{4}-\d\d-\d\dT/);
    const page = (
      await g.request({ method: 'GET', url: '/api/governance/my-receipts?take=1', jar: carol.jar })
    ).json() as typeof body;
    assert.deepEqual([page.items.map((x) => x.proposal_id), page.next_prev], [[a], page.items[0]!.token_id]);
    const rest = (
      await g.request({
        method: 'GET',
        url: `/api/governance/my-receipts?take=1&prev=${page.next_prev}`,
        jar: carol.jar,
      })
    ).json() as typeof body;
    assert.deepEqual(
      rest.items.map((x) => x.proposal_id),
      [b],
    );
    assert.deepEqual(
      (await g.request({ method: 'GET', url: '/api/governance/my-receipts', jar: dave.jar })).json().items,
      [],
    );
    assert.equal((await g.request({ method: 'GET', url: '/api/governance/my-receipts' })).statusCode, 401);
  });

  it('votes of a proposal: admins only (spec 1 Authentication 2), read by the bridge as a governance admin (V22)', async () => {
    const id = await open();
    assert.equal(
      (
        await g.request({
          method: 'POST',
          url: '/api/governance/vote',
          payload: { proposal_id: id, vote: 'No' },
          jar: dave.jar,
        })
      ).statusCode,
      200,
    );
    assert.equal((await g.request({ method: 'GET', url: `/api/governance/proposals/${id}/votes` })).statusCode, 401);
    assert.equal(
      (await g.request({ method: 'GET', url: `/api/governance/proposals/${id}/votes`, jar: dave.jar })).json().error,
      'FORBIDDEN',
    );
    const admin = await g.member(ADMIN_EMAIL);
    const r = await g.request({ method: 'GET', url: `/api/governance/proposals/${id}/votes`, jar: admin.jar });
    assert.equal(r.statusCode, 200, r.body);
    const { principal } = await g.opened.db
      .selectFrom('users')
      .select('principal')
      .where('id', '=', dave.user_id)
      .executeTakeFirstOrThrow();
    const items = (r.json() as { items: { voter: string; vote: string; voted_at: string; receipt_token_id: string }[] })
      .items;
    assert.deepEqual(
      items.map((v) => [v.voter, v.vote]),
      [[principal, 'No']],
    );
    assert.equal(r.headers['cache-control'], 'private, no-store');
    assert.equal(
      (await g.request({ method: 'GET', url: '/api/governance/proposals/987654/votes', jar: admin.jar })).json().error,
      'ProposalNotFound',
    );
  });

  it('ETag on the cacheable reads; If-None-Match → 304 without a body; a change → a new tag (V23)', async () => {
    for (const url of ['/api/governance/settings', '/api/governance/proposals', '/api/governance/price/history']) {
      const first = await g.request({ method: 'GET', url });
      const etag = first.headers.etag as string;
      assert.match(etag, /^W\/"[A-Za-z0-9_-]{27}"$/, url);
      const again = await g.request({ method: 'GET', url, headers: { 'if-none-match': etag } });
      assert.deepEqual([again.statusCode, again.body], [304, ''], url);
      assert.equal(again.headers.etag, etag);
      assert.equal(
        (await g.request({ method: 'GET', url, headers: { 'if-none-match': 'W/"other"' } })).statusCode,
        200,
      );
    }
    const before = (await g.request({ method: 'GET', url: '/api/governance/proposals' })).headers.etag as string;
    await open();
    const changed = await g.request({
      method: 'GET',
      url: '/api/governance/proposals',
      headers: { 'if-none-match': before },
    });
    assert.equal(changed.statusCode, 200);
    assert.notEqual(changed.headers.etag, before);
  });

  it('execute succeeds through the gateway once the window has closed (Approved), before any timer ran', async () => {
    const id = await open();
    for (const m of [carol, dave])
      assert.equal(
        (
          await g.request({
            method: 'POST',
            url: '/api/governance/vote',
            payload: { proposal_id: id, vote: 'Yes' },
            jar: m.jar,
          })
        ).statusCode,
        200,
      );
    g.advance(8 * DAY_MS);
    const { jar } = await g.login('carol@domdao.example');
    assert.equal(
      (await g.request({ method: 'GET', url: `/api/governance/proposals/${id}` })).json().status,
      'Approved',
    );
    const r = await g.request({ method: 'POST', url: '/api/governance/execute', payload: { proposal_id: id }, jar });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { proposal_id: id, status: 'Executed' });
    assert.equal(
      (await g.request({ method: 'GET', url: `/api/governance/proposals/${id}` })).json().status,
      'Executed',
    );
  });
});

describe('governance gateway: votes past one page', () => {
  it('votes of a proposal past one page (decisions V25, V31): pages of 200 through next_after until a short page, each vote once', async (t) => {
    const g = await bridge();
    t.after(() => g.close());
    const platform = g.opened.canisters.platform!;
    const registrar = g.opened.canisters.clients;
    // Members first: only members Active when the window opens vote on it (decision G23).
    const voters: string[] = [];
    for (let i = 0; i < 520; i += 40) {
      voters.push(
        ...(await Promise.all(
          Array.from({ length: 40 }, async (_, j) => {
            const principal = principalFromSeed(`page-voter-${i + j}`);
            const created = await registrar.user.create_account({
              principal,
              email_encrypted: 'e',
              name_encrypted: 'n',
              dob_encrypted: 'd',
              password_hash: '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaGhhc2hoYXNo',
              tos_accepted_at: 1n,
              is_age_verified_18_plus: true,
            });
            assert.ok('Ok' in created);
            assert.ok('Ok' in (await registrar.user.verify_email(created.Ok.verification_token)));
            assert.ok('Ok' in (await registrar.user.record_kyc(principal, true)));
            assert.ok(
              'Ok' in
                (await registrar.user.upgrade_membership_to_active({
                  principal,
                  kyc_proof: new Uint8Array([1]),
                  payment_proof: new Uint8Array([2]),
                })),
            );
            return principal;
          }),
        )),
      );
    }
    const created = await g.opened.canisters.clients.governance.create_proposal({
      title: 'Many voters',
      body: 'b',
      category: 'General',
    });
    assert.ok('Ok' in created);
    const id = String(created.Ok);
    g.advance(HOUR_MS);
    await platform.tick();
    for (let i = 0; i < voters.length; i += 40) {
      await Promise.all(
        voters
          .slice(i, i + 40)
          .map(async (principal) =>
            assert.ok('Ok' in (await platform.as(principal).governance.cast_vote(BigInt(id), 'Yes'))),
          ),
      );
    }
    const admin = await g.member(ADMIN_EMAIL);
    // Decision V31: the route answers a page (at most 200) and names where the next starts.
    const items: string[] = [];
    const sizes: number[] = [];
    for (let after: string | null = null, n = 0; n === 0 || after !== null; n++) {
      const r = await g.request({
        method: 'GET',
        url: `/api/governance/proposals/${id}/votes?limit=200${after ? `&after=${after}` : ''}`,
        jar: admin.jar,
      });
      assert.equal(r.statusCode, 200, r.body);
      const page = r.json() as { items: { voter: string }[]; next_after: string | null };
      items.push(...page.items.map((v) => v.voter));
      sizes.push(page.items.length);
      after = page.next_after;
    }
    assert.deepEqual(sizes, [200, 200, 120]);
    assert.equal(items.length, 520);
    assert.deepEqual([...items].sort(), [...voters].sort(), 'every vote once');
  });
});
