// The digest job (spec 3 "User digest preference", decisions N5, N9–N12) with a controllable
// clock, against the real notification service and the local provider stand-in: eligibility exactly
// at the interval and one second before, no items → no call, 51 items → 50 sent with total_count 51,
// a crash between the send and the update → no second email (Idempotency-Key per member and
// period), an unsubscribed member never mailed again, two instances → one digest each.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NotificationClient } from '@domdao/notification-client';
import { openDatabase } from '../src/core/db/connect.ts';
import { addActivity } from '../src/features/inbox/activity.ts';
import { runDigest } from '../src/features/inbox/digest-job.ts';
import type { InboxOptions } from '../src/features/inbox/options.ts';
import { verifyUnsubscribeToken } from '../src/features/inbox/unsubscribe-token.ts';
import { JobRunner } from '../src/core/jobs/runner.ts';
import { loadKeys } from '../src/core/keys.ts';
import { createOpener } from '../src/core/identity/sealed-fields.ts';
import { BACKENDS, bridge, type Bridge, type Jar } from './harness.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
type Mail = { to: string[]; subject: string; text: string; html: string; headers?: Record<string, string> };

async function optionsFor(h: Bridge, over: Partial<InboxOptions> = {}): Promise<InboxOptions> {
  const keys = await loadKeys(h.config);
  const opener = await createOpener(keys.hpkePrivateKey);
  const clients = h.opened.canisters.clients;
  return {
    db: h.opened.db,
    audit: { record: async () => undefined },
    notifier: h.notifier,
    events: h.app.events,
    jobs: h.app.jobs,
    membership: clients.membership,
    governance: clients.governance,
    governanceAs: async (m) => h.opened.canisters.platform!.as(m.principal).governance,
    openField: (f, sealed) => opener.open(f, sealed),
    requireSession: () => Promise.reject(new Error('not used')),
    currentSession: async () => undefined,
    signingSecrets: keys.signingSecrets,
    tokenLifetimeMs: 30 * DAY,
    linkBase: 'https://domdao.example',
    publicUrl: h.config.PUBLIC_URL,
    brandDomain: 'domdao.example',
    digestConcurrency: 4,
    now: h.now,
    ...over,
  };
}

/** A notifier that records what it was asked to send and can fail after the real send. */
function spy(inner: NotificationClient, crashAfterSend = () => false) {
  const sent: Array<{ to: string; data: any; key?: string }> = [];
  const client: NotificationClient = {
    configured: true,
    async send(req, opts) {
      sent.push({ to: req.to, data: req.data, ...(opts?.idempotencyKey && { key: opts.idempotencyKey }) });
      const r = await inner.send(req, opts);
      if (crashAfterSend()) throw new Error('crash: the process died after the send, before the update');
      return r;
    },
  };
  return { client, sent };
}

