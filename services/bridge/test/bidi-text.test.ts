// Decision F41 on the bridge's side: what the bridge itself shows of member-written text (the activity
// feed and its /activity page, the emails it asks the notification service for) carries no bidi
// control, so a proposal titled "Invoice \u202Egnp.exe" reads as typed and never as "Invoice exe.png".
// The proposal itself is answered as the governance canister keeps it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_EMAIL, bridge, eventually, paymentEvent, type Bridge, type Jar } from './harness.ts';

const HOUR = 3_600_000;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const TITLE = 'Invoice \u202Egnp.exe \u2067and\u2069 \u200Fmore\u061C';
const SHOWN = 'Invoice gnp.exe and more';
type Sent = {
  to: string[];
  subject: string;
  text: string;
  html: string;
  attachments?: Array<{ filename: string; content: string }>;
};

describe('bidi controls in what the bridge shows (decision F41)', () => {
  let h: Bridge;
  let voter: { jar: Jar; user_id: string };

  before(async () => {
    h = await bridge();
    const admin = await h.member(ADMIN_EMAIL);
    voter = await h.member('bidi-voter@example.org');
    assert.equal(
      (
        await h.request({
          method: 'POST',
          url: `/api/admin/users/${voter.user_id}/kyc`,
          payload: { approved: true },
          jar: admin.jar,
        })
      ).statusCode,
      200,
    );
    assert.equal((await h.signedWebhook(paymentEvent(voter.user_id))).json().status, 'applied');
    voter.jar = (await h.login('bidi-voter@example.org')).jar;
    assert.equal(
      (
        await h.request({
          method: 'PUT',
          url: '/api/me/notification-preferences',
          payload: { vote_reminders: true },
          jar: voter.jar,
        })
      ).statusCode,
      200,
    );
  });
  after(() => h.close());

  it('decision F41: a proposal titled with U+202E and isolates: the feed, the /activity page and the vote reminder (subject, text, calendar file) show it as typed, without the controls', async () => {
    const r = await h.request({
      method: 'POST',
      url: '/api/governance/propose',
      jar: voter.jar,
      payload: { title: TITLE, body: 'b', category: 'General' },
    });
    assert.equal(r.statusCode, 201, r.body);
    const id = r.json().proposal_id as string;
    assert.equal(
      (await h.request({ method: 'GET', url: `/api/governance/proposals/${id}` })).json().title,
      TITLE,
      'the record keeps what was typed',
    );
    h.advance(HOUR);
    await h.opened.canisters.platform!.tick();

    const items = await eventually('the proposal in the feed', async () => {
      const feed = (await h.request({ method: 'GET', url: '/api/me/activity', jar: voter.jar })).json().items as Array<{
        title: string;
      }>;
      return feed.some((i) => i.title.startsWith('Voting is open')) ? feed : undefined;
    });
    const titles = items.map((i) => i.title).filter((t) => t.includes('Invoice'));
    assert.deepEqual(titles.sort(), [`New proposal: ${SHOWN}`, `Voting is open: ${SHOWN}`]);
    const page = await h.request({ method: 'GET', url: '/activity', jar: voter.jar });
    assert.equal(page.statusCode, 200);
    assert.ok(page.body.includes(`Voting is open: ${SHOWN}`), 'the /activity page');
    assert.doesNotMatch(page.body, BIDI);

    const p = (await h.opened.canisters.clients.governance.get_proposal(BigInt(id)))!;
    h.advance(Number(p.voting_closes / 1_000_000n) - h.now() - 23 * HOUR);
    assert.equal((await h.app.jobs.runNow('member-emails:vote-reminders')).status, 'succeeded');
    const mail = (h.emails() as Sent[]).find(
      (m) => m.to.includes('bidi-voter@example.org') && /^Reminder: Vote deadline/.test(m.subject),
    )!;
    assert.ok(mail, 'the reminder was sent');
    assert.match(mail.subject, new RegExp(`^Reminder: Vote deadline: ${SHOWN.replace(/\./g, '\\.')}`));
    for (const [what, text] of [
      ['subject', mail.subject],
      ['text', mail.text],
      ['html', mail.html],
      [
        'event.ics',
        Buffer.from(mail.attachments!.find((a) => a.filename === 'event.ics')!.content, 'base64').toString('utf8'),
      ],
    ] as const)
      assert.doesNotMatch(text, BIDI, what);
  });
});
