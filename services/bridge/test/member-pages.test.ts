// What the web app's member pages read and write (issue 48 items 6 and 7), through HTTP on the
// harness's clock: the development faucet's daily limit (decision B107) at the limit and one past;
// the membership's term and latest payment on /me (decision F50); the member's ballots on the latest
// proposals in one request and the admin event log newest first (decision F53); delegate statements
// (decision B108): the length limit and one past, what is dropped, refused or kept, the following
// shown only beside a statement and counted once a member.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_EMAIL, bridge, eventually, paymentEvent, type Bridge, type Jar } from './harness.ts';

const HOUR_MS = 3_600_000;
let h: Bridge;
/** A fresh admin session (the harness's clock moves by hours and days, past a session's idle time). */
const admin = async () => ({ jar: (await h.login(ADMIN_EMAIL)).jar });

async function active(email: string) {
  const m = await h.member(email);
  const { principal } = await h.opened.db
    .selectFrom('users')
    .select('principal')
    .where('id', '=', m.user_id)
    .executeTakeFirstOrThrow();
  const c = h.opened.canisters.clients;
  assert.ok('Ok' in (await c.user.record_kyc(principal, true)));
  assert.ok(
    'Ok' in
      (await c.user.upgrade_membership_to_active({
        principal,
        kyc_proof: new Uint8Array([1]),
        payment_proof: new Uint8Array([2]),
      })),
  );
  return { ...m, principal };
}

before(async () => {
  h = await bridge(undefined, { DEV_FAUCET_DOM: '10', DEV_FAUCET_PER_DAY: '3' });
  await h.member(ADMIN_EMAIL);
});
after(() => h.close());

describe('decision B107: the development faucet gives DEV_FAUCET_PER_DAY grants a member in 24 hours', () => {
  it('three grants are given; the fourth is 429 RATE_LIMITED with Retry-After, mints nothing, is logged and audited; another member is not held back; the next day gives again', async () => {
    const m = await h.member('faucet@example.org');
    const press = (jar: Jar) => h.request({ method: 'POST', url: '/api/dev/faucet', payload: {}, jar });
    const balance = async (jar: Jar) =>
      (await h.request({ method: 'GET', url: '/api/me/balance', jar })).json() as {
        balance_e8s: string;
        faucet_per_day: number;
      };
    assert.equal((await balance(m.jar)).faucet_per_day, 3, 'the app learns the limit from the balance');
    for (let i = 1; i <= 3; i++) {
      const r = await press(m.jar);
      assert.equal(r.statusCode, 200, `grant ${i} of 3: ${r.body}`);
      h.advance(HOUR_MS);
    }
    assert.equal((await balance(m.jar)).balance_e8s, String(30n * 100_000_000n));
    const over = await press(m.jar);
    assert.equal(over.statusCode, 429);
    assert.equal(over.json().error, 'RATE_LIMITED');
    assert.equal(
      over.headers['retry-after'],
      String(21 * 3600),
      'Retry-After: the rest of the 24 hours since the first grant',
    );
    assert.equal(over.json().message, 'at most 3 faucet grants per day; try again in 75600 seconds');
    assert.equal((await balance(m.jar)).balance_e8s, String(30n * 100_000_000n), 'nothing minted');
    const rows = await h.opened.db
      .selectFrom('audit_log')
      .selectAll()
      .where('event', '=', 'member.rate_limited')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.actor, r.outcome, r.detail]),
      [[m.user_id, 'denied', { limit: 'faucet_grants', max: 3, per: 'day', retry_after_seconds: 75600 }]],
    );
    assert.equal(
      h.logs.events('member.rate_limited').filter((l) => l.limit === 'faucet_grants').length,
      1,
      'one log line',
    );
    assert.equal((await press((await h.member('faucet-other@example.org')).jar)).statusCode, 200, 'another member');
    h.advance(21 * HOUR_MS);
    assert.equal((await press((await h.login('faucet@example.org')).jar)).statusCode, 200, 'a new day');
  });
});