describe('digest job (spec 3; decisions N5, N9–N12)', () => {
  let h: Bridge;
  const members: Record<string, { jar: Jar; user_id: string }> = {};
  const mails = (to: string) => (h.emails() as Mail[]).filter((m) => m.to.includes(to) && /digest/.test(m.subject));
  const setPref = async (
    who: string,
    freq: 'daily' | 'weekly' | 'none',
    lastSent: number | null,
    optedIn = h.now() - 30 * DAY,
  ) => {
    await h.opened.db
      .insertInto('digest_preferences')
      .values({
        user_id: members[who]!.user_id,
        digest_frequency: freq,
        opted_in_at: new Date(optedIn),
        last_digest_sent_at: lastSent === null ? null : new Date(lastSent),
        updated_at: new Date(h.now()),
      })
      .onConflict((oc) =>
        oc.column('user_id').doUpdateSet({
          digest_frequency: freq,
          opted_in_at: new Date(optedIn),
          last_digest_sent_at: lastSent === null ? null : new Date(lastSent),
        }),
      )
      .execute();
  };
  const lastSent = async (who: string) =>
    (
      await h.opened.db
        .selectFrom('digest_preferences')
        .select('last_digest_sent_at')
        .where('user_id', '=', members[who]!.user_id)
        .executeTakeFirstOrThrow()
    ).last_digest_sent_at;
  const personal = (who: string, n: number, tag: string, at = h.now()) =>
    Promise.all(
      Array.from({ length: n }, (_, i) =>
        addActivity(
          h.opened.db,
          `test:${tag}:${i}`,
          { category: 'Test', title: `${tag} ${i + 1}`, audience: { kind: 'user', user_id: members[who]!.user_id } },
          new Date(at),
        ),
      ),
    );

  before(async () => {
    h = await bridge();
    // The tests drive runDigest with their own clock; the app's own runner must not run slots meanwhile.
    await h.app.jobs.close();
    for (const who of ['edge', 'early', 'empty', 'many', 'crash', 'quitter', 'weekly'])
      members[who] = await h.member(`${who}@example.org`);
    // Nothing else in the feed: each member's items are their own.
    await h.opened.db.deleteFrom('activity_items').execute();
  });
  after(() => h.close());

  it('decision N5: due exactly at the interval, not one second before; no pending items → skipped before the service is called', async () => {
    const at = h.now();
    await setPref('edge', 'daily', at - DAY);
    await setPref('early', 'daily', at - DAY + 1000);
    await setPref('empty', 'daily', at - 2 * DAY);
    await setPref('weekly', 'weekly', at - 7 * DAY + 1000);
    await personal('edge', 2, 'edge', at - HOUR);
    await personal('early', 2, 'early', at - HOUR);
    await personal('weekly', 1, 'weekly', at - HOUR);
    const s = spy(h.notifier);
    const report = await runDigest(await optionsFor(h, { notifier: s.client }), new Date(at));
    assert.deepEqual(
      s.sent.map((m) => m.to),
      ['edge@example.org'],
      'only the member exactly at the interval is mailed',
    );
    assert.equal(report.eligible, 2, 'edge and empty are due; early and weekly are one second short');
    assert.equal(report.sent, 1);
    assert.equal(report.skipped_no_items, 1);
    assert.equal(mails('edge@example.org').length, 1);
    assert.equal(mails('empty@example.org').length, 0);
    assert.equal(new Date((await lastSent('edge'))!).getTime(), at, 'last_digest_sent_at = the run instant');
    assert.equal(
      new Date((await lastSent('empty'))!).getTime(),
      at - 2 * DAY,
      'a skipped member keeps last_digest_sent_at',
    );
    const data = s.sent[0]!.data;
    assert.equal(data.digest_frequency, 'daily');
    assert.equal(data.recipient_name, 'Ada Lovelace');
    assert.deepEqual(data.items.map((i: { title: string }) => i.title).sort(), ['edge 1', 'edge 2']);
    assert.deepEqual(Object.keys(data.items[0]).sort(), ['category', 'created_at', 'title']);
    assert.equal(data.total_count, 2);
    assert.equal(data.inbox_url, 'https://domdao.example/activity');
    // Spec 3 unsubscribe_url: https://<domain>/unsubscribe?token=<signed token>, valid 30 days.
    const url = new URL(data.unsubscribe_url);
    assert.equal(`${url.origin}${url.pathname}`, 'https://domdao.example/unsubscribe');
    const check = verifyUnsubscribeToken((await loadKeys(h.config)).signingSecrets, url.searchParams.get('token'), at);
    assert.deepEqual(check, { ok: true, userId: members.edge!.user_id, expiresAt: at + 30 * DAY });
    const mail = mails('edge@example.org')[0]!;
    assert.match(mail.text, /edge 1/);
    assert.ok(mail.text.includes(data.unsubscribe_url), 'the unsubscribe link is in the body');

    // One second later the early member is due too; the edge member is not due again for a day.
    h.advance(1000);
    const again = spy(h.notifier);
    await runDigest(await optionsFor(h, { notifier: again.client }), new Date(h.now()));
    assert.deepEqual(
      again.sent.map((m) => m.to).sort(),
      ['early@example.org', 'weekly@example.org'],
      'one second later both are exactly at their interval',
    );
  });

  it('51 pending items: 50 sent (newest first), total_count 51, "+26 more" in the email', async () => {
    const at = h.now();
    await setPref('many', 'weekly', at - 8 * DAY);
    await personal('many', 51, 'many', at - 2 * DAY);
    await addActivity(
      h.opened.db,
      'test:many:old',
      { category: 'Test', title: 'before the last digest', audience: { kind: 'user', user_id: members.many!.user_id } },
      new Date(at - 9 * DAY),
    );
    await addActivity(
      h.opened.db,
      'test:many:future',
      { category: 'Test', title: 'after the cut-off', audience: { kind: 'user', user_id: members.many!.user_id } },
      new Date(at + 1),
    );
    const s = spy(h.notifier);
    await runDigest(await optionsFor(h, { notifier: s.client }), new Date(at));
    const digest = s.sent.find((m) => m.to === 'many@example.org')!;
    assert.equal(digest.data.items.length, 50);
    assert.equal(digest.data.total_count, 51);
    assert.equal(digest.data.digest_frequency, 'weekly');
    assert.ok(
      !digest.data.items.some((i: { title: string }) => /before the last|after the cut-off/.test(i.title)),
      'only the window (last sent, run instant]',
    );
    const mail = mails('many@example.org');
    assert.equal(mail.length, 1);
    assert.match(mail[0]!.subject, /51 updates/);
    assert.match(mail[0]!.text, /\+26 more/);
  });

  it('decision N10: a crash after the send and before the update → the next run sends nothing again (Idempotency-Key), then records it', async () => {
    const at = h.now();
    await setPref('crash', 'daily', at - 2 * DAY);
    await personal('crash', 3, 'crash', at - HOUR);
    const crashing = spy(h.notifier, () => true);
    await assert.rejects(
      runDigest(await optionsFor(h, { notifier: crashing.client, digestConcurrency: 1 }), new Date(at)),
      /crash/,
    );
    assert.equal(mails('crash@example.org').length, 1, 'the provider got the digest');
    assert.equal(new Date((await lastSent('crash'))!).getTime(), at - 2 * DAY, 'not recorded: the process died first');
    // The slot is retried (same instant, same body): the service replays its first answer.
    const retry = spy(h.notifier);
    const report = await runDigest(await optionsFor(h, { notifier: retry.client }), new Date(at));
    assert.equal(
      retry.sent.find((m) => m.to === 'crash@example.org')!.key,
      crashing.sent.find((m) => m.to === 'crash@example.org')!.key,
      'the same key',
    );
    assert.equal(mails('crash@example.org').length, 1, 'no second email');
    assert.equal(new Date((await lastSent('crash'))!).getTime(), at);
    assert.ok(report.sent >= 1);

    // Crashed again, and retried only at a later run (new items, another body): the service answers
    // 422 on the reused key, which means that digest went out (decision N11): recorded, not resent.
    await setPref('crash', 'daily', at - 2 * DAY);
    h.advance(HOUR);
    await personal('crash', 1, 'crash-later', h.now() - 1000);
    const later = spy(h.notifier);
    const r2 = await runDigest(await optionsFor(h, { notifier: later.client }), new Date(h.now()));
    assert.equal(mails('crash@example.org').length, 1, 'still one email');
    assert.equal(r2.already_sent, 1);
    assert.equal(new Date((await lastSent('crash'))!).getTime(), h.now());
  });

  it('an unsubscribed member is never mailed again, even when the unsubscribe lands during the run', async () => {
    await setPref('quitter', 'daily', h.now() - 2 * DAY);
    await personal('quitter', 2, 'quit');
    const url = async () => {
      const s = spy(h.notifier);
      await runDigest(await optionsFor(h, { notifier: s.client }), new Date(h.now()));
      return s.sent.find((m) => m.to === 'quitter@example.org')?.data.unsubscribe_url as string;
    };
    const link = new URL(await url());
    assert.equal(mails('quitter@example.org').length, 1);
    const r = await h.request({ method: 'GET', url: `${link.pathname}${link.search}` });
    assert.equal(r.statusCode, 200);
    for (let d = 0; d < 3; d++) {
      h.advance(DAY);
      await personal('quitter', 1, `quit-${d}`);
      await runDigest(await optionsFor(h), new Date(h.now()));
    }
    assert.equal(mails('quitter@example.org').length, 1, 'nothing after the unsubscribe');
    // Unsubscribed between selection and send: the per-member check before the send wins.
    await setPref('quitter', 'daily', h.now() - 2 * DAY);
    await personal('quitter', 1, 'quit-race');
    const opts = await optionsFor(h);
    const racing: InboxOptions = {
      ...opts,
      openField: async (f, sealed) => {
        await h.opened.db
          .updateTable('digest_preferences')
          .set({ digest_frequency: 'none' })
          .where('user_id', '=', members.quitter!.user_id)
          .execute();
        return opts.openField(f, sealed);
      },
    };
    await runDigest(racing, new Date(h.now()));
    const report = await runDigest(opts, new Date(h.now()));
    assert.equal(mails('quitter@example.org').length, 1);
    assert.ok(report.eligible > 0, 'others were mailed; not the quitter');
  });
});

