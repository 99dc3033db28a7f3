// Liquid democracy and reasons through the bridge (decisions V26–V29 on the canister's G28–G34):
// GET/PUT/DELETE /api/governance/delegation per category, the delegators a delegate sees, the vote
// with a reason (at the limit and one past it), the receipt saying who cast the vote, direct and
// delegated turnout on the proposal, and the activity item for a member whose delegate voted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bridge, type Bridge, type Jar } from './harness.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
let h: Bridge;
const people: Record<string, { jar: Jar; user_id: string; principal: string; email: string }> = {};

async function activate(userId: string) {
  const c = h.opened.canisters.clients;
  const { principal } = await h.opened.db
    .selectFrom('users')
    .select('principal')
    .where('id', '=', userId)
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
  return principal;
}

async function signIn() {
  for (const p of Object.values(people)) p.jar = (await h.login(p.email)).jar;
}

const call = (who: string | undefined, method: 'GET' | 'PUT' | 'DELETE' | 'POST', url: string, payload?: object) =>
  h.request({ method, url, ...(payload && { payload }), ...(who && { jar: people[who]!.jar }) });

async function openProposal(): Promise<string> {
  const r = await h.opened.canisters.clients.governance.create_proposal({
    title: 'Repaint the hall',
    body: 'b',
    category: 'General',
  });
  assert.ok('Ok' in r);
  h.advance(HOUR_MS);
  await h.opened.canisters.platform!.tick();
  await signIn();
  return String(r.Ok);
}