describe('decision F50: GET /api/me/membership says the term and the latest payment', () => {
  it('Registered: no term, no payment; after the payment: Active until Dec 31 23:59:59 UTC, the payment applied, on every read', async () => {
    const m = await h.member('payer@example.org');
    const read = async () => (await h.request({ method: 'GET', url: '/api/me/membership', jar: m.jar })).json();
    const before = await read();
    assert.equal(before.status, 'Registered');
    assert.equal(before.active_until, null);
    assert.equal(before.payment, null);
    assert.equal(before.joined_at, new Date(h.now()).toISOString(), 'minted at verification, on the bridge’s clock');
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: `/api/admin/users/${m.user_id}/kyc`,
          payload: { approved: true },
          jar: (await admin()).jar,
        })
      ).statusCode,
      200,
    );
    assert.equal((await h.signedWebhook(paymentEvent(m.user_id, 'evt_f50'))).statusCode, 200);
    const expected = {
      status: 'Active',
      joined_at: before.joined_at,
      active_until: '2026-12-31T23:59:59.000Z',
      payment: {
        amount_minor: '2500',
        currency: 'USD',
        received_at: new Date(h.now()).toISOString(),
        state: 'applied',
      },
    };
    assert.deepEqual(await read(), expected);
    assert.deepEqual(await read(), expected, 'the same on a reload');
    assert.equal((await h.request({ method: 'GET', url: '/api/me/membership' })).statusCode, 401);
  });

  it('a payment held in escrow reads as held, without the admins’ reason', async () => {
    const m = await h.member('held@example.org');
    assert.equal((await h.signedWebhook(paymentEvent(m.user_id, 'evt_f50_held'))).statusCode, 200);
    const r = (await h.request({ method: 'GET', url: '/api/me/membership', jar: m.jar })).json();
    assert.equal(r.status, 'Registered');
    assert.deepEqual(r.payment, {
      amount_minor: '2500',
      currency: 'USD',
      received_at: new Date(h.now()).toISOString(),
      state: 'held',
    });
  });
});