describe('the digest job on the jobs seam (decision N9)', () => {
  let h: Bridge;
  before(async () => {
    h = await bridge();
  });
  after(() => h.close());

  it('the job on the seam: inbox:digest runs hourly on the slot instant; run detail is visible to admins', async () => {
    const { user_id } = await h.member('seam@example.org');
    await h.opened.db
      .insertInto('digest_preferences')
      .values({
        user_id,
        digest_frequency: 'weekly',
        opted_in_at: new Date(h.now() - DAY),
        updated_at: new Date(h.now()),
      })
      .execute();
    await addActivity(
      h.opened.db,
      'test:seam',
      { category: 'Test', title: 'seam', audience: { kind: 'user', user_id } },
      new Date(h.now() - HOUR),
    );
    const next = Math.ceil((h.now() + 1) / HOUR) * HOUR;
    h.advance(next - h.now() + 5 * 60_000);
    await h.app.jobs.tick();
    const [run] = await h.app.jobs.runs({ job: 'inbox:digest', limit: 1 });
    assert.equal(run!.status, 'succeeded', JSON.stringify(run));
    assert.equal(run!.slot, new Date(next).toISOString());
    assert.equal((run!.detail as { sent: number }).sent, 1);
    const stamped = await h.opened.db
      .selectFrom('digest_preferences')
      .select('last_digest_sent_at')
      .where('user_id', '=', user_id)
      .executeTakeFirstOrThrow();
    assert.equal(new Date(stamped.last_digest_sent_at!).getTime(), next, 'stamped with the slot start');
    const manual = await h.app.jobs.runNow('inbox:digest');
    assert.equal(manual.status, 'skipped', 'nothing due');
  });
});

