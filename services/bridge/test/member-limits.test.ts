// Per-member limits (issue 45 item 8; decisions B92, B93, V35, V36): proposals, delegation changes and
// member searches, each at its limit and one past it, through HTTP on the harness's clock. One past is
// 429 RATE_LIMITED with Retry-After (the seconds left in the window), does nothing, leaves a log line,
// an audit row and a count; another member is not held back; the count outlives a restart (it is in the
// database every bridge instance shares, B52); the window's end lets the member go on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bridge, type Bridge, type Jar } from './harness.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const LIMITS = {
  PROPOSAL_LIMIT_PER_HOUR: '3',
  DELEGATION_CHANGE_LIMIT_PER_HOUR: '3',
  MEMBER_SEARCH_LIMIT_PER_MINUTE: '4',
};

let h: Bridge;
const people: Record<string, { jar: Jar; user_id: string; principal: string; email: string }> = {};

async function signIn() {
  for (const p of Object.values(people)) p.jar = (await h.login(p.email)).jar;
}

const call = (who: string, method: 'GET' | 'PUT' | 'DELETE' | 'POST', url: string, payload?: object) =>
  h.request({ method, url, ...(payload && { payload }), jar: people[who]!.jar });

/** The refusal's audit rows, its log lines and its count in the metrics. */
async function refusals(limit: string) {
  const rows = await h.opened.db
    .selectFrom('audit_log')
    .selectAll()
    .where('event', '=', 'member.rate_limited')
    .execute();
  const text = await h.app.metrics.registry.metrics();
  const counted = new RegExp(`^bridge_member_limit_refusals_total\\{limit="${limit}"\\} (\\d+)$`, 'm').exec(text)?.[1];
  return {
    rows: rows.filter((r) => r.detail.limit === limit),
    lines: h.logs.events('member.rate_limited').filter((l) => l.limit === limit),
    counted: Number(counted ?? 0),
  };
}

function assertLimited(
  r: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  retryAfter: number,
  what: string,
) {
  assert.equal(r.statusCode, 429, what);
  assert.equal((r.json() as { error: string }).error, 'RATE_LIMITED', what);
  assert.equal(r.headers['retry-after'], String(retryAfter), `${what}: Retry-After is the rest of the window`);
}

