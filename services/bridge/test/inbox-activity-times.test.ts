// Issue 48 item 5 through HTTP: activity and email text that reads finished. The feed keeps the
// voting deadline as an instant (decision N29) and names a delegate by display name (F55); a reminder
// is never produced for a member whose ballot is in, their own or their delegate's (N27); a reminder
// window is used only while half of it is left, so a vote closing in 2 minutes is never "in 1 hour"
// (N28); emails and the /activity page word the deadline from the real window, relative and in UTC,
// said so (N29); the feed pages by cursor with an exact end, tested at the limit and one past (N30).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { addActivity } from '../src/features/inbox/activity.ts';
import { bridge, eventually, type Bridge, type Jar } from './harness.ts';

const HOUR = 3_600_000;
const MINUTE = 60_000;
type Item = {
  id: string;
  title: string;
  body: string | null;
  created_at: string;
  proposal_id: string | null;
  closes_at: string | null;
};
type Page = { items: Item[]; next_before_id: string | null };
type Sent = { to: string[]; subject: string; text: string };

let h: Bridge;
const people: Record<string, { jar: Jar; user_id: string; principal: string; email: string }> = {};
const jarOf = async (name: string) => (await h.login(people[name]!.email)).jar;
const call = async (name: string, method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown) =>
  h.request({ method, url, jar: await jarOf(name), ...(payload !== undefined && { payload: payload as object }) });
const feed = async (name: string, query = ''): Promise<Page> => {
  const r = await call(name, 'GET', `/api/me/activity${query}`);
  assert.equal(r.statusCode, 200, r.body);
  return r.json();
};
/** Every item the member sees, page after page of `limit`; pages before the last are full. */
const everything = async (name: string, limit: number): Promise<Item[]> => {
  const all: Item[] = [];
  for (let cursor: string | null = null; ;) {
    const page: Page = await feed(name, `?limit=${limit}${cursor === null ? '' : `&before_id=${cursor}`}`);
    all.push(...page.items);
    if (page.next_before_id === null) return all;
    assert.equal(page.items.length, limit, 'decision N30: a page with a cursor after it is full');
    cursor = page.next_before_id;
  }
};
const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();

async function openProposal(title: string): Promise<{ id: string; closes: number; closesIso: string }> {
  const r = await h.opened.canisters.clients.governance.create_proposal({ title, body: 'b', category: 'General' });
  if (!('Ok' in r)) assert.fail(`create_proposal: ${JSON.stringify(Object.keys(r.Err))}`);
  h.advance(HOUR);
  await h.opened.canisters.platform!.tick();
  const p = (await h.opened.canisters.clients.governance.get_proposal(r.Ok))!;
  assert.equal(p.status, 'Open');
  return { id: String(r.Ok), closes: Number(p.voting_closes / 1_000_000n), closesIso: iso(p.voting_closes) };
}

