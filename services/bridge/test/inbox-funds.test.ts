// The activity feed and the member emails, the money part (decisions N22–N24): the
// campaign and treasury canisters followed into the event log; feed items for a new campaign, its goal
// reached, its outcome, a member's own refund, a treasury payout and a membership nearing expiry;
// refund-confirmation to each refunded member and treasury-milestone to a member who received DOM,
// through the real notification service to the provider stand-in (so the data passed its schema);
// following again, or from a second pass, adds and sends nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_EMAIL, bridge, paymentEvent, type Bridge, type Jar } from './harness.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const E8S = 100_000_000n;
const FEE = 10_000n;
type Item = { category: string; title: string; body: string | null; deep_link: string | null };
type Member = { jar: Jar; user_id: string; principal: string; email: string };

let h: Bridge;
let alice: Member;
let bob: Member;

async function member(email: string): Promise<Member> {
  const m = await h.member(email);
  const { principal } = await h.opened.db
    .selectFrom('users')
    .select('principal')
    .where('id', '=', m.user_id)
    .executeTakeFirstOrThrow();
  return { ...m, principal, email };
}
const relogin = async () => {
  alice.jar = (await h.login(alice.email)).jar;
  bob.jar = (await h.login(bob.email)).jar;
};
const post = (url: string, jar: Jar, payload: unknown) =>
  h.request({ method: 'POST', url, jar, payload: payload as object });
const feed = async (m: Member): Promise<Item[]> => {
  const r = await h.request({ method: 'GET', url: '/api/me/activity?limit=100', jar: m.jar });
  assert.equal(r.statusCode, 200, r.body);
  return (r.json() as { items: Item[] }).items;
};
const mails = (to: string, subject: RegExp) => h.emails().filter((m) => m.to.includes(to) && subject.test(m.subject));
/**
 * The follower brought up to what the canisters hold now, then the subscribers (feed, emails) up to the
 * end of the log. The bridge's own pass every 5 s may have copied an event first, so the count is
 * asserted only where nothing new can have happened (following again adds nothing); what was copied is
 * checked by what the members see.
 */
async function follow(): Promise<number> {
  const n = await h.app.fundsFollower.catchUp();
  await h.app.events.drain();
  return n;
}

before(async () => {
  h = await bridge(undefined, { DEV_FAUCET_DOM: '1000', EMBEDDED_TREASURY_DOM: '5000' });
  await h.member(ADMIN_EMAIL);
  alice = await member('alice-funds@domdao.example');
  bob = await member('bob-funds@domdao.example');
  for (const m of [alice, bob]) assert.equal((await post('/api/dev/faucet', m.jar, {})).statusCode, 200);
});
after(() => h.close());

