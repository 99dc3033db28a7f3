// The activity feed (decisions N7–N8): items from the governance event follower (a proposal
// created, voting open for Active members, the result, the ratified price) and from the bridge's own
// member events (a membership becoming Active, for that member only); GET /api/me/activity pages
// through what the signed-in member may see; a redelivered event adds nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addActivity } from '../src/features/inbox/activity.ts';
import { bridge, type Bridge, type Jar } from './harness.ts';

const HOUR_MS = 3_600_000;
let h: Bridge;
let active: { jar: Jar; user_id: string };
let registered: { jar: Jar; user_id: string };

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

type Item = {
  id: string;
  category: string;
  title: string;
  body: string | null;
  deep_link: string | null;
  created_at: string;
  closes_at: string | null;
};
const feed = async (jar: Jar | undefined, query = ''): Promise<{ items: Item[]; next_before_id: string | null }> => {
  const r = await h.request({ method: 'GET', url: `/api/me/activity${query}`, ...(jar && { jar }) });
  assert.equal(r.statusCode, 200, r.body);
  return r.json();
};

describe('activity feed (decisions N7, N8)', () => {
  before(async () => {
    h = await bridge();
    active = await h.member('active@example.org');
    registered = await h.member('registered@example.org');
    const { principal } = await h.opened.db
      .selectFrom('users')
      .select('principal')
      .where('id', '=', active.user_id)
      .executeTakeFirstOrThrow();
    const user = h.opened.canisters.clients.user;
    assert.ok('Ok' in (await user.record_kyc(principal, true)));
    assert.ok(
      'Ok' in
        (await user.upgrade_membership_to_active({
          principal,
          kyc_proof: new Uint8Array([1]),
          payment_proof: new Uint8Array([2]),
        })),
    );
  });
  after(() => h.close());

  it('governance events become items: a new proposal for everyone, "voting is open" for Active members only, with https deep links', async () => {
    const created = await h.opened.canisters.clients.governance.create_proposal({
      title: 'Plant a community garden',
      body: 'b',
      category: 'General',
    });
    assert.ok('Ok' in created);
    const id = String(created.Ok);
    h.advance(HOUR_MS);
    await h.opened.canisters.platform!.tick();
    ({ jar: active.jar } = await h.login('active@example.org'));
    ({ jar: registered.jar } = await h.login('registered@example.org'));
    await eventually(
      async () => (await feed(active.jar)).items.some((i) => i.title.startsWith('Voting is open')),
      'the follower to copy the events and the feed to add them',
    );
    const mine = (await feed(active.jar)).items;
    const opened = mine.find((i) => i.title === 'Voting is open: Plant a community garden')!;
    assert.equal(opened.category, 'Vote');
    assert.equal(opened.deep_link, `https://domdao.example/proposals/${id}`);
    // Decision N29: the deadline is an instant the reader words, never text.
    // Decision N26: an item about a proposal begins with what the proposal does.
    assert.equal(
      opened.body,
      'A decision of the members; nothing is executed automatically. Active members can vote now.',
    );
    const p = (await h.opened.canisters.clients.governance.get_proposal(BigInt(id)))!;
    assert.equal(opened.closes_at, new Date(Number(p.voting_closes / 1_000_000n)).toISOString());
    assert.ok(mine.some((i) => i.title === 'New proposal: Plant a community garden' && i.category === 'Proposal'));
    const theirs = (await feed(registered.jar)).items;
    assert.ok(
      theirs.some((i) => i.title === 'New proposal: Plant a community garden'),
      'everyone sees a new proposal',
    );
    assert.ok(!theirs.some((i) => i.title.startsWith('Voting is open')), 'the call to vote is for Active members only');
  });

  it('a membership event becomes an item for that member only; a redelivered event adds nothing', async () => {
    const data = {
      user_id: active.user_id,
      payment_event_id: 'evt_1',
      payment_id: 'pi_1',
      amount_minor: '2500',
      currency: 'USD',
      activated_at: '2026-03-10T13:00:00Z',
      expires_at: '2026-12-31T23:59:59Z',
      token_id: '1',
      renewal: false,
    };
    assert.equal(await h.app.events.publish('MembershipActivated', data, { sourceId: 'membership:evt_1' }), true);
    assert.equal(
      await h.app.events.publish('MembershipActivated', data, { sourceId: 'membership:evt_1' }),
      false,
      'the log itself refuses the repeat',
    );
    await h.app.events.drain();
    await eventually(
      async () => (await feed(active.jar)).items.some((i) => i.category === 'Membership'),
      'the membership item',
    );
    const items = (await feed(active.jar)).items.filter((i) => i.category === 'Membership');
    assert.deepEqual(
      items.map((i) => [i.title, i.body, i.deep_link]),
      [['Your membership is Active', 'Active until 2026-12-31: you can vote and propose.', null]],
    );
    assert.ok(
      !(await feed(registered.jar)).items.some((i) => i.category === 'Membership'),
      "another member's item is not shown",
    );
    // A producer key is unique: the same item key again (a redelivery after a crash) is ignored.
    assert.equal(
      await addActivity(
        h.opened.db,
        'event:bridge:membership:evt_1',
        { category: 'Membership', title: 'again', audience: { kind: 'user', user_id: active.user_id } },
        new Date(h.now()),
      ),
      false,
    );
  });

  it('pages newest first with before_id; limits clip titles and bodies; bad queries 400; no session 401', async () => {
    for (let i = 1; i <= 25; i++)
      await addActivity(
        h.opened.db,
        `test:page:${i}`,
        { category: 'Test', title: `Item ${i}`, audience: { kind: 'all' } },
        new Date(h.now()),
      );
    await addActivity(
      h.opened.db,
      'test:long',
      {
        category: 'A category name far longer than thirty-two',
        title: 'T'.repeat(300),
        body: 'B'.repeat(800),
        audience: { kind: 'all' },
      },
      new Date(h.now()),
    );
    const first = await feed(registered.jar, '?limit=10');
    assert.equal(first.items.length, 10);
    const long = first.items[0]!;
    assert.equal([...long.title].length, 200);
    assert.ok(long.title.endsWith('…'));
    assert.equal([...long.body!].length, 500);
    assert.equal([...long.category].length, 32);
    assert.deepEqual(
      first.items.slice(1).map((i) => i.title),
      ['Item 25', 'Item 24', 'Item 23', 'Item 22', 'Item 21', 'Item 20', 'Item 19', 'Item 18', 'Item 17'],
    );
    const second = await feed(registered.jar, `?limit=10&before_id=${first.next_before_id}`);
    assert.deepEqual(second.items.map((i) => i.title).slice(0, 3), ['Item 16', 'Item 15', 'Item 14']);
    const ids = [...first.items, ...second.items].map((i) => BigInt(i.id));
    assert.ok(
      ids.every((v, i) => i === 0 || v < ids[i - 1]!),
      'strictly newest first across pages',
    );
    for (const q of ['?limit=0', '?limit=101', '?before_id=abc', '?before_id=1e5'])
      assert.equal(
        (await h.request({ method: 'GET', url: `/api/me/activity${q}`, jar: registered.jar })).statusCode,
        400,
        q,
      );
    assert.equal((await h.request({ method: 'GET', url: '/api/me/activity' })).statusCode, 401);
    await assert.rejects(
      addActivity(
        h.opened.db,
        'test:http',
        { category: 'Test', title: 'x', deep_link: 'http://insecure.example', audience: { kind: 'all' } },
        new Date(h.now()),
      ),
      /https/,
    );
  });

  it('GET /activity shows the feed as a page (the digest inbox_url); signed out, a sign-in link', async () => {
    const page = await h.request({ method: 'GET', url: '/activity', jar: active.jar });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Voting is open: Plant a community garden/);
    assert.match(page.body, /<a href="https:\/\/domdao\.example\/proposals\/1">/);
    assert.doesNotMatch(page.body, />Older</, 'fewer than 50 items: one page');
    for (let i = 1; i <= 30; i++)
      await addActivity(
        h.opened.db,
        `test:more:${i}`,
        { category: 'Test', title: `More ${i}`, audience: { kind: 'all' } },
        new Date(h.now()),
      );
    const full = await h.request({ method: 'GET', url: '/activity', jar: active.jar });
    const older = /href="\/activity\?before_id=(\d+)">Older/.exec(full.body);
    assert.ok(older, 'a link to the next page');
    assert.match(
      (await h.request({ method: 'GET', url: `/activity?before_id=${older[1]}`, jar: active.jar })).body,
      /New proposal: Plant a community garden/,
    );
    const out = await h.request({ method: 'GET', url: '/activity' });
    assert.match(out.body, /Sign in/);
  });
});