describe('decision F53: one request for the recent ballots; the event log newest first', () => {
  it('GET /api/governance/my-ballots answers the member’s ballot on each opened proposal, newest first, a delegate’s by name; limit 20 and 21', async () => {
    const ann = await active('ann-ballots@example.org');
    const ben = await active('ben-ballots@example.org');
    assert.equal(
      (
        await h.request({
          method: 'PUT',
          url: '/api/me/display-name',
          jar: ben.jar,
          payload: { display_name: 'Ben Ballot' },
        })
      ).statusCode,
      200,
    );
    assert.equal(
      (
        await h.request({
          method: 'PUT',
          url: '/api/governance/delegation',
          jar: ann.jar,
          payload: { delegate: ben.principal },
        })
      ).statusCode,
      200,
    );
    h.advance(1000);
    const ids: string[] = [];
    for (const title of ['First', 'Second', 'Not open yet']) {
      const r = await h.request({
        method: 'POST',
        url: '/api/governance/propose',
        jar: ben.jar,
        payload: { title, body: 'b', category: 'General' },
      });
      assert.equal(r.statusCode, 201, r.body);
      ids.push(r.json().proposal_id);
      if (title === 'Second') {
        h.advance(HOUR_MS + 1000);
        await h.opened.canisters.platform!.tick();
      }
    }
    const vote = (jar: Jar, proposal_id: string, v: string) =>
      h.request({ method: 'POST', url: '/api/governance/vote', jar, payload: { proposal_id, vote: v } });
    assert.equal((await vote(ben.jar, ids[0]!, 'Yes')).statusCode, 200);
    assert.equal((await vote(ann.jar, ids[1]!, 'No')).statusCode, 200);
    const r = await h.request({ method: 'GET', url: '/api/governance/my-ballots', jar: ann.jar });
    assert.equal(r.statusCode, 200, r.body);
    const items = r.json().items as Array<{
      proposal: { id: string; title: string; status: string };
      vote: string | null;
      cast: string | null;
      delegate_name: string | null;
      final: boolean;
    }>;
    assert.deepEqual(
      items.map((i) => [i.proposal.title, i.proposal.status, i.vote, i.cast, i.delegate_name, i.final]),
      [
        ['Second', 'Open', 'No', 'direct', null, true],
        ['First', 'Open', 'Yes', 'delegate', 'Ben Ballot', false],
      ],
      'the proposal whose voting has not opened is left out',
    );
    assert.equal(
      (await h.request({ method: 'GET', url: '/api/governance/my-ballots?limit=20', jar: ann.jar })).statusCode,
      200,
    );
    const over = await h.request({ method: 'GET', url: '/api/governance/my-ballots?limit=21', jar: ann.jar });
    assert.deepEqual([over.statusCode, over.json().error], [400, 'VALIDATION_ERROR']);
    assert.equal((await h.request({ method: 'GET', url: '/api/governance/my-ballots' })).statusCode, 401);
  });

  it('GET /api/governance/admin/events?order=newest pages newest first by before_seq; mixing the cursors is refused', async () => {
    const { jar } = await admin();
    // The follower copies the canister's events on its own poll (decision V3).
    const all = await eventually('four governance events copied', async () => {
      const items = (await h.request({ method: 'GET', url: '/api/governance/admin/events?limit=500', jar })).json()
        .items as Array<{ seq: string }>;
      return items.length >= 4 ? items : undefined;
    });
    const newest = (
      await h.request({ method: 'GET', url: '/api/governance/admin/events?order=newest&limit=2', jar })
    ).json();
    const seqs = all.map((e) => e.seq).reverse();
    assert.deepEqual(
      newest.items.map((e: { seq: string }) => e.seq),
      seqs.slice(0, 2),
    );
    assert.equal(newest.next_before_seq, seqs[1]);
    const older = (
      await h.request({
        method: 'GET',
        url: `/api/governance/admin/events?order=newest&limit=2&before_seq=${newest.next_before_seq}`,
        jar,
      })
    ).json();
    assert.deepEqual(
      older.items.map((e: { seq: string }) => e.seq),
      seqs.slice(2, 4),
    );
    for (const q of ['order=newest&after_seq=1', 'before_seq=5']) {
      const bad = await h.request({ method: 'GET', url: `/api/governance/admin/events?${q}`, jar });
      assert.deepEqual([bad.statusCode, bad.json().error], [400, 'VALIDATION_ERROR'], q);
    }
  });
});

