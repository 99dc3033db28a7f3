// The audit log (decisions B61–B68): every security event produced through the public HTTP
// interface is one JSON log line (captured) and one row an admin reads at GET /api/admin/audit; no
// personal data or credential in either; filters and cursor pages at their limits; refusals at the
// audit route are audited themselves; rows are never updated; retention deletes old rows in batches.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { ConfigError } from '@domdao/config';
import { openBridge } from '../src/compose/open-bridge.ts';
import { loadBridgeConfig } from '../src/config.ts';
import { AUDIT_EVENT_NAMES, AUDIT_EVENTS, type AuditEvent } from '../src/core/audit/events.ts';
import { clientClass } from '../src/core/audit/client-class.ts';
import { AUDIT_RETENTION_JOB } from '../src/core/audit/retention.ts';
import { signUnsubscribeToken } from '../src/features/inbox/unsubscribe-token.ts';
import { startFakeInference, type FakeInference } from './fake-inference.ts';
import { ADMIN_EMAIL, BACKENDS, bridge, eventually, paymentEvent, type Bridge, type Jar } from './harness.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const API_TOKEN = 'audit-test-api-token-0123456789';
const SIGNING_SECRET = 'audit-test-signing-secret-0123456789abcdef';
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase for ada';
const NAME = 'Ada Lovelace';
const DOB = '1990-05-01';
type Row = {
  id: string;
  at: string;
  event: string;
  actor: string;
  subject: string | null;
  request_id: string | null;
  client: string;
  outcome: string;
  detail: Record<string, unknown>;
};
type Page = { items: Row[]; next_cursor: string | null };

/** Every audit row, newest first, through the admin API (pages of 200). */
async function allRows(h: Bridge, jar: Jar, query = ''): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | null = null;
  do {
    const r = await h.request({
      method: 'GET',
      url: `/api/admin/audit?limit=200${query}${cursor ? `&cursor=${cursor}` : ''}`,
      jar,
    });
    assert.equal(r.statusCode, 200, r.body);
    const page = r.json() as Page;
    rows.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return rows;
}

const auditLines = (h: Bridge) => h.logs.lines().filter((l) => l.audit === true);

/** Decision B63: no email, name, birth date, password, token or session id anywhere in `text`. */
function assertNoPersonalData(text: string, secrets: string[], where: string): void {
  for (const s of secrets) assert.ok(!text.includes(s), `${where} carries ${s.slice(0, 12)}…`);
  assert.doesNotMatch(text, /[^\s"@]+@[^\s"@]+\.[a-z]+/i, `${where} carries an email address`);
  assert.doesNotMatch(
    text,
    /"(email|name|dob|date_of_birth|password|token|session_id|cookie|ip)"\s*:/,
    `${where} carries a personal-data key`,
  );
}