describe('digest job, two instances on one PostgreSQL database (decision N9)', () => {
  it('both instances tick the same slot and race without the lease: one digest per member', async () => {
    const h = await bridge(BACKENDS[2]);
    await h.app.jobs.close(); // this test runs its own two runners
    const second = await openDatabase({ url: h.config.DATABASE_URL });
    try {
      const users: string[] = [];
      for (let i = 0; i < 6; i++) users.push((await h.member(`twin${i}@example.org`)).user_id);
      await h.opened.db.deleteFrom('activity_items').execute();
      for (const u of users) {
        await h.opened.db
          .insertInto('digest_preferences')
          .values({
            user_id: u,
            digest_frequency: 'daily',
            opted_in_at: new Date(h.now() - DAY),
            updated_at: new Date(h.now()),
          })
          .execute();
        await addActivity(
          h.opened.db,
          `twin:${u}`,
          { category: 'Test', title: 'for you', audience: { kind: 'user', user_id: u } },
          new Date(h.now() - HOUR),
        );
      }
      const base = await optionsFor(h);
      const slot = Math.ceil(h.now() / HOUR) * HOUR;
      h.advance(slot - h.now() + 1000);
      const runner = (db: typeof h.opened.db, id: string) => {
        const r = new JobRunner({ db, now: h.now, instanceId: id });
        r.define({
          name: 'inbox:digest',
          everyMs: HOUR,
          run: async (ctx) => ({ detail: { ...(await runDigest({ ...base, db }, new Date(ctx.slot))) } }),
        });
        return r;
      };
      const a = runner(h.opened.db, 'a');
      const b = runner(second.db, 'b');
      await Promise.all([a.tick(), b.tick()]);
      const digests = (h.emails() as Mail[]).filter((m) => /digest/.test(m.subject));
      assert.deepEqual(
        digests.map((m) => m.to[0]).sort(),
        users.map((_, i) => `twin${i}@example.org`).sort(),
        'the slot ran once: one digest each',
      );
      // Even two runs at once without the lease (the seam's guarantee lost) mail each member once:
      // the same Idempotency-Key makes the notification service send one of them.
      // A new period for everyone (another key than the first round's "never"), then two runs at once.
      await h.opened.db
        .updateTable('digest_preferences')
        .set({ last_digest_sent_at: new Date(slot - 2 * DAY) })
        .execute();
      const before = h.emails().length;
      const reports = await Promise.all([
        runDigest({ ...base, db: h.opened.db }, new Date(slot)),
        runDigest({ ...base, db: second.db }, new Date(slot)),
      ]);
      assert.equal(h.emails().length - before, users.length, `one new digest each (${JSON.stringify(reports)})`);
    } finally {
      await second.close();
      await h.close();
    }
  });
});