describe('decision B108: delegate statements', () => {
  let cat: Awaited<ReturnType<typeof active>>;
  let dan: Awaited<ReturnType<typeof active>>;
  const put = (jar: Jar, statement: string | null) =>
    h.request({ method: 'PUT', url: '/api/me/delegate-statement', jar, payload: { statement } });

  before(async () => {
    cat = await active('cat-delegate@example.org');
    dan = await active('dan-member@example.org');
    assert.equal(
      (
        await h.request({
          method: 'PUT',
          url: '/api/me/display-name',
          jar: cat.jar,
          payload: { display_name: 'Cat Delegate' },
        })
      ).statusCode,
      200,
    );
  });

  it('500 characters are kept; 501 are refused with VALIDATION_ERROR and change nothing; a statement is trimmed first', async () => {
    const at = 'é'.repeat(500);
    const ok = await put(cat.jar, `  ${at}\n `);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().statement, at);
    // 501 code points, also when NFD would make it 1,002.
    const over = await put(cat.jar, 'e\u0301'.repeat(501));
    assert.deepEqual(
      [over.statusCode, over.json().error, over.json().message],
      [400, 'VALIDATION_ERROR', 'statement: at most 500 characters (this one has 501)'],
    );
    assert.equal(
      (await h.request({ method: 'GET', url: `/api/delegates/${cat.principal}`, jar: dan.jar })).json().statement,
      at,
      'unchanged',
    );
  });

  it('bidi controls are dropped (decision F41), line breaks kept two at most, tabs as spaces; control characters and stacks of marks are refused', async () => {
    const r = await put(cat.jar, 'I vote \u202Eweekly\u202C.\r\n\r\n\r\n\tAsk me\u2066 anything\u2069.');
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().statement, 'I vote weekly.\n\n Ask me anything.');
    for (const [text, message] of [
      ['bell \u0007', 'statement: control characters are not allowed (U+0007)'],
      ['a\u0301\u0302\u0303\u0304\u0305', 'statement: at most 4 combining marks on one character'],
    ]) {
      const bad = await put(cat.jar, text!);
      assert.deepEqual([bad.statusCode, bad.json().message], [400, message]);
    }
    assert.equal((await put(cat.jar, 'a\u0301\u0302\u0303\u0304')).statusCode, 200, 'four marks are kept');
  });

  it('the list shows each delegate with the members they vote for (each once) and their delegations; a member without a statement shows no count; null removes it', async () => {
    assert.equal((await put(cat.jar, 'I read every proposal.')).statusCode, 200);
    // Dan delegates everything and one category to Cat: one member, two delegations.
    assert.equal(
      (
        await h.request({
          method: 'PUT',
          url: '/api/governance/delegation',
          jar: dan.jar,
          payload: { delegate: cat.principal },
        })
      ).statusCode,
      200,
    );
    assert.equal(
      (
        await h.request({
          method: 'PUT',
          url: '/api/governance/delegation',
          jar: dan.jar,
          payload: { delegate: cat.principal, category: 'General' },
        })
      ).statusCode,
      200,
    );
    const list = (await h.request({ method: 'GET', url: '/api/delegates', jar: dan.jar })).json();
    assert.deepEqual(list.items, [
      {
        principal: cat.principal,
        display_name: 'Cat Delegate',
        statement: 'I read every proposal.',
        updated_at: new Date(h.now()).toISOString(),
        members: '1',
        delegations: '2',
      },
    ]);
    assert.equal(list.next_after, null);
    const none = (await h.request({ method: 'GET', url: `/api/delegates/${dan.principal}`, jar: cat.jar })).json();
    assert.deepEqual([none.statement, none.members, none.delegations], [null, null, null]);
    assert.equal((await h.request({ method: 'GET', url: '/api/delegates' })).statusCode, 401);
    assert.equal((await h.request({ method: 'GET', url: '/api/delegates/aaaaa-aa', jar: cat.jar })).statusCode, 404);
    assert.equal((await put(cat.jar, null)).json().statement, null);
    assert.deepEqual((await h.request({ method: 'GET', url: '/api/delegates', jar: dan.jar })).json().items, []);
  });

  it('the list pages newest statement first by next_after', async () => {
    const writers = [cat, dan];
    for (const w of writers) {
      h.advance(1000);
      assert.equal((await put(w.jar, `statement of ${w.principal.slice(0, 5)}`)).statusCode, 200);
    }
    const first = (await h.request({ method: 'GET', url: '/api/delegates?limit=1', jar: cat.jar })).json();
    assert.deepEqual(
      first.items.map((i: { principal: string }) => i.principal),
      [dan.principal],
    );
    const second = (
      await h.request({ method: 'GET', url: `/api/delegates?limit=1&after=${first.next_after}`, jar: cat.jar })
    ).json();
    assert.deepEqual(
      second.items.map((i: { principal: string }) => i.principal),
      [cat.principal],
    );
    const bad = await h.request({ method: 'GET', url: '/api/delegates?after=yesterday', jar: cat.jar });
    assert.equal(bad.statusCode, 400);
  });
});