describe('the audit log: every security event through HTTP, in the log and at GET /api/admin/audit (decisions B61–B68)', () => {
  let h: Bridge;
  let fake: FakeInference;
  let admin: { jar: Jar; user_id: string };
  const secrets: string[] = [PASSWORD, NEW_PASSWORD, NAME, DOB, API_TOKEN, SIGNING_SECRET];

  before(async () => {
    fake = await startFakeInference();
    h = await bridge(BACKENDS[0], {
      API_TOKEN,
      SIGNING_SECRET,
      INFERENCE_URL: fake.url,
      LOGIN_MAX_FAILURES: '2',
      MEMBER_SEARCH_LIMIT_PER_MINUTE: '1',
      DEV_FAUCET_DOM: '100',
    });
    admin = await h.member(ADMIN_EMAIL);
  });
  after(async () => {
    await h.close();
    await fake.close();
  });

  it('decision B61: each listed event is produced through the public interface, logged as one JSON line and stored as one row; no personal data in either (B63)', async () => {
    const post = (url: string, jar: Jar | undefined, payload: object, headers: Record<string, string> = {}) =>
      h.request({ method: 'POST', url, payload, headers, ...(jar && { jar }) });
    const ada = await h.member('ada-audit@domdao.example');
    secrets.push(admin.jar.cookie!, ada.jar.cookie!);

    // Sign-in failed (a wrong password), then locked out (an address with no account, LOGIN_MAX_FAILURES=2).
    assert.equal((await h.login('ada-audit@domdao.example', 'not the password at all')).res.statusCode, 401);
    for (let i = 0; i < 2; i++)
      assert.equal((await h.login('nobody-audit@domdao.example', 'guess guess guess')).res.statusCode, 401);
    assert.equal((await h.login('nobody-audit@domdao.example', 'guess guess guess')).res.statusCode, 429);
    // A member past a per-member limit (MEMBER_SEARCH_LIMIT_PER_MINUTE=1, decision B92).
    for (const status of [200, 429])
      assert.equal((await h.request({ method: 'GET', url: '/api/members?q=ada', jar: ada.jar })).statusCode, status);
    // CSRF refusal; 401 and 403 at an admin route (the session's and the X-API-Token's).
    assert.equal(
      (await h.request({ method: 'POST', url: '/auth/logout', jar: ada.jar, origin: 'https://evil.example' }))
        .statusCode,
      403,
    );
    assert.equal((await h.request({ method: 'GET', url: '/api/admin/audit' })).statusCode, 401);
    assert.equal((await h.request({ method: 'GET', url: '/api/admin/audit', jar: ada.jar })).statusCode, 403);
    assert.equal(
      (await post('/api/admin/price/submit-proposal', undefined, {}, { 'x-api-token': 'a-wrong-api-token-000000' }))
        .statusCode,
      401,
    );
    // Verification refused (a made-up link), and its wrong password; then verified.
    assert.equal(
      (await post('/api/auth/verify-email', undefined, { token: 'made-up-token', password: PASSWORD })).statusCode,
      400,
    );
    assert.equal((await h.register('bea-audit@domdao.example')).statusCode, 201);
    const beaToken = new URL(h.verificationPath('bea-audit@domdao.example'), 'https://x.example').searchParams.get(
      'token',
    )!;
    secrets.push(beaToken);
    assert.equal(
      (await post('/api/auth/verify-email', undefined, { token: beaToken, password: 'someone else chose this' }))
        .statusCode,
      401,
    );
    assert.equal((await h.verify('bea-audit@domdao.example')).statusCode, 200);
    const bea = (await h.login('bea-audit@domdao.example')).jar;
    const beaId = ((await h.request({ method: 'GET', url: '/auth/session', jar: bea })).json() as { user_id: string })
      .user_id;
    // Password reset requested (a known and an unknown address) and completed.
    assert.equal(
      (await post('/api/auth/password-reset/request', undefined, { email: 'ada-audit@domdao.example' })).statusCode,
      202,
    );
    assert.equal(
      (await post('/api/auth/password-reset/request', undefined, { email: 'nobody-audit@domdao.example' })).statusCode,
      202,
    );
    const mail = await eventually('the reset email', () =>
      h.emails().find((m) => m.to.includes('ada-audit@domdao.example') && /reset/i.test(m.subject)),
    );
    const resetToken = /\/reset-password\?token=([A-Za-z0-9_-]{43})/.exec(mail.text)![1]!;
    secrets.push(resetToken);
    assert.equal(
      (await post('/api/auth/password-reset/confirm', undefined, { token: resetToken, password: NEW_PASSWORD }))
        .statusCode,
      200,
    );
    // Registration refused (a look-alike address, decision B82); a resend past the client's email budget for an address
    // (B84).
    assert.equal((await h.register('\u1d43da-audit@domdao.example')).statusCode, 400);
    const resend = () => post('/api/auth/resend-verification', undefined, { email: 'limit-audit@domdao.example' });
    for (let i = 0; i < 3; i++) assert.equal((await resend()).statusCode, 202);
    assert.equal((await resend()).statusCode, 429);
    // Sessions ended three ways: logout, everywhere, by an admin.
    let jar = (await h.login('ada-audit@domdao.example', NEW_PASSWORD)).jar;
    assert.equal((await h.request({ method: 'POST', url: '/auth/logout', jar })).statusCode, 200);
    jar = (await h.login('ada-audit@domdao.example', NEW_PASSWORD)).jar;
    assert.equal((await h.request({ method: 'DELETE', url: '/api/me/sessions', jar })).statusCode, 200);
    jar = (await h.login('ada-audit@domdao.example', NEW_PASSWORD)).jar;
    secrets.push(jar.cookie!);
    assert.equal(
      (await h.request({ method: 'DELETE', url: `/api/admin/users/${beaId}/sessions`, jar: admin.jar })).statusCode,
      200,
    );
    // Role granted and revoked; KYC approved and rejected; the upgrade applied.
    assert.equal((await post(`/api/admin/users/${beaId}/roles`, admin.jar, { role: 'moderator' })).statusCode, 200);
    assert.equal(
      (await h.request({ method: 'DELETE', url: `/api/admin/users/${beaId}/roles/moderator`, jar: admin.jar }))
        .statusCode,
      200,
    );
    assert.equal((await post(`/api/admin/users/${ada.user_id}/kyc`, admin.jar, { approved: true })).statusCode, 200);
    assert.equal((await post(`/api/admin/users/${beaId}/kyc`, admin.jar, { approved: false })).statusCode, 200);
    const paid = await h.signedWebhook(paymentEvent(ada.user_id));
    assert.equal((paid.json() as { status: string }).status, 'applied', paid.body);
    // The operator's automation: a price proposal and the AI reindex.
    const price = await post('/api/admin/price/submit-proposal', undefined, {}, { 'x-api-token': API_TOKEN });
    assert.ok([201, 409].includes(price.statusCode), price.body);
    const reindex = await post('/api/ai/admin/reindex', undefined, {}, { 'x-api-token': API_TOKEN });
    assert.ok([200, 202].includes(reindex.statusCode), reindex.body);
    // Unsubscribe with the emailed token.
    const unsubscribeToken = signUnsubscribeToken(
      new TextEncoder().encode(SIGNING_SECRET),
      ada.user_id,
      h.now() + 30 * DAY_MS,
    );
    secrets.push(unsubscribeToken);
    assert.equal((await h.request({ method: 'GET', url: `/unsubscribe?token=${unsubscribeToken}` })).statusCode, 200);
    // A display name that passes for an admin (decision B91: Cyrillic А).
    assert.equal(
      (await h.request({ method: 'PUT', url: '/api/me/display-name', jar, payload: { display_name: '\u0410dmin' } }))
        .statusCode,
      400,
    );
    // A campaign's escrow resolved at its deadline (no contribution: refunded, nothing to refund).
    const deadline = new Date(h.now() + 2 * HOUR_MS).toISOString();
    const c = await post('/api/campaigns', jar, {
      title: 'Audit barn',
      description: '',
      goal: { dom_e8s: '100000000' },
      deadline,
    });
    assert.equal(c.statusCode, 201, c.body);
    h.advance(3 * HOUR_MS);
    await h.opened.canisters.platform!.tick();
    await h.app.fundsFollower.catchUp();
    await h.app.events.drain();
    admin = await (async () => ({ jar: (await h.login(ADMIN_EMAIL)).jar, user_id: admin.user_id }))();
    secrets.push(admin.jar.cookie!);

    const rows = await allRows(h, admin.jar);
    const lines = auditLines(h);
    // Produced at start-up only: a changed secret, a chosen name that became reserved (member-names-lookalike.test.ts),
    // a refused canister set (canister-set.test.ts).
    const expected = AUDIT_EVENT_NAMES.filter(
      (e) => e !== 'secret.rotation_noticed' && e !== 'members.display_name_reset' && e !== 'canister_set.refused',
    );
    for (const event of expected) {
      const r = rows.filter((x) => x.event === event);
      const l = lines.filter((x) => x.event === event);
      assert.ok(r.length >= 1, `${event}: no row at GET /api/admin/audit`);
      assert.equal(l.length, r.length, `${event}: one log line per row`);
      for (const line of l) {
        assert.ok(
          typeof line.actor === 'string' && typeof line.outcome === 'string' && typeof line.client === 'string',
          `${event}: line fields`,
        );
        assert.ok('request_id' in line, `${event}: the line names its request`);
      }
    }
    const one = (event: AuditEvent) => rows.find((x) => x.event === event)!;
    // Who, for whom, from where, with what outcome.
    assert.deepEqual(
      rows.filter((x) => x.event === 'auth.login_failed').map((x) => [x.actor, x.subject, x.outcome, x.detail.reason]),
      [
        ['anonymous', null, 'failure', 'invalid_credentials'],
        ['anonymous', null, 'failure', 'invalid_credentials'],
        ['anonymous', ada.user_id, 'failure', 'invalid_credentials'],
      ],
      'the account an attempt named is its subject; an address without one names none',
    );
    assert.equal(one('auth.login_locked_out').outcome, 'denied');
    const limited = one('member.rate_limited');
    assert.deepEqual(
      [limited.actor, limited.outcome, limited.detail],
      [ada.user_id, 'denied', { limit: 'member_searches', max: 1, per: 'minute', retry_after_seconds: 60 }],
    );
    assert.deepEqual(one('auth.csrf_refused').detail, {
      method: 'POST',
      route: '/auth/logout',
      origin: 'https://evil.example',
    });
    const denied = rows
      .filter((x) => x.event === 'admin.access_denied')
      .map((x) => [x.actor, x.detail.status, x.detail.route] as [string, number, string]);
    assert.deepEqual(
      denied.sort((x, y) => x[1] - y[1] || x[2].localeCompare(y[2])),
      [
        ['anonymous', 401, '/api/admin/audit'],
        ['anonymous', 401, '/api/admin/price/submit-proposal'],
        [ada.user_id, 403, '/api/admin/audit'],
      ],
      'a refused session and a refused X-API-Token alike',
    );
    assert.deepEqual(
      rows.filter((x) => x.event === 'verification.refused').map((x) => x.detail.error),
      ['VERIFICATION_LINK_INVALID'],
    );
    assert.equal(one('verification.password_refused').subject, beaId);
    assert.deepEqual(one('roles.bootstrap_admin_granted').subject, admin.user_id);
    assert.deepEqual(
      rows.filter((x) => x.event === 'password_reset.requested').map((x) => [x.subject, x.detail.known]),
      [
        [null, false],
        [ada.user_id, true],
      ],
    );
    assert.deepEqual(
      rows.filter((x) => x.event === 'sessions.ended').map((x) => x.detail.scope),
      ['admin', 'everywhere', 'logout'],
    );
    assert.deepEqual(
      [one('roles.granted').actor, one('roles.granted').subject, one('roles.granted').detail.role],
      [admin.user_id, beaId, 'moderator'],
    );
    assert.deepEqual([one('kyc.approved').subject, one('kyc.rejected').subject], [ada.user_id, beaId]);
    assert.deepEqual([one('membership.upgraded').actor, one('membership.upgraded').subject], ['system', ada.user_id]);
    assert.ok(one('membership.upgraded').request_id, 'the upgrade names the webhook request that queued it');
    assert.equal(one('escrow.resolved').detail.resolution, 'refunded');
    assert.equal(one('price.proposal_triggered').actor, 'api-token');
    assert.equal(one('ai.reindex_triggered').actor, 'api-token');
    assert.equal(one('inbox.unsubscribed').actor, ada.user_id);
    for (const r of rows) assert.ok(['loopback', 'internal'].includes(r.client), `${r.event}: client ${r.client}`);
    // The request id of a line is the row's, and the answer's.
    const csrfLine = lines.find((l) => l.event === 'auth.csrf_refused')!;
    assert.equal(csrfLine.request_id, one('auth.csrf_refused').request_id);

    assertNoPersonalData(JSON.stringify(rows), secrets, 'GET /api/admin/audit');
    assertNoPersonalData(JSON.stringify(lines), secrets, 'the audit log lines');
  });

  it('decision B67: filters by event, actor and time range (from inclusive, to exclusive); unknown events and from after to are 400', async () => {
    const all = await allRows(h, admin.jar);
    const byEvent = await allRows(h, admin.jar, '&event=sessions.ended');
    assert.ok(byEvent.length >= 3 && byEvent.every((r) => r.event === 'sessions.ended'));
    const byActor = await allRows(h, admin.jar, `&actor=${admin.user_id}`);
    assert.ok(byActor.length >= 1 && byActor.every((r) => r.actor === admin.user_id));
    const mid = all[Math.floor(all.length / 2)]!;
    const from = await allRows(h, admin.jar, `&from=${encodeURIComponent(mid.at)}`);
    assert.ok(from.some((r) => r.id === mid.id) && from.every((r) => r.at >= mid.at), 'from is inclusive');
    const to = await allRows(h, admin.jar, `&to=${encodeURIComponent(mid.at)}`);
    assert.ok(!to.some((r) => r.id === mid.id) && to.every((r) => r.at < mid.at), 'to is exclusive');
    assert.equal(from.length + to.length, all.length);
    for (const q of [
      'event=no.such_event',
      `from=${encodeURIComponent(mid.at)}&to=2000-01-01T00:00:00Z`,
      'from=yesterday',
      'actor=',
      'cursor=0',
    ]) {
      const r = await h.request({ method: 'GET', url: `/api/admin/audit?${q}`, jar: admin.jar });
      assert.equal(r.statusCode, 400, q);
      assert.equal((r.json() as { error: string }).error, 'VALIDATION_ERROR');
    }
    // Decision B74: an unknown event is answered with the list of events, said once.
    const unknown = await h.request({ method: 'GET', url: '/api/admin/audit?event=csrf.refused', jar: admin.jar });
    const message = (unknown.json() as { message: string }).message;
    assert.ok(message.startsWith('querystring/event must be one of: auth.login_succeeded, '), message);
    assert.ok(
      message.includes('auth.csrf_refused') && !message.includes('constant') && !message.includes('anyOf'),
      message,
    );
  });

  it('decision B67: cursor pages: limit 200 is accepted and 201 refused, 0 refused; a page exactly as long as what is left has no next cursor, one shorter has one; the cursor at the bigint limit and one past', async () => {
    const get = (q: string) => h.request({ method: 'GET', url: `/api/admin/audit?${q}`, jar: admin.jar });
    assert.equal((await get('limit=200')).statusCode, 200);
    assert.equal((await get('limit=201')).statusCode, 400);
    assert.equal((await get('limit=0')).statusCode, 400);
    assert.equal((await get('cursor=9223372036854775807')).statusCode, 200);
    assert.equal((await get('cursor=9223372036854775808')).statusCode, 400);
    const all = await allRows(h, admin.jar, '&event=auth.login_succeeded');
    const n = all.length;
    assert.ok(n >= 3);
    const exact = (await get(`event=auth.login_succeeded&limit=${n}`)).json() as Page;
    assert.equal(exact.items.length, n);
    assert.equal(exact.next_cursor, null);
    const short = (await get(`event=auth.login_succeeded&limit=${n - 1}`)).json() as Page;
    assert.equal(short.items.length, n - 1);
    assert.equal(short.next_cursor, short.items.at(-1)!.id);
    const rest = (await get(`event=auth.login_succeeded&limit=${n}&cursor=${short.next_cursor}`)).json() as Page;
    assert.deepEqual([...short.items, ...rest.items], all, 'the pages together are every row once, newest first');
    assert.equal(rest.next_cursor, null);
  });

  it('decision B61: a member at GET /api/admin/audit gets 403, and the refusal is itself audited with the member as actor', async () => {
    const m = await h.member('curious-audit@domdao.example');
    const r = await h.request({ method: 'GET', url: '/api/admin/audit?event=auth.login_failed', jar: m.jar });
    assert.equal(r.statusCode, 403);
    assert.equal((r.json() as { error: string }).error, 'FORBIDDEN');
    const rows = await allRows(h, admin.jar, `&event=admin.access_denied&actor=${m.user_id}`);
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0]!.detail, { method: 'GET', route: '/api/admin/audit', status: 403, error: 'FORBIDDEN' });
    assert.equal(rows[0]!.request_id, (r.json() as { request_id: string }).request_id);
    const line = h.logs.events('admin.access_denied').find((l) => l.actor === m.user_id);
    assert.ok(line && line.audit === true && line.client === 'loopback' && line.outcome === 'denied');
  });

  it('decision B61: docs/operations/audit.md lists every audit event with its meaning, and nothing else', () => {
    const page = readFileSync(new URL('../../../docs/operations/audit.md', import.meta.url), 'utf8');
    const listed = [...page.matchAll(/^\| `([a-z_.]+)` \| (.+) \|$/gm)].map((m) => [m[1], m[2]]);
    assert.deepEqual(listed, Object.entries(AUDIT_EVENTS));
  });

  it('decision B62: the client address class, not the address (the classes of spec 3 source_ip_class; unreadable counts as public)', () => {
    const cases: Array<[string | undefined, string]> = [
      ['127.0.0.1', 'loopback'],
      ['::1', 'loopback'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['172.32.0.1', 'public'],
      ['192.168.1.1', 'private'],
      ['100.64.0.1', 'private'],
      ['fd00::1', 'private'],
      ['fe80::1', 'private'],
      ['203.0.113.9', 'public'],
      ['2001:db8::1', 'public'],
      ['not an address', 'public'],
      [undefined, 'public'],
    ];
    for (const [ip, want] of cases) assert.equal(clientClass(ip), want, String(ip));
  });

  it('decision B63: the append-only rule holds on the embedded database: UPDATE, DELETE and TRUNCATE are refused', async () => {
    const db = h.opened.db;
    const before = await db
      .selectFrom('audit_log')
      .select((e) => e.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    await assert.rejects(sql`update audit_log set outcome = 'success'`.execute(db), /append-only: UPDATE refused/);
    await assert.rejects(sql`delete from audit_log`.execute(db), /append-only: DELETE refused/);
    await assert.rejects(sql`truncate audit_log`.execute(db), /append-only: TRUNCATE refused/);
    const afterCount = await db
      .selectFrom('audit_log')
      .select((e) => e.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(String(afterCount.n), String(before.n));
  });
});

describe('the audit log on PostgreSQL: append-only, retention, secret rotation (decisions B63, B65, B66)', () => {
  let h: Bridge;
  before(async () => {
    // The retention job runs only when the test runs it: the runner's own timer would run the day's
    // slot the clock is moved into, racing runNow.
    h = await bridge(BACKENDS[2], { AUDIT_RETENTION_DAYS: '1', AUDIT_RETENTION_BATCH: '2' }, { jobTimer: false });
  });
  after(() => h.close());

  it('decision B63: UPDATE, DELETE and TRUNCATE are refused on PostgreSQL too', async () => {
    assert.equal((await h.login('nobody-pg@domdao.example', 'guess guess guess')).res.statusCode, 401);
    const db = h.opened.db;
    await assert.rejects(sql`update audit_log set actor = 'someone'`.execute(db), /append-only: UPDATE refused/);
    await assert.rejects(sql`delete from audit_log`.execute(db), /append-only: DELETE refused/);
    await assert.rejects(sql`truncate audit_log`.execute(db), /append-only: TRUNCATE refused/);
  });

  it('decision B65: the retention job deletes rows older than AUDIT_RETENTION_DAYS (a row at the limit stays, one 1 ms past goes), AUDIT_RETENTION_BATCH per transaction', async () => {
    const db = h.opened.db;
    const count = async () =>
      Number(
        (
          await db
            .selectFrom('audit_log')
            .select((e) => e.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const start = h.now();
    // Five failed sign-ins at `start`, one 1 ms later (the one at the limit below).
    for (let i = 0; i < 4; i++) await h.login(`old-${i}@domdao.example`, 'guess guess guess');
    h.advance(1);
    await h.login('at-limit@domdao.example', 'guess guess guess');
    const old = (await db.selectFrom('audit_log').select('at').execute()).filter(
      (r) => new Date(r.at).getTime() === start,
    ).length;
    assert.ok(old >= 5, `rows at the start: ${old}`);
    const total = await count();
    h.advance(DAY_MS);
    const run = await h.app.jobs.runNow(AUDIT_RETENTION_JOB);
    assert.equal(run.status, 'succeeded', run.error ?? '');
    const detail = run.detail as { deleted: number; batches: number; before: string };
    assert.equal(detail.before, new Date(start + 1).toISOString());
    assert.equal(detail.deleted, old);
    assert.equal(detail.batches, Math.ceil(old / 2));
    assert.equal(await count(), total - old);
    const left = await db.selectFrom('audit_log').select(['at', 'subject']).execute();
    assert.ok(left.every((r) => new Date(r.at).getTime() >= start + 1));
  });

  it('decision B65: AUDIT_RETENTION_DAYS 1 to 3650 and AUDIT_RETENTION_BATCH 1 to 100000, each at its limit and one past', () => {
    const load = (k: string, v: string) => loadBridgeConfig({ ...h.env, [k]: v });
    for (const [k, ok, bad] of [
      ['AUDIT_RETENTION_DAYS', ['1', '3650'], ['0', '3651']],
      ['AUDIT_RETENTION_BATCH', ['1', '100000'], ['0', '100001']],
    ] as const) {
      for (const v of ok) assert.equal(load(k, v)[k], Number(v));
      for (const v of bad) assert.throws(() => load(k, v), ConfigError, `${k}=${v}`);
    }
  });

  it('decision B66: a restart with another secret is noticed once (secret.rotation_noticed, the variable named, never a value); the same secret again is not', async () => {
    const adminJar = (await h.member(ADMIN_EMAIL)).jar;
    await h.app.close();
    const reopen = async (env: Record<string, string>) =>
      openBridge(loadBridgeConfig(env), env, {
        now: h.now,
        canisterClock: () => BigInt(h.now()) * 1_000_000n,
        scheduler: false,
        logStream: h.logs.stream,
      });
    const rotatedEnv = { ...h.env, ACCESS_TOKEN: 'a-new-access-token-0123456789' };
    let opened = await reopen(rotatedEnv);
    await opened.app.ready();
    await opened.app.close();
    opened = await reopen(rotatedEnv);
    await opened.app.ready();
    try {
      const r = await opened.app.inject({
        method: 'GET',
        url: '/api/admin/audit?event=secret.rotation_noticed',
        headers: { cookie: `session=${adminJar.cookie}` },
      });
      assert.equal(r.statusCode, 200, r.body);
      const items = (r.json() as Page).items;
      assert.deepEqual(
        items.map((i) => [i.actor, i.client, i.detail]),
        [['system', 'internal', { variable: 'ACCESS_TOKEN' }]],
      );
      const lines = h.logs.events('secret.rotation_noticed');
      assert.equal(lines.length, 1);
      assertNoPersonalData(
        JSON.stringify([items, lines]),
        ['a-new-access-token-0123456789', h.env.ACCESS_TOKEN!],
        'secret.rotation_noticed',
      );
    } finally {
      await opened.app.close();
      await h.restart();
    }
  });
});