describe('per-member limits on proposals, delegation changes and member searches (decisions B92, B93, V35, V36)', () => {
  before(async () => {
    h = await bridge(undefined, LIMITS);
    const c = h.opened.canisters.clients;
    for (const name of ['ann', 'ben', 'cat']) {
      const email = `${name}-limits@domdao.example`;
      const m = await h.member(email);
      const { principal } = await h.opened.db
        .selectFrom('users')
        .select('principal')
        .where('id', '=', m.user_id)
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
      people[name] = { ...m, email, principal };
    }
  });
  after(() => h.close());

  it('decision V35: PROPOSAL_LIMIT_PER_HOUR proposals a member an hour are made; the one past is 429 RATE_LIMITED with Retry-After, makes nothing, is logged, audited and counted', async () => {
    const propose = (who: string, title: string) =>
      call(who, 'POST', '/api/governance/propose', { title, body: 'b', category: 'EmergencyAction' });
    const count = async () => (await h.opened.canisters.clients.governance.list_proposals({ limit: 100 })).length;
    for (let i = 1; i <= 3; i++) {
      const r = await propose('ann', `Alarm ${i}`);
      assert.equal(r.statusCode, 201, `proposal ${i} of 3: ${r.body}`);
      h.advance(5 * MINUTE_MS);
    }
    const before = await count();
    // Bad input is refused for what it is, before it counts.
    const bad = await call('ann', 'POST', '/api/governance/propose', { title: '', body: 'b', category: 'General' });
    assert.deepEqual([bad.statusCode, bad.json().error], [400, 'VALIDATION_ERROR']);
    const over = await propose('ann', 'Alarm 4');
    assertLimited(over, HOUR_MS / 1000 - 15 * 60, 'the fourth proposal in the hour');
    assert.match(over.json().message, /^at most 3 proposals per hour; try again in 2700 seconds$/);
    assert.equal(await count(), before, 'nothing was proposed');
    const seen = await refusals('proposals');
    assert.equal(seen.rows.length, 1, 'one audit row');
    assert.deepEqual([seen.rows[0]!.actor, seen.rows[0]!.outcome], [people.ann!.user_id, 'denied']);
    assert.deepEqual(seen.rows[0]!.detail, { limit: 'proposals', max: 3, per: 'hour', retry_after_seconds: 2700 });
    assert.equal(seen.lines.length, 1, 'one log line');
    assert.equal(seen.counted, 1, 'bridge_member_limit_refusals_total{limit="proposals"}');
    // Another member is not held back.
    assert.equal((await propose('ben', 'Unrelated')).statusCode, 201);
    // The count is in the database: a restarted bridge (or another instance) holds the member to it.
    await h.restart();
    await signIn();
    assertLimited(await propose('ann', 'Alarm 5'), 2700, 'after a restart');
    // The hour that began with the first proposal ends: the member proposes again.
    h.advance(2700 * 1000);
    assert.equal((await propose('ann', 'Alarm 6')).statusCode, 201);
  });

  it('decision V36: DELEGATION_CHANGE_LIMIT_PER_HOUR changes a member an hour, PUT and DELETE together; the one past is 429 RATE_LIMITED with Retry-After and changes nothing', async () => {
    const put = (body: object) => call('cat', 'PUT', '/api/governance/delegation', body);
    assert.equal((await put({ delegate: people.ben!.principal })).statusCode, 200);
    assert.equal((await put({ delegate: people.ann!.principal, category: 'General' })).statusCode, 200);
    assert.equal((await call('cat', 'DELETE', '/api/governance/delegation?category=General')).statusCode, 200);
    const mine = (await call('cat', 'GET', '/api/governance/delegation')).json();
    h.advance(MINUTE_MS);
    assertLimited(await put({ delegate: people.ann!.principal }), HOUR_MS / 1000 - 60, 'the fourth change (a PUT)');
    const del = await call('cat', 'DELETE', '/api/governance/delegation');
    assertLimited(del, HOUR_MS / 1000 - 60, 'the fifth (a DELETE)');
    assert.match(del.json().message, /^at most 3 delegation changes per hour; try again in 3540 seconds$/);
    assert.deepEqual(
      (await call('cat', 'GET', '/api/governance/delegation')).json(),
      mine,
      'nothing changed; reading is not limited',
    );
    const seen = await refusals('delegation_changes');
    assert.deepEqual([seen.rows.length, seen.lines.length, seen.counted], [2, 2, 2]);
    assert.equal(
      (await call('ann', 'PUT', '/api/governance/delegation', { delegate: people.ben!.principal })).statusCode,
      200,
      'another member',
    );
    h.advance(HOUR_MS - MINUTE_MS);
    assert.equal((await put({ delegate: people.ann!.principal })).statusCode, 200, 'a new hour');
  });

  it('decision B93: MEMBER_SEARCH_LIMIT_PER_MINUTE searches a member a minute; the one past is 429 RATE_LIMITED with Retry-After; a query refused as too short does not count', async () => {
    const search = (who: string, q: string) => call(who, 'GET', `/api/members?q=${encodeURIComponent(q)}`);
    assert.equal((await search('ben', '  a ')).statusCode, 400, 'too short: refused, not counted');
    for (let i = 1; i <= 4; i++) assert.equal((await search('ben', `zz${i}`)).statusCode, 200, `search ${i} of 4`);
    h.advance(20_000);
    const over = await search('ben', 'zz5');
    assertLimited(over, 40, 'the fifth search in the minute');
    assert.match(over.json().message, /^at most 4 member searches per minute; try again in 40 seconds$/);
    const seen = await refusals('member_searches');
    assert.deepEqual([seen.rows.length, seen.lines.length, seen.counted], [1, 1, 1]);
    assert.equal((await search('cat', 'zz')).statusCode, 200, 'another member');
    h.advance(40_000);
    assert.equal((await search('ben', 'zz6')).statusCode, 200, 'a new minute');
  });
});