describe('campaign and treasury events in the inbox (decisions N22–N24)', () => {
  it('decision N22: a failed campaign — new campaign and outcome for everyone, the refund for its contributor, one refund-confirmation; following again adds nothing', async () => {
    const deadline = new Date(h.now() + 2 * HOUR_MS).toISOString();
    const c = (
      await post('/api/campaigns', alice.jar, {
        title: 'Big barn',
        description: '',
        goal: { dom_e8s: String(900n * E8S) },
        deadline,
      })
    ).json() as {
      id: string;
    };
    assert.equal(
      (await post(`/api/campaigns/${c.id}/contributions`, bob.jar, { amount: { dom_e8s: String(4n * E8S) } }))
        .statusCode,
      201,
    );
    await follow();
    assert.ok(
      (await feed(alice)).some(
        (i) =>
          i.category === 'Campaign' &&
          i.title === 'New campaign: Big barn' &&
          i.deep_link?.endsWith(`/campaigns/${c.id}`) &&
          !i.deep_link.includes('/api/'),
      ),
    );

    h.advance(3 * HOUR_MS);
    await h.opened.canisters.platform!.tick();
    await relogin();
    await follow();
    const bobs = await feed(bob);
    const refund = bobs.find((i) => i.category === 'Refund');
    assert.ok(refund, JSON.stringify(bobs));
    assert.equal(refund.title, `Refunded: 3.9999 DOM from Big barn`);
    assert.ok(bobs.some((i) => i.title === 'Failed: Big barn' && /refunded/.test(i.body ?? '')));
    assert.ok(!(await feed(alice)).some((i) => i.category === 'Refund'), 'a refund is its contributor’s item only');
    const sent = mails(bob.email, /^Refund of 3\.9999 DOM processed$/);
    assert.equal(sent.length, 1);
    assert.match(sent[0]!.text, /did not reach its goal/);
    assert.match(sent[0]!.text, /It is already in your account/);

    assert.equal(await follow(), 0, 'nothing new the second time');
    assert.equal(mails(bob.email, /^Refund of/).length, 1, 'not mailed twice');
    const row = await h.opened.db
      .selectFrom('email_deliveries')
      .selectAll()
      .where('template', '=', 'refund-confirmation')
      .where('user_id', '=', bob.user_id)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'sent');
  });

  it('decision N22: a funded campaign — goal reached while open, then released; treasury-milestone to the beneficiary', async () => {
    await relogin();
    const deadline = new Date(h.now() + 2 * HOUR_MS).toISOString();
    const c = (
      await post('/api/campaigns', alice.jar, {
        title: 'Seeds',
        description: '',
        goal: { dom_e8s: String(2n * E8S) },
        deadline,
        beneficiary: alice.principal,
      })
    ).json() as { id: string };
    assert.equal(
      (await post(`/api/campaigns/${c.id}/contributions`, bob.jar, { amount: { dom_e8s: String(3n * E8S) } }))
        .statusCode,
      201,
    );
    await follow();
    assert.ok((await feed(bob)).some((i) => i.title === 'Goal reached: Seeds'));
    h.advance(3 * HOUR_MS);
    await h.opened.canisters.platform!.tick();
    await relogin();
    await follow();
    const item = (await feed(bob)).find((i) => i.title === 'Succeeded: Seeds');
    assert.ok(item);
    assert.equal(item.body, `Funded: ${Number(3n * E8S - FEE) / 1e8} DOM released to the beneficiary.`);
    const mail = mails(alice.email, /Seeds/);
    assert.equal(mail.length, 1, JSON.stringify(h.emails().map((m) => m.subject)));
    assert.match(mail[0]!.text, /2\.9999/);
    assert.match(mail[0]!.text, /ledger block \d+/);
    assert.equal(mails(bob.email, /Seeds/).length, 0, 'only the recipient');
  });

  it('decision N22: a treasury payout to a member — a Treasury item for everyone and treasury-milestone to the recipient', async () => {
    await relogin();
    const platform = h.opened.canisters.platform!;
    const c = h.opened.canisters.clients;
    assert.ok('Ok' in (await c.user.record_kyc(alice.principal, true)));
    assert.ok(
      'Ok' in
        (await c.user.upgrade_membership_to_active({
          principal: alice.principal,
          kyc_proof: new Uint8Array([1]),
          payment_proof: new Uint8Array([2]),
        })),
    );
    const r = await platform.as(alice.principal).governance.create_proposal({
      title: 'Pay Bob',
      body: 'b',
      category: 'TreasuryPayout',
      payload: { TreasuryPayout: { recipient: bob.principal, amount: { DomE8s: 7n * E8S }, memo: 'fence repair' } },
    });
    assert.ok('Ok' in r, 'Err' in r ? Object.keys(r.Err).join() : '');
    h.advance(HOUR_MS + 1000);
    await platform.tick();
    assert.ok('Ok' in (await platform.as(alice.principal).governance.cast_vote(r.Ok, 'Yes')));
    h.advance(5 * DAY_MS);
    await platform.tick();
    await relogin();
    await follow();
    const item = (await feed(alice)).find((i) => i.category === 'Treasury');
    assert.ok(item);
    assert.deepEqual(
      [item.title, item.body],
      [
        'Treasury paid 7 DOM',
        `Proposal ${r.Ok} was paid out: fence repair (ledger block ${/ledger block (\d+)/.exec(item.body ?? '')?.[1]}).`,
      ],
    );
    const mail = mails(bob.email, /fence repair|Treasury payout/);
    assert.equal(mail.length, 1, JSON.stringify(h.emails().map((m) => m.subject)));
    assert.equal(await follow(), 0);
    assert.equal(mails(bob.email, /fence repair|Treasury payout/).length, 1);
  });

  it('decision N24: a membership nearing expiry (14 days) is one item for that member, once per expiry', async () => {
    await relogin();
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: `/api/admin/users/${bob.user_id}/kyc`,
          payload: { approved: true },
          jar: (await h.login(ADMIN_EMAIL)).jar,
        })
      ).statusCode,
      200,
    );
    assert.equal((await h.signedWebhook(paymentEvent(bob.user_id, 'evt_funds_bob'))).json().status, 'applied');
    const activated = await h.opened.db
      .selectFrom('bridge_events')
      .select('data')
      .where('type', '=', 'MembershipActivated')
      .orderBy('seq', 'desc')
      .executeTakeFirstOrThrow();
    const expires = Date.parse((activated.data as { expires_at: string }).expires_at);
    const early = await h.app.jobs.runNow('inbox:membership-expiry');
    assert.equal(early.detail?.announced, 0, 'not yet: more than 14 days left');
    h.advance(expires - h.now() - 10 * DAY_MS);
    const run = await h.app.jobs.runNow('inbox:membership-expiry');
    assert.deepEqual([run.status, run.detail?.announced], ['succeeded', 1]);
    assert.equal((await h.app.jobs.runNow('inbox:membership-expiry')).detail?.announced, 0, 'once per expiry');
    await h.app.events.drain();
    bob.jar = (await h.login(bob.email)).jar;
    const items = (await feed(bob)).filter((i) => i.category === 'Membership' && /expires on/.test(i.title));
    assert.deepEqual(
      items.map((i) => i.title),
      [`Your membership expires on ${new Date(expires).toISOString().slice(0, 10)}`],
    );
    alice.jar = (await h.login(alice.email)).jar;
    assert.ok(!(await feed(alice)).some((i) => /expires on/.test(i.title)), 'the member’s own item');
  });
});
