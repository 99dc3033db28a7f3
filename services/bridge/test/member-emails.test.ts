// Every email at its moment (decisions N13–N18), through the real notification service to
// the provider stand-in (so each template's data passed the service's schema): welcome after
// verification, membership-confirm + payment-receipt on the first payment, renewal-receipt on a
// renewal, event-reminder 24 h and 1 h before a vote closes (Active, opted in, not voted; event.ics
// at the deadline), invitation; a failed send never fails the flow, is listed for admins and retried.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_EMAIL, bridge, paymentEvent, type Bridge, type Jar } from './harness.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
type Sent = { to: string[]; subject: string; text: string; attachments?: Array<{ filename: string; content: string }> };

async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('member emails (decisions N13–N18)', () => {
  let h: Bridge;
  let admin: { jar: Jar; user_id: string };
  const sent = (to: string, subject?: RegExp) =>
    (h.emails() as Sent[]).filter((m) => m.to.includes(to) && (!subject || subject.test(m.subject)));
  const activate = async (userId: string) => {
    admin = { ...admin, jar: (await h.login(ADMIN_EMAIL)).jar }; // time moves by months in these tests
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: `/api/admin/users/${userId}/kyc`,
          payload: { approved: true },
          jar: admin.jar,
        })
      ).statusCode,
      200,
    );
  };

  before(async () => {
    h = await bridge();
    admin = await h.member(ADMIN_EMAIL);
  });
  after(() => h.close());

  it('welcome: once, after the first verification, before the verified page answers', async () => {
    await h.member('welcome@example.org');
    const mails = sent('welcome@example.org', /^Welcome to DOM DAO, Ada Lovelace$/);
    assert.equal(mails.length, 1);
    assert.match(mails[0]!.text, /https:\/\/app\.domdao\.example/, 'dashboard_url: the first front end');
    const row = await h.opened.db
      .selectFrom('email_deliveries')
      .selectAll()
      .where('template', '=', 'welcome')
      .where('status', '=', 'sent')
      .execute();
    assert.ok(row.length >= 2, 'recorded (the admin and this member)');
  });

  it('first payment: membership-confirm and payment-receipt once; a replayed webhook sends nothing; renewal (Expired → Active): renewal-receipt only', async () => {
    const m = await h.member('payer@example.org');
    await activate(m.user_id);
    assert.equal((await h.signedWebhook(paymentEvent(m.user_id, 'evt_first'))).json().status, 'applied');
    assert.equal(sent('payer@example.org', /membership is active/).length, 1);
    const receipt = sent('payer@example.org', /^Payment received: 25\.00 USD$/);
    assert.equal(receipt.length, 1);
    assert.match(receipt[0]!.text, /pi_evt_first/);
    assert.equal((await h.signedWebhook(paymentEvent(m.user_id, 'evt_first'))).json().duplicate, true);
    assert.equal(sent('payer@example.org', /Payment received/).length, 1, 'not again');
    // Next year the membership has expired (Dec 31): paying again renews it.
    h.advance(300 * DAY);
    assert.equal((await h.signedWebhook(paymentEvent(m.user_id, 'evt_renew'))).json().status, 'applied');
    const renewal = sent('payer@example.org', /^Receipt evt_renew: DOM DAO membership renewed$/);
    assert.equal(renewal.length, 1);
    assert.match(renewal[0]!.text, /25\.00/);
    assert.equal(
      sent('payer@example.org', /Payment received/).length,
      1,
      'a renewal has its own receipt, not a second payment-receipt',
    );
    assert.equal(sent('payer@example.org', /membership is active/).length, 1);
  });

  it('a failed send never fails the flow, is listed for admins with its reason, and is retried by member-emails:retry', async () => {
    const m = await h.register('unlucky@example.org');
    assert.equal(m.statusCode, 201);
    h.provider.respond(() => ({ status: 503, body: { message: 'provider down' } }));
    let page;
    try {
      page = await h.verify('unlucky@example.org');
    } finally {
      h.provider.respond((_r, i) => ({ status: 200, body: { id: `msg_${i + 1}` } }));
    }
    assert.equal(page.statusCode, 200, 'verified although the welcome email failed');
    // The stand-in records every attempt, the refused one included.
    const attempted = sent('unlucky@example.org', /^Welcome/).length;
    admin = { ...admin, jar: (await h.login(ADMIN_EMAIL)).jar };
    const list = await h.request({
      method: 'GET',
      url: '/api/admin/emails?status=failed&template=welcome',
      jar: admin.jar,
    });
    assert.equal(list.statusCode, 200, list.body);
    const [failed] = list.json().items;
    assert.equal(failed.template, 'welcome');
    assert.equal(failed.status, 'failed');
    assert.equal(failed.attempts, 1);
    assert.match(failed.last_error, /unavailable 500 send_failed/);
    assert.ok(failed.next_attempt_at, 'a retry is scheduled');
    assert.equal((await h.request({ method: 'GET', url: '/api/admin/emails' })).statusCode, 401);
    const notAdmin = (await h.login('payer@example.org')).jar;
    assert.equal((await h.request({ method: 'GET', url: '/api/admin/emails', jar: notAdmin })).statusCode, 403);

    const early = await h.app.jobs.runNow('member-emails:retry');
    assert.equal(early.status, 'skipped', 'not before next_attempt_at');
    h.advance(5 * 60_000);
    const run = await h.app.jobs.runNow('member-emails:retry');
    assert.equal(run.status, 'succeeded');
    assert.equal(sent('unlucky@example.org', /^Welcome/).length, attempted + 1, 'sent again, accepted this time');
    const row = await h.opened.db
      .selectFrom('email_deliveries')
      .selectAll()
      .where('key', '=', failed.key)
      .executeTakeFirstOrThrow();
    assert.deepEqual([row.status, row.attempts, row.next_attempt_at], ['sent', 2, null]);
  });

  it('decision N21: verification, password-reset and password-changed sends are recorded; a failed one is listed for admins and not retried (the member asks again)', async () => {
    assert.equal((await h.register('recorded@example.org')).statusCode, 201);
    const { user_id } = await h.opened.db
      .selectFrom('users')
      .select('id as user_id')
      .where(
        'id',
        'in',
        h.opened.db.selectFrom('email_deliveries').select('user_id').where('template', '=', 'verification'),
      )
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    const rows = async (template: string) =>
      h.opened.db
        .selectFrom('email_deliveries')
        .selectAll()
        .where('user_id', '=', user_id)
        .where('template', '=', template)
        .execute();
    assert.deepEqual(
      (await rows('verification')).map((r) => r.status),
      ['sent'],
    );
    assert.equal((await h.verify('recorded@example.org')).statusCode, 200);
    h.provider.respond(() => ({ status: 503, body: { message: 'provider down' } }));
    try {
      const ask = await h.request({
        method: 'POST',
        url: '/api/auth/password-reset/request',
        payload: { email: 'recorded@example.org' },
      });
      assert.equal(ask.statusCode, 202, 'the same answer although the email failed');
      await eventually(
        'the reset email recorded (sent after the answer)',
        async () => (await rows('password-reset')).length > 0 || undefined,
      );
    } finally {
      h.provider.respond((_r, i) => ({ status: 200, body: { id: `msg_${i + 1}` } }));
    }
    const [failed] = await rows('password-reset');
    assert.deepEqual(
      [failed!.status, failed!.event_seq, failed!.next_attempt_at],
      ['failed', null, null],
      'failed, not scheduled: the link is replaced by the next request',
    );
    admin = { ...admin, jar: (await h.login(ADMIN_EMAIL)).jar };
    const list = await h.request({
      method: 'GET',
      url: '/api/admin/emails?status=failed&template=password-reset',
      jar: admin.jar,
    });
    assert.ok(
      list.json().items.some((i: { key: string }) => i.key === failed!.key),
      'visible to admins',
    );
    h.advance(60 * 60_000);
    await h.app.jobs.runNow('member-emails:retry');
    assert.equal((await rows('password-reset'))[0]!.attempts, 1, 'the retry job leaves it alone');
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: '/api/auth/password-reset/request',
          payload: { email: 'recorded@example.org' },
        })
      ).statusCode,
      202,
    );
    await eventually('the second reset email', async () => (await rows('password-reset')).length === 2 || undefined);
    assert.deepEqual(
      (await rows('password-reset')).map((r) => r.status).sort(),
      ['failed', 'sent'],
      'a new request, a new link, a new row',
    );
  });

  it('invitation: sent in the member’s name; Origin rule; a bad address 400; 10 per day then 429', async () => {
    const m = await h.member('inviter@example.org');
    const invite = (email: string, origin?: string | null) =>
      h.request({
        method: 'POST',
        url: '/api/me/invitations',
        payload: { email },
        jar: m.jar,
        ...(origin !== undefined && { origin }),
      });
    const r = await invite('friend@example.net');
    assert.equal(r.statusCode, 202, r.body);
    assert.equal(r.json().status, 'sent');
    const mail = sent('friend@example.net', /^Ada Lovelace invited you to DOM DAO$/);
    assert.equal(mail.length, 1);
    // Decision F10: the link opens the member app's join page (GET /register does not exist).
    assert.match(mail[0]!.text, /https:\/\/domdao\.example\/join\b/);
    assert.equal((await invite('friend@example.net')).statusCode, 202);
    assert.equal(sent('friend@example.net').length, 1, 'the same address the same day: one email');
    assert.equal((await invite('other@example.net', 'https://evil.example')).statusCode, 403);
    assert.equal(
      (await h.request({ method: 'POST', url: '/api/me/invitations', payload: { email: 'x@example.net' } })).statusCode,
      401,
    );
    const bad = await invite('not an address');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error, 'VALIDATION_ERROR');
    for (let i = 2; i <= 10; i++) assert.equal((await invite(`friend${i}@example.net`)).statusCode, 202);
    const limited = await invite('friend11@example.net');
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().error, 'TOO_MANY_INVITATIONS');
  });

  it('event-reminder: 24 h and 1 h before the vote closes, to Active members who opted in and have not voted; event.ics at the deadline; once per window', async () => {
    const voter = await h.member('voter@example.org');
    const quiet = await h.member('quiet@example.org');
    const busy = await h.member('busy@example.org');
    const registered = await h.member('registered-only@example.org');
    for (const m of [voter, quiet, busy]) {
      await activate(m.user_id);
      assert.equal((await h.signedWebhook(paymentEvent(m.user_id))).json().status, 'applied');
    }
    for (const m of [voter, busy, registered]) {
      const jar = (
        await h.login(
          m === voter ? 'voter@example.org' : m === busy ? 'busy@example.org' : 'registered-only@example.org',
        )
      ).jar;
      assert.equal(
        (
          await h.request({
            method: 'PUT',
            url: '/api/me/notification-preferences',
            payload: { vote_reminders: true },
            jar,
          })
        ).statusCode,
        200,
      );
    }
    const created = await h.opened.canisters.clients.governance.create_proposal({
      title: 'Repaint the hall',
      body: 'b',
      category: 'General',
    });
    assert.ok('Ok' in created);
    h.advance(HOUR);
    await h.opened.canisters.platform!.tick();
    const p = (await h.opened.canisters.clients.governance.get_proposal(created.Ok))!;
    assert.equal(p.status, 'Open');
    const closes = Number(p.voting_closes / 1_000_000n);
    // busy votes; quiet did not opt in; registered-only is not Active.
    const busyJar = (await h.login('busy@example.org')).jar;
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: '/api/governance/vote',
          payload: { proposal_id: String(created.Ok), vote: 'Yes' },
          jar: busyJar,
        })
      ).statusCode,
      200,
    );

    const reminders = (to: string) => sent(to, /^Reminder: Vote deadline: Repaint the hall/);
    assert.equal(
      (await h.app.jobs.runNow('member-emails:vote-reminders')).status,
      'skipped',
      'more than 24 h left: nothing due',
    );
    h.advance(closes - h.now() - 23 * HOUR);
    const run = await h.app.jobs.runNow('member-emails:vote-reminders');
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.equal(reminders('voter@example.org').length, 1);
    for (const who of ['quiet@example.org', 'busy@example.org', 'registered-only@example.org'])
      assert.equal(reminders(who).length, 0, who);
    const mail = reminders('voter@example.org')[0]!;
    // Decision N32: the subject from window_label (spec 3), true for any time left in the window (N28).
    assert.match(mail.subject, /^Reminder: Vote deadline: Repaint the hall starts within 24 hours$/);
    assert.match(
      mail.text,
      new RegExp(`https://domdao\\.example/proposals/${created.Ok}\\b`),
      'decision F10: the proposal page of the member app, not the JSON API',
    );
    assert.doesNotMatch(mail.text, /\/api\/governance\//);
    const ics = Buffer.from(mail.attachments!.find((a) => a.filename === 'event.ics')!.content, 'base64').toString(
      'utf8',
    );
    const stamp = (ms: number) =>
      new Date(ms)
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d{3}/, '');
    assert.match(ics, new RegExp(`DTSTART:${stamp(closes)}`), 'the deadline');
    assert.match(ics, /UID:proposal-\d+@domdao\.example/);
    await h.app.jobs.runNow('member-emails:vote-reminders');
    assert.equal(reminders('voter@example.org').length, 1, 'once per window');
    h.advance(closes - h.now() - 30 * 60_000);
    await h.app.jobs.runNow('member-emails:vote-reminders');
    const both = reminders('voter@example.org');
    assert.equal(both.length, 2);
    assert.match(both[1]!.subject, /^Reminder: Vote deadline: Repaint the hall starts within the hour$/);
    // The closing call is also in the Active members' feed.
    const feed = (
      await h.request({ method: 'GET', url: '/api/me/activity', jar: (await h.login('voter@example.org')).jar })
    ).json().items as Array<{
      title: string;
    }>;
    await eventually('the feed item', async () => {
      const items = (
        await h.request({ method: 'GET', url: '/api/me/activity', jar: (await h.login('voter@example.org')).jar })
      ).json().items as Array<{
        title: string;
      }>;
      return items.some((i) => i.title === 'Voting closes soon: Repaint the hall') || undefined;
    });
    assert.ok(Array.isArray(feed));
  });
});