describe('the payment webhook announces MembershipActivated (an outbox row in its transaction)', () => {
  it('a first payment puts "Your membership is Active" in that member\'s feed', async () => {
    const { ADMIN_EMAIL, paymentEvent } = await import('./harness.ts');
    const b = await bridge();
    try {
      const admin = await b.member(ADMIN_EMAIL);
      const m = await b.member('payer@example.org');
      await b.request({
        method: 'POST',
        url: `/api/admin/users/${m.user_id}/kyc`,
        payload: { approved: true },
        jar: admin.jar,
      });
      assert.equal((await b.signedWebhook(paymentEvent(m.user_id, 'evt_feed'))).json().status, 'applied');
      const deadline = Date.now() + 10_000;
      let items: Item[] = [];
      while (Date.now() < deadline) {
        items = (await b.request({ method: 'GET', url: '/api/me/activity', jar: m.jar })).json().items;
        if (items.some((i) => i.category === 'Membership')) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const item = items.find((i) => i.category === 'Membership');
      assert.ok(item, 'the item arrived');
      assert.equal(item.title, 'Your membership is Active');
      assert.match(item.body!, /^Active until \d{4}-12-31/);
      const ev = await b.opened.db
        .selectFrom('bridge_events')
        .select(['type', 'source_id'])
        .where('type', '=', 'MembershipActivated')
        .execute();
      assert.deepEqual(ev, [{ type: 'MembershipActivated', source_id: 'payment:evt_feed' }]);
      assert.equal((await b.signedWebhook(paymentEvent(m.user_id, 'evt_feed'))).json().duplicate, true);
      assert.equal(
        (
          await b.opened.db
            .selectFrom('bridge_events')
            .select('seq')
            .where('type', '=', 'MembershipActivated')
            .execute()
        ).length,
        1,
        'a replayed delivery announces nothing',
      );
    } finally {
      await b.close();
    }
  });
});