describe('issue 48 item 5: activity and emails that read finished (decisions N27–N30, F55)', () => {
  let hall: Awaited<ReturnType<typeof openProposal>>;
  let roof: Awaited<ReturnType<typeof openProposal>>;

  before(async () => {
    // The test runs each job itself (runNow) after moving the clock: the runner's own timer would run the
    // same slot first (the daily digest), as in audit-roles (decision B98's flake).
    h = await bridge(undefined, {}, { jobTimer: false });
    for (const name of ['ann', 'ben', 'cat', 'dan']) {
      const email = `${name}@domdao.example`;
      const m = await h.member(email);
      const { principal } = await h.opened.db
        .selectFrom('users')
        .select('principal')
        .where('id', '=', m.user_id)
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
      people[name] = { ...m, email, principal };
      assert.equal(
        (
          await call(name, 'PUT', '/api/me/notification-preferences', {
            vote_reminders: true,
            digest_frequency: 'daily',
          })
        ).statusCode,
        200,
      );
    }
    const named = await call('ben', 'PUT', '/api/me/display-name', { display_name: 'Ben Delegate' });
    assert.equal(named.statusCode, 200, named.body);
    // cat lets ben vote for her.
    const d = await call('cat', 'PUT', '/api/governance/delegation', { delegate: people.ben!.principal });
    assert.equal(d.statusCode, 200, d.body);
    hall = await openProposal('Repaint the hall');
    roof = await openProposal('Fix the roof');
  });
  after(() => h.close());

  it('decisions N29, F55: "Voting is open" keeps the deadline as closes_at, no timestamp in any text; the delegate’s vote names Ben Delegate, never his principal', async () => {
    assert.equal(
      (await call('ben', 'POST', '/api/governance/vote', { proposal_id: hall.id, vote: 'Yes' })).statusCode,
      200,
    );
    assert.equal(
      (await call('ann', 'POST', '/api/governance/vote', { proposal_id: hall.id, vote: 'No' })).statusCode,
      200,
    );
    await h.app.events.settle();
    const cats = await eventually('cat’s delegate item', async () => {
      const items = (await feed('cat')).items;
      return items.some((i) => i.title.includes('voted Yes: Repaint the hall')) ? items : undefined;
    });
    const delegated = cats.find((i) => i.title.includes('voted Yes: Repaint the hall'))!;
    assert.equal(delegated.title, 'Your delegate Ben Delegate voted Yes: Repaint the hall');
    assert.equal(delegated.body, 'Their vote counts for you unless you vote yourself before voting closes.');
    assert.equal(delegated.closes_at, hall.closesIso);
    assert.equal(delegated.proposal_id, hall.id);
    assert.ok(!JSON.stringify(cats).includes(people.ben!.principal), 'no principal anywhere in cat’s feed');
    // Each subscriber keeps its own cursor (the delegate's item may come before the feed's): wait for dan's too.
    const opened = await eventually('dan’s "voting is open" item', async () =>
      (await feed('dan')).items.find((i) => i.title === 'Voting is open: Repaint the hall'),
    );
    assert.deepEqual(
      [opened.body, opened.closes_at, opened.proposal_id],
      [
        'A decision of the members; nothing is executed automatically. Active members can vote now.',
        hall.closesIso,
        hall.id,
      ],
    );
    for (const i of [...cats, ...(await feed('dan')).items])
      assert.doesNotMatch(
        `${i.title} ${i.body ?? ''}`,
        /\d{4}-\d\d-\d\dT\d\d:\d\d/,
        `no raw timestamp in "${i.title}"`,
      );
  });

  it('decisions N27, N29: 45 minutes before the close the reminder goes to dan only (not ann who voted, not ben, not cat whose delegate voted), worded from the real deadline in UTC; the feed hides it from them, pages stay full', async () => {
    const reminders = (name: string, title: string) =>
      (h.emails() as Sent[]).filter(
        (m) => m.to.includes(people[name]!.email) && m.subject.startsWith(`Reminder: Vote deadline: ${title}`),
      );
    h.advance(hall.closes - h.now() - 45 * MINUTE);
    const run = await h.app.jobs.runNow('member-emails:vote-reminders');
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.equal(reminders('dan', 'Repaint the hall').length, 1);
    for (const name of ['ann', 'ben', 'cat'])
      assert.equal(reminders(name, 'Repaint the hall').length, 0, `${name}'s ballot is in`);
    assert.match(
      reminders('dan', 'Repaint the hall')[0]!.text,
      /Voting closes in 45 minutes \((Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC\)\. You have not voted yet\./,
    );
    assert.equal(
      reminders('dan', 'Fix the roof').length,
      0,
      'decision N28: 1 h 45 min left is in no window (the 24 h one needs 12 h left)',
    );
    await h.app.events.settle();
    const soon = 'Voting closes soon: Repaint the hall';
    const dans = await eventually('dan’s reminder item', async () =>
      (await feed('dan')).items.find((i) => i.title === soon),
    );
    assert.deepEqual(
      [dans.body, dans.closes_at],
      ['A decision of the members; nothing is executed automatically. Vote before it closes.', hall.closesIso],
    );
    for (const name of ['ann', 'ben', 'cat']) {
      const all = await everything(name, 1);
      assert.ok(!all.some((i) => i.title === soon), `${name} sees no reminder`);
      assert.deepEqual(
        all.map((i) => i.id),
        (await feed(name, '?limit=100')).items.map((i) => i.id),
        `${name}: pages of one, no gap, no repeat`,
      );
    }
    // The digest leaves it out for them too, and words the deadline at the run, in UTC said.
    const digest = await h.app.jobs.runNow('inbox:digest');
    assert.equal(digest.status, 'succeeded', JSON.stringify(digest));
    const digestOf = (name: string) =>
      (h.emails() as Sent[]).filter((m) => m.to.includes(people[name]!.email) && /digest/i.test(m.subject)).at(-1)!;
    assert.match(digestOf('dan').text, /Voting closes soon: Repaint the hall/);
    assert.match(
      digestOf('dan').text,
      /Vote before it closes\. Voting closes in 45 minutes \(\w{3}, \d{1,2} \w{3} \d{4}, \d\d:\d\d UTC\)\./,
    );
    for (const name of ['ann', 'cat'])
      assert.doesNotMatch(digestOf(name).text, /Voting closes soon/, `${name}'s digest`);
    // The bridge's own page words it at the reading: relative, and UTC said.
    const page = await h.request({ method: 'GET', url: '/activity', jar: await jarOf('dan') });
    assert.match(page.body, /Voting closes in 45 minutes \(\w{3}, \d{1,2} \w{3} \d{4}, \d\d:\d\d UTC\)\./);
    assert.match(page.body, /<time datetime="[^"]+">(now|\d+ (seconds|minutes) ago) \(/);
    assert.doesNotMatch(page.body, /\d{4}-\d\d-\d\d \d\d:\d\d UTC/, 'no raw timestamp');
  });

  it('decision N28: 2 minutes before a vote closes no reminder is made, by email or in the feed ("in 1 hour" is never said of it)', async () => {
    h.advance(roof.closes - h.now() - 2 * MINUTE);
    await h.app.jobs.runNow('member-emails:vote-reminders');
    await h.app.events.settle();
    for (const name of ['ann', 'ben', 'cat', 'dan'])
      assert.equal(
        (h.emails() as Sent[]).filter((m) => m.to.includes(people[name]!.email) && m.subject.includes('Fix the roof'))
          .length,
        0,
        `${name}: no reminder for a vote closing in 2 minutes`,
      );
    const dans = (await feed('dan', '?limit=100')).items;
    assert.ok(!dans.some((i) => i.title.startsWith('Voting closes') && i.title.endsWith('Fix the roof')));
    assert.equal(
      dans.find((i) => i.title === 'Voting is open: Fix the roof')?.closes_at,
      roof.closesIso,
      'the opening item carries the deadline',
    );
  });

  it('decision N30: limit 100 at the limit (next_before_id null) and one past (a cursor to one more item); limit 0 and 101 are 400', async () => {
    const eve = await h.member('eve@domdao.example');
    const seen = (await h.request({ method: 'GET', url: '/api/me/activity?limit=100', jar: eve.jar })).json() as Page;
    assert.equal(seen.next_before_id, null);
    for (let i = seen.items.length; i < 100; i++)
      await addActivity(
        h.opened.db,
        `test:n30:${i}`,
        { category: 'Test', title: `Item ${i}`, audience: { kind: 'all' } },
        new Date(h.now()),
      );
    const get = async (q: string) => {
      const r = await h.request({ method: 'GET', url: `/api/me/activity${q}`, jar: eve.jar });
      assert.equal(r.statusCode, 200, r.body);
      return r.json() as Page;
    };
    const full = await get('?limit=100');
    assert.equal(full.items.length, 100);
    assert.equal(full.next_before_id, null, 'exactly 100 items: no next page');
    await addActivity(
      h.opened.db,
      'test:n30:past',
      { category: 'Test', title: 'One past', audience: { kind: 'all' } },
      new Date(h.now()),
    );
    const first = await get('?limit=100');
    assert.equal(first.items.length, 100);
    assert.equal(first.items[0]!.title, 'One past');
    assert.equal(first.next_before_id, first.items[99]!.id);
    const rest = await get(`?limit=100&before_id=${first.next_before_id}`);
    assert.deepEqual([rest.items.length, rest.next_before_id], [1, null]);
    assert.equal((await get('')).items.length, 20, 'default 20');
    for (const q of ['?limit=0', '?limit=101']) {
      const r = await h.request({ method: 'GET', url: `/api/me/activity${q}`, jar: eve.jar });
      assert.deepEqual([r.statusCode, r.json().error], [400, 'VALIDATION_ERROR'], q);
    }
  });

  it('migration 071: rows stored before are rewritten: the deadline out of the text into closes_at, the old "in an hour" a reminder, the delegate’s principal his name', async () => {
    const m = await import('../src/core/db/migrations/071-activity-times.ts');
    const db = h.opened.db as unknown as Kysely<unknown>;
    await m.down(db);
    const link = 'https://domdao.example/proposals/77';
    const closes = 'Voting closes 2026-11-28T22:02:38Z.';
    await sql`insert into activity_items (source_key, audience, user_id, category, title, body, deep_link, created_at) values
      ('old:1', 'active', null, 'Vote', 'Voting is open: Old hall', ${`Cast your vote. ${closes}`}, ${link}, now()),
      ('old:2', 'active', null, 'Vote', 'Voting closes in an hour: Old hall', ${closes}, ${link}, now()),
      ('old:3', 'user', ${people.cat!.user_id}, 'Vote', 'Your delegate voted Yes: Old hall',
        ${`Your delegate (${people.ben!.principal}) voted Yes; it counts for you unless you vote yourself before voting closes 2026-11-28T22:02:38Z.`}, ${link}, now()),
      ('old:4', 'all', null, 'Test', 'Unrelated', 'Nothing to change.', null, now())`.execute(db);
    await m.up(db);
    const rows = await h.opened.db
      .selectFrom('activity_items')
      .select(['source_key', 'title', 'body', 'proposal_id', 'closes_at', 'reminder'])
      .where('source_key', 'like', 'old:%')
      .orderBy('source_key')
      .execute();
    const at = new Date('2026-11-28T22:02:38Z').toISOString();
    assert.deepEqual(
      rows.map((r) => [
        r.source_key,
        r.title,
        r.body,
        r.proposal_id === null ? null : String(r.proposal_id),
        r.closes_at && new Date(r.closes_at).toISOString(),
        r.reminder,
      ]),
      [
        ['old:1', 'Voting is open: Old hall', 'Cast your vote.', '77', at, false],
        ['old:2', 'Voting closes soon: Old hall', null, '77', at, true],
        [
          'old:3',
          'Your delegate voted Yes: Old hall',
          'Your delegate Ben Delegate voted Yes; it counts for you unless you vote yourself before voting closes.',
          '77',
          at,
          false,
        ],
        ['old:4', 'Unrelated', 'Nothing to change.', null, null, false],
      ],
    );
  });

  it('migration 073 (decision N31): stored "A TreasuryPayout proposal was submitted" items name the category as members read it; other texts unchanged', async () => {
    const m = await import('../src/core/db/migrations/073-activity-category-labels.ts');
    const db = h.opened.db as unknown as Kysely<unknown>;
    await sql`insert into activity_items (source_key, audience, user_id, category, title, body, deep_link, created_at) values
      ('cat:1', 'all', null, 'Proposal', 'New proposal: Tools', 'Pays Bob 5 DOM from the treasury. A TreasuryPayout proposal was submitted; voting opens after the review delay.', null, now()),
      ('cat:2', 'all', null, 'Proposal', 'New proposal: Hall', 'A ConstitutionalAmendment proposal was submitted; voting opens after the review delay.', null, now()),
      ('cat:3', 'all', null, 'Test', 'Unrelated', 'TreasuryPayout stays in a text that is not this sentence.', null, now())`.execute(
      db,
    );
    await m.up(db);
    const rows = await h.opened.db
      .selectFrom('activity_items')
      .select(['source_key', 'body'])
      .where('source_key', 'like', 'cat:%')
      .orderBy('source_key')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.source_key, r.body]),
      [
        [
          'cat:1',
          'Pays Bob 5 DOM from the treasury. A proposal was submitted (Treasury payout); voting opens after the review delay.',
        ],
        ['cat:2', 'A proposal was submitted (Constitutional amendment); voting opens after the review delay.'],
        ['cat:3', 'TreasuryPayout stays in a text that is not this sentence.'],
      ],
    );
  });
});