describe('delegation through the bridge (decisions V26–V29)', () => {
  before(async () => {
    h = await bridge();
    for (const name of ['ann', 'ben', 'cat']) {
      const email = `${name}@domdao.example`;
      const m = await h.member(email);
      people[name] = { ...m, email, principal: await activate(m.user_id) };
    }
    const outsider = await h.member('out@domdao.example');
    people.out = {
      ...outsider,
      email: 'out@domdao.example',
      principal: (
        await h.opened.db
          .selectFrom('users')
          .select('principal')
          .where('id', '=', outsider.user_id)
          .executeTakeFirstOrThrow()
      ).principal,
    };
  });
  after(() => h.close());

  it('decision V26: PUT sets a delegation per category or for all, GET shows it, DELETE takes it back; refusals with their codes change nothing', async () => {
    const r = await call('ann', 'PUT', '/api/governance/delegation', {
      delegate: people.ben!.principal,
      show_name: true,
    });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(
      (r.json() as { delegations: Array<{ category: string | null; delegate: string }> }).delegations.map((d) => [
        d.category,
        d.delegate,
      ]),
      [[null, people.ben!.principal]],
    );
    const perCategory = await call('ann', 'PUT', '/api/governance/delegation', {
      delegate: people.cat!.principal,
      category: 'TreasuryPayout',
    });
    assert.equal(perCategory.statusCode, 200, perCategory.body);
    const got = await call('ann', 'GET', '/api/governance/delegation');
    assert.equal(got.statusCode, 200);
    assert.equal(got.headers['cache-control'], 'private, no-cache');
    assert.deepEqual(
      (got.json() as { delegations: Array<{ category: string | null; delegate: string }> }).delegations.map((d) => [
        d.category,
        d.delegate,
      ]),
      [
        [null, people.ben!.principal],
        ['TreasuryPayout', people.cat!.principal],
      ],
    );
    const cases: Array<[string, object, number, string]> = [
      ['self', { delegate: people.ann!.principal }, 400, 'SelfDelegation'],
      ['not an Active member', { delegate: people.out!.principal }, 400, 'DelegateNotAMember'],
      ['not a principal', { delegate: 'Not A Principal!' }, 400, 'VALIDATION_ERROR'],
      ['unknown category', { delegate: people.ben!.principal, category: 'Bribes' }, 400, 'VALIDATION_ERROR'],
    ];
    for (const [what, body, status, code] of cases) {
      const x = await call('ann', 'PUT', '/api/governance/delegation', body);
      assert.equal(x.statusCode, status, `${what}: ${x.body}`);
      assert.equal(x.json().error, code, what);
    }
    const notMember = await call('out', 'PUT', '/api/governance/delegation', { delegate: people.ben!.principal });
    assert.deepEqual([notMember.statusCode, notMember.json().error], [403, 'NotAMember']);
    assert.equal(
      (await call(undefined, 'PUT', '/api/governance/delegation', { delegate: people.ben!.principal })).statusCode,
      401,
    );
    assert.equal((await call(undefined, 'GET', '/api/governance/delegation')).statusCode, 401);
    const revoked = await call('ann', 'DELETE', '/api/governance/delegation?category=TreasuryPayout');
    assert.equal(revoked.statusCode, 200, revoked.body);
    const again = await call('ann', 'DELETE', '/api/governance/delegation?category=TreasuryPayout');
    assert.deepEqual([again.statusCode, again.json().error], [404, 'NotDelegating']);
    assert.equal((await call('ann', 'GET', '/api/governance/delegation')).json().delegations.length, 1);
  });

  it('decision V27: a delegate sees how many delegate to them, and names only where allowed', async () => {
    const r = await call('cat', 'PUT', '/api/governance/delegation', {
      delegate: people.ben!.principal,
      category: 'General',
    });
    assert.equal(r.statusCode, 200);
    const d = await call('ben', 'GET', '/api/governance/delegation/delegators');
    assert.equal(d.statusCode, 200, d.body);
    const page = d.json() as { total: string; items: Array<{ category: string | null; member: string | null }> };
    assert.equal(page.total, '2');
    assert.deepEqual(
      page.items.map((i) => [i.category, i.member]).sort(),
      [
        ['General', null],
        [null, people.ann!.principal],
      ].sort(),
    );
    assert.equal((await call('ben', 'GET', '/api/governance/delegation')).json().delegators, '2');
    assert.equal((await call('ben', 'GET', '/api/governance/delegation/delegators?limit=501')).statusCode, 400);
  });

  it('decision V33: nothing in a delegate’s view names a delegator who chose not to be shown: keys and next_after are opaque, new in every answer, valid only for that delegate', async () => {
    type Page = {
      total: string;
      items: Array<{ key: string; category: string | null; member: string | null; member_name: string | null }>;
      next_after: string | null;
    };
    const list = async (who: string, query = '') => {
      const r = await call(who, 'GET', `/api/governance/delegation/delegators${query}`);
      assert.equal(r.statusCode, 200, r.body);
      return { body: r.body, page: r.json() as Page };
    };
    const hidden = people.cat!.principal;
    const first = await list('ben');
    assert.ok(!first.body.includes(hidden), 'the hidden delegator’s principal is nowhere in the answer');
    assert.equal(first.page.items.filter((i) => i.member === null).length, 1);
    const again = await list('ben');
    for (const [i, item] of first.page.items.entries()) {
      assert.match(item.key, /^[A-Za-z0-9_-]+$/, 'base64url, no principal or separator in it');
      assert.ok(
        !item.key.includes(people.ann!.principal) &&
          !item.key.includes(hidden) &&
          !item.key.includes(people.ben!.principal),
      );
      assert.notEqual(
        again.page.items[i]!.key,
        item.key,
        'a new cursor every answer: nothing follows one delegator from read to read',
      );
    }
    // Paging one at a time with the opaque cursor reaches every delegation once.
    const seen: Array<[string | null, string | null]> = [];
    let after: string | null = null;
    do {
      const { page, body } = await list('ben', `?limit=1${after ? `&after=${after}` : ''}`);
      assert.ok(!body.includes(hidden));
      seen.push(...page.items.map((i) => [i.category, i.member] as [string | null, string | null]));
      after = page.next_after;
      if (after !== null) assert.equal(after, page.items.at(-1)!.key);
    } while (after !== null && seen.length <= 10);
    assert.deepEqual(
      seen,
      first.page.items.map((i) => [i.category, i.member]),
    );
    // Refused, 400, nothing listed: another delegate's cursor, a changed one, the canister's own key.
    const cursor = first.page.items[0]!.key;
    const flipped = `${cursor.slice(0, 20)}${cursor[20] === 'A' ? 'B' : 'A'}${cursor.slice(21)}`;
    for (const [who, bad, what] of [
      ['cat', cursor, 'another delegate’s cursor'],
      ['ben', flipped, 'a changed cursor'],
      ['ben', `${people.ben!.principal}|${hidden}|General`, 'the canister’s key'],
    ] as const) {
      const r = await call(who, 'GET', `/api/governance/delegation/delegators?after=${encodeURIComponent(bad)}`);
      assert.deepEqual([r.statusCode, r.json().error], [400, 'VALIDATION_ERROR'], what);
    }
    assert.ok(h.logs.events('governance.delegators_cursor_refused').length >= 3);
  });

  it('decisions V27–V29: the delegate votes for ann and cat; ann is told, sees "by delegate", overrides; the tally counts each once, direct and delegated apart', async () => {
    const id = await openProposal();
    const vote = await call('ben', 'POST', '/api/governance/vote', {
      proposal_id: id,
      vote: 'Yes',
      reason: 'worth it',
    });
    assert.equal(vote.statusCode, 200, vote.body);
    assert.deepEqual(vote.json(), { proposal_id: id, vote: 'Yes', reason: 'worth it' });
    const mine = (await call('ann', 'GET', `/api/governance/proposals/${id}/my-vote`)).json();
    assert.deepEqual(mine, {
      proposal_id: id,
      vote: 'Yes',
      cast: 'delegate',
      delegate: people.ben!.principal,
      delegate_name: mine.delegate_name,
      reason: null,
      final: false,
    });
    assert.match(mine.delegate_name, / #[0-9a-f]{4}$/, 'decision V31: the delegate by name (their default here)');
    // Decision N25: ann's feed says her delegate voted for her, while she can still vote herself.
    await h.app.events.settle();
    const feed = (await call('ann', 'GET', '/api/me/activity')).json() as {
      items: Array<{ title: string; body: string }>;
    };
    const item = feed.items.find((i) => i.title === `Your delegate ${mine.delegate_name} voted Yes: Repaint the hall`);
    assert.ok(item, JSON.stringify(feed.items.map((i) => i.title)));
    assert.match(item.body, /unless you vote yourself before voting closes/);
    const catFeed = (await call('cat', 'GET', '/api/me/activity')).json() as { items: Array<{ title: string }> };
    assert.ok(
      catFeed.items.some((i) => i.title.startsWith('Your delegate ') && i.title.includes(' voted Yes: ')),
      'per-category delegation (General) too',
    );
    // ann overrides before close.
    assert.equal((await call('ann', 'POST', '/api/governance/vote', { proposal_id: id, vote: 'No' })).statusCode, 200);
    assert.deepEqual((await call('ann', 'GET', `/api/governance/proposals/${id}/my-vote`)).json(), {
      proposal_id: id,
      vote: 'No',
      cast: 'direct',
      delegate: null,
      delegate_name: null,
      reason: null,
      final: true,
    });
    const open = (await call(undefined, 'GET', `/api/governance/proposals/${id}`)).json() as {
      turnout: Record<string, unknown>;
    };
    assert.deepEqual(open.turnout, { direct: '2', delegated: '0', delegated_counted: false });
    h.advance(7 * DAY_MS);
    for (let i = 0; i < 3; i++) await h.opened.canisters.platform!.tick();
    await signIn();
    const closed = (await call(undefined, 'GET', `/api/governance/proposals/${id}`)).json() as {
      status: string;
      tally: Record<string, string>;
      turnout: Record<string, unknown>;
    };
    assert.deepEqual(closed.turnout, { direct: '2', delegated: '1', delegated_counted: true });
    assert.deepEqual([closed.tally.yes_votes, closed.tally.no_votes, closed.tally.total_eligible], ['2', '1', '3']);
    assert.deepEqual((await call('cat', 'GET', `/api/governance/proposals/${id}/my-vote`)).json(), {
      proposal_id: id,
      vote: 'Yes',
      cast: 'delegate',
      delegate: people.ben!.principal,
      delegate_name: mine.delegate_name,
      reason: null,
      final: true,
    });
  });

  it('decision V28: a reason of 1,000 characters is kept and listed without its voter; 1,001 is refused and nothing is voted', async () => {
    const id = await openProposal();
    const over = await call('cat', 'POST', '/api/governance/vote', {
      proposal_id: id,
      vote: 'No',
      reason: 'x'.repeat(1001),
    });
    assert.deepEqual([over.statusCode, over.json().error], [400, 'VALIDATION_ERROR']);
    assert.equal((await call('cat', 'GET', `/api/governance/proposals/${id}/my-vote`)).json().cast, null);
    const at = await call('cat', 'POST', '/api/governance/vote', {
      proposal_id: id,
      vote: 'No',
      reason: 'x'.repeat(1000),
    });
    assert.equal(at.statusCode, 200, at.body);
    const reasons = await call(undefined, 'GET', `/api/governance/proposals/${id}/reasons`);
    assert.equal(reasons.statusCode, 200);
    assert.deepEqual(reasons.json(), {
      proposal_id: id,
      items: [{ seq: '1', vote: 'No', reason: 'x'.repeat(1000) }],
      next_after: null,
    });
    assert.equal(
      (await call(undefined, 'GET', '/api/governance/proposals/999999/reasons')).json().error,
      'ProposalNotFound',
    );
    assert.equal((await call('cat', 'GET', `/api/governance/proposals/${id}/my-vote`)).json().reason, 'x'.repeat(1000));
  });
});
