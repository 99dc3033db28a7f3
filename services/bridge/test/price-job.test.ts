// The price-proposal job (decisions O16–O23) on the jobs seam, with
// local fake price sources and the embedded canisters: stale → no proposal; first price; pending
// skip; min-change skip; heartbeat submit; change submit; every run visible to admins; the admin
// trigger's authorisation and rules; two bridge instances → one proposal; the start-up heartbeat check.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '@domdao/service-kit';
import { notificationClientFromEnv } from '@domdao/notification-client';
import { buildApp } from '../src/compose/app.ts';
import { databaseSessionStore } from '../src/core/auth/session-store.ts';
import { openDatabase } from '../src/core/db/connect.ts';
import { loadKeys } from '../src/core/keys.ts';
import type { JobRun } from '../src/core/jobs/types.ts';
import { PRICE_JOB } from '../src/features/price-job/routes.ts';
import { ADMIN_EMAIL, BACKENDS, bridge, type Bridge } from './harness.ts';
import { startFakeSources, type FakeSources } from './oracle-fakes.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const TOKEN = 'price-job-api-token-0123456789';

export function priceEnv(fake: FakeSources, extra: Record<string, string> = {}): Record<string, string> {
  const src = (name: string) => ({
    kind: 'json-http',
    name,
    weight: 1,
    url: fake.url(`/${name}`),
    price_pointer: '/price',
    timeout_ms: 1000,
    max_age_seconds: 60,
  });
  return {
    PRICE_SOURCES: JSON.stringify([src('a'), src('b')]),
    // Polls are driven by the tests; the aggregate stays fresh across the days they move the clock.
    PRICE_POLL_SECONDS: '3600',
    PRICE_STALENESS_SECONDS: String(7 * 86_400),
    PRICE_PROPOSAL_INTERVAL_SECONDS: '3600',
    API_TOKEN: TOKEN,
    ...extra,
  };
}

export function setPrice(fake: FakeSources, price: number | null) {
  for (const s of ['a', 'b'])
    fake.set(`/${s}`, price === null ? { status: 503, body: { error: 'down' } } : { body: { price } });
}

/** Runs the job's current slot and returns that run (the tests' bridges have no job timer of their own). */
export async function slotRun(h: Bridge): Promise<JobRun> {
  await h.app.jobs.tick();
  const [run] = await h.app.jobs.runs({ job: PRICE_JOB, limit: 1 });
  return run!;
}

async function activeMember(h: Bridge, email: string) {
  const m = await h.member(email);
  const c = h.opened.canisters.clients;
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
  return { ...m, email, principal };
}

/** Opens the proposal (voting delay), votes through the gateway, closes the window and executes through POST /api/governance/execute. */
export async function ratify(
  h: Bridge,
  id: string,
  voters: { email: string }[],
  vote: 'Yes' | 'No' = 'Yes',
  beforeExecute?: () => Promise<void>,
): Promise<string> {
  h.advance(HOUR + 1_000);
  await h.opened.canisters.platform!.tick();
  for (const v of voters) {
    const { jar } = await h.login(v.email);
    const r = await h.request({ method: 'POST', url: '/api/governance/vote', payload: { proposal_id: id, vote }, jar });
    assert.equal(r.statusCode, 200, r.body);
  }
  h.advance(3 * DAY);
  // Approved once the window has closed (derived on read); executed through the gateway, not the timer.
  await beforeExecute?.();
  const { jar } = await h.login(voters[0]!.email);
  const r = await h.request({ method: 'POST', url: '/api/governance/execute', payload: { proposal_id: id }, jar });
  if (vote === 'No') {
    assert.equal(r.statusCode, 409);
    await h.opened.canisters.platform!.tick();
    return (await h.opened.canisters.clients.governance.get_proposal(BigInt(id)))!.status;
  }
  assert.equal(r.statusCode, 200, r.body);
  assert.deepEqual(r.json(), { proposal_id: id, status: 'Executed' });
  return 'Executed';
}

const submit = (h: Bridge, headers: Record<string, string> = { 'x-api-token': TOKEN }) =>
  h.request({ method: 'POST', url: '/api/admin/price/submit-proposal', headers, origin: null });

describe('price-proposal job (decisions O16–O23)', () => {
  let fake: FakeSources;
  let h: Bridge;
  let alice: Awaited<ReturnType<typeof activeMember>>;
  const proposals = async () =>
    (await h.opened.canisters.clients.governance.list_proposals({ category: 'SetDomPrice', limit: 100 })).map((p) => ({
      id: String(p.id),
      status: p.status,
      payload: p.payload,
    }));

  before(async () => {
    fake = await startFakeSources();
    setPrice(fake, null);
    h = await bridge(undefined, priceEnv(fake), { jobTimer: false }); // slots run by the tests (see the two-instance test)
    await h.app.ready();
    await h.app.priceOracle.pollNow();
    alice = await activeMember(h, 'alice-price@domdao.example');
    await h.member(ADMIN_EMAIL);
  });
  after(async () => {
    await h.close();
    await fake.close();
  });

  it('no aggregate (every source down) → skipped, nothing proposed (O17 rule 1)', async () => {
    h.advance(HOUR);
    const run = await slotRun(h);
    assert.deepEqual([run.status, run.detail?.reason, run.detail?.action], ['skipped', 'no_aggregate', 'skip']);
    assert.deepEqual(await proposals(), []);
  });

  it('first aggregate, nothing ratified → SetDomPrice submitted citing the stored record (O17 rule 4, O21)', async () => {
    setPrice(fake, 0.25);
    const poll = await h.app.priceOracle.pollNow();
    assert.ok(poll.ok);
    h.advance(HOUR);
    const run = await slotRun(h);
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    const d = run.detail as {
      reason: string;
      proposal_id: string;
      source_url: string;
      price_usd: number;
      aggregate: { record_id: number };
    };
    assert.equal(d.reason, 'no_ratified_price');
    assert.equal(d.source_url, `https://bridge.domdao.example/api/price/dom-usd/records/${poll.record_id}`);
    const [p] = await proposals();
    assert.deepEqual(p, {
      id: d.proposal_id,
      status: 'Created',
      payload: { SetDomPrice: { price_usd: 0.25, source_url: d.source_url } },
    });
    // The cited record is served by the bridge.
    const rec = await h.request({ method: 'GET', url: new URL(d.source_url).pathname });
    assert.equal(rec.statusCode, 200);
    assert.equal(rec.json().price_usd, 0.25);
    const view = (await h.request({ method: 'GET', url: `/api/governance/proposals/${d.proposal_id}` })).json() as {
      body: string;
      proposed_by: string;
    };
    assert.match(view.body, /0\.25 USD/);
    assert.equal(view.proposed_by, h.opened.canisters.principal, 'proposed by the bridge (a trusted proposer)');
  });

  it('a SetDomPrice still pending → skipped, naming it, even for a big move (O17 rule 3)', async () => {
    setPrice(fake, 0.4);
    await h.app.priceOracle.pollNow();
    h.advance(HOUR);
    const run = await slotRun(h);
    const [pending] = await proposals();
    assert.deepEqual(
      [run.status, run.detail?.reason, run.detail?.pending_proposal_id],
      ['skipped', 'pending_proposal', pending!.id],
    );
    assert.equal((await proposals()).length, 1);
  });

  it('ratified through the gateway; then a change below PRICE_PROPOSAL_MIN_CHANGE_PCT is skipped (O17 rules 3 and 6, O20); while Approved and not yet executed it still counts as pending', async () => {
    setPrice(fake, 0.25);
    await h.app.priceOracle.pollNow();
    const [p] = await proposals();
    const approvedButNotExecuted = async () => {
      assert.equal((await proposals())[0]!.status, 'Approved');
      h.advance(HOUR);
      const run = await slotRun(h);
      assert.deepEqual(
        [run.status, run.detail?.reason, run.detail?.pending_proposal_id],
        ['skipped', 'pending_proposal', p!.id],
      );
    };
    // O17 rule 3: Approved is not terminal; a second proposal now could race the first's execution.
    assert.equal(await ratify(h, p!.id, [alice], 'Yes', approvedButNotExecuted), 'Executed');
    const price = (await h.request({ method: 'GET', url: '/api/governance/price' })).json() as {
      price_usd: number;
      proposal_id: string;
    };
    assert.deepEqual([price.price_usd, price.proposal_id], [0.25, p!.id]);
    setPrice(fake, 0.2545); // +1.8 %
    await h.app.priceOracle.pollNow();
    h.advance(HOUR);
    const run = await slotRun(h);
    assert.deepEqual([run.status, run.detail?.reason], ['skipped', 'below_min_change']);
    assert.ok(Math.abs((run.detail!.change_pct as number) - 1.8) < 1e-6);
  });

  it('heartbeat: an unchanged price is proposed once the ratified one is PRICE_PROPOSAL_HEARTBEAT_HOURS old, not before (O17 rule 6)', async () => {
    const tick = (await h.opened.canisters.clients.governance.get_dom_price())!;
    const effective = Number(tick.timestamp / 1_000_000n);
    h.advance(effective + 120 * HOUR - HOUR - h.now() - 1); // one slot before the heartbeat is due
    let run = await slotRun(h);
    assert.deepEqual([run.detail?.reason], ['below_min_change']);
    h.advance(HOUR + 1);
    run = await slotRun(h);
    assert.deepEqual([run.status, run.detail?.reason], ['succeeded', 'heartbeat']);
    assert.equal(
      ((await proposals())[0]!.payload as { SetDomPrice: { price_usd: number } }).SetDomPrice.price_usd,
      0.2545,
    );
  });

  it('a rejected proposal frees the way; a move of at least the minimum change is proposed (O17 rule 5)', async () => {
    const [p] = await proposals();
    assert.equal(await ratify(h, p!.id, [alice], 'No'), 'Rejected');
    setPrice(fake, 0.2625); // +5 % from the ratified 0.25
    await h.app.priceOracle.pollNow();
    h.advance(HOUR);
    const run = await slotRun(h);
    assert.deepEqual([run.status, run.detail?.reason], ['succeeded', 'change']);
    assert.ok(Math.abs((run.detail!.change_pct as number) - 5) < 1e-6);
  });

  it('admin trigger: 401 absent or wrong X-API-Token; pending → 409 PROPOSAL_PENDING; recorded as a manual run (O22)', async () => {
    assert.equal((await submit(h, {})).statusCode, 401);
    const wrong = await submit(h, { 'x-api-token': `${TOKEN}x` });
    assert.deepEqual([wrong.statusCode, wrong.json().error], [401, 'UNAUTHORIZED']);
    assert.equal((await submit(h, { 'x-api-token': TOKEN.slice(0, -1) })).statusCode, 401);
    const r = await submit(h);
    assert.deepEqual([r.statusCode, r.json().error], [409, 'PROPOSAL_PENDING']);
    const [run] = await h.app.jobs.runs({ job: PRICE_JOB, limit: 1 });
    assert.deepEqual([run!.trigger, run!.status, run!.detail?.reason], ['manual', 'skipped', 'pending_proposal']);
  });

  it('admin trigger ignores only the minimum change: after ratification an unchanged price gets 201 with Location (O18)', async () => {
    const [p] = await proposals();
    assert.equal(await ratify(h, p!.id, [alice]), 'Executed');
    await h.app.priceOracle.pollNow();
    const r = await submit(h);
    assert.equal(r.statusCode, 201, r.body);
    const b = r.json() as {
      submitted: boolean;
      proposal_id: string;
      price_usd: number;
      source_url: string;
      run: JobRun;
    };
    assert.deepEqual(
      [b.submitted, b.price_usd, b.run.trigger, b.run.detail?.reason],
      [true, 0.2625, 'manual', 'manual'],
    );
    assert.equal(r.headers.location, `/api/governance/proposals/${b.proposal_id}`);
    assert.equal((await proposals())[0]!.id, b.proposal_id);
  });

  it('stale aggregate → no proposal, by schedule or by admin (spec 1 Price feed behaviour; O17 rule 2)', async () => {
    const before = (await proposals()).length;
    h.advance(8 * DAY); // past PRICE_STALENESS_SECONDS without a poll
    assert.equal((await h.request({ method: 'GET', url: '/api/price/dom-usd' })).json().stale, true);
    const run = await slotRun(h);
    assert.deepEqual([run.status, run.detail?.reason], ['skipped', 'stale']);
    const r = await submit(h);
    assert.deepEqual([r.statusCode, r.json().error], [409, 'PRICE_STALE']);
    assert.equal((await proposals()).length, before);
  });

  it('every run is visible to admins at GET /api/admin/jobs/runs?job=price:proposal (O23)', async () => {
    const { jar } = await h.login(ADMIN_EMAIL);
    const r = await h.request({ method: 'GET', url: `/api/admin/jobs/runs?job=${PRICE_JOB}&limit=200`, jar });
    assert.equal(r.statusCode, 200, r.body);
    const reasons = (r.json() as { items: JobRun[] }).items.map((x) => x.detail?.reason).filter(Boolean);
    for (const reason of [
      'no_aggregate',
      'no_ratified_price',
      'pending_proposal',
      'below_min_change',
      'heartbeat',
      'change',
      'manual',
      'stale',
    ])
      assert.ok(reasons.includes(reason), `${reason} in ${reasons.join(',')}`);
    const member = await h.login('alice-price@domdao.example');
    assert.equal(
      (await h.request({ method: 'GET', url: `/api/admin/jobs/runs?job=${PRICE_JOB}`, jar: member.jar })).statusCode,
      403,
    );
  });
});

type AuditRow = { event: string; actor: string; outcome: string; detail: Record<string, unknown> };
/** The audit rows of one event, newest first, as an admin reads them (GET /api/admin/audit). */
async function audited(h: Bridge, jar: { cookie?: string }, event: string): Promise<AuditRow[]> {
  const r = await h.request({ method: 'GET', url: `/api/admin/audit?event=${event}&limit=200`, jar });
  assert.equal(r.statusCode, 200, r.body);
  return (r.json() as { items: AuditRow[] }).items;
}

describe('price-proposal job: the console runs it with an admin session (decision B78)', () => {
  it('decision B78: admin session → 201 audited with the admin as actor; member → 403, no session → 401, foreign or missing Origin → 403 CSRF_REJECTED, each audited and nothing run', async () => {
    const fake = await startFakeSources();
    setPrice(fake, 0.25);
    const h = await bridge(undefined, priceEnv(fake), { jobTimer: false });
    try {
      await h.app.ready();
      await h.app.priceOracle.pollNow();
      const admin = await h.member(ADMIN_EMAIL);
      const member = await h.member('member-price-button@domdao.example');
      const runs = async () => (await h.app.jobs.runs({ job: PRICE_JOB, limit: 200 })).length;
      const post = (jar: { cookie?: string } | undefined, origin?: string | null) =>
        h.request({
          method: 'POST',
          url: '/api/admin/price/submit-proposal',
          ...(jar && { jar }),
          ...(origin !== undefined && { origin }),
        });

      // Refused: nothing runs, and each refusal is in the audit log.
      const byMember = await post(member.jar);
      assert.deepEqual([byMember.statusCode, byMember.json().error], [403, 'FORBIDDEN']);
      const anonymous = await post(undefined);
      assert.deepEqual([anonymous.statusCode, anonymous.json().error], [401, 'UNAUTHORIZED']);
      assert.match(anonymous.json().message, /sign in as an administrator, or send X-API-Token/);
      const foreign = await post(admin.jar, 'https://evil.example');
      assert.deepEqual([foreign.statusCode, foreign.json().error], [403, 'CSRF_REJECTED']);
      const noOrigin = await post(admin.jar, null);
      assert.deepEqual([noOrigin.statusCode, noOrigin.json().error], [403, 'CSRF_REJECTED']);
      assert.equal(await runs(), 0, 'no refused request ran the job');
      const denied = (await audited(h, admin.jar, 'admin.access_denied')).filter(
        (r) => r.detail.route === '/api/admin/price/submit-proposal',
      );
      assert.deepEqual(
        denied.map((r) => [r.actor, r.detail.status, r.detail.error]),
        [
          ['anonymous', 401, 'UNAUTHORIZED'],
          [member.user_id, 403, 'FORBIDDEN'],
        ],
      );
      const csrf = (await audited(h, admin.jar, 'auth.csrf_refused')).filter(
        (r) => r.detail.route === '/api/admin/price/submit-proposal',
      );
      assert.deepEqual(
        csrf.map((r) => r.detail.origin),
        ['absent', 'https://evil.example'],
      );

      // The admin's session from the front end's origin runs it: 201 with the run, audited as the admin.
      const ok = await post(admin.jar);
      assert.equal(ok.statusCode, 201, ok.body);
      const body = ok.json() as { submitted: boolean; proposal_id: string; run: JobRun };
      assert.deepEqual(
        [body.submitted, body.run.status, body.run.trigger, body.run.detail?.reason],
        [true, 'succeeded', 'manual', 'no_ratified_price'],
      );
      assert.equal(ok.headers.location, `/api/governance/proposals/${body.proposal_id}`);
      // Again: a SetDomPrice is pending, so the run is skipped and the answer says why (decision O22).
      const again = await post(admin.jar);
      assert.deepEqual([again.statusCode, again.json().error], [409, 'PROPOSAL_PENDING']);
      assert.match(
        again.json().message,
        new RegExp(`SetDomPrice proposal ${body.proposal_id} is still pending \\(run \\d+\\)`),
      );
      // The token still works, and decides alone when a cookie comes with it (no cross-site check for a header a page
      // cannot set).
      const token = await h.request({
        method: 'POST',
        url: '/api/admin/price/submit-proposal',
        headers: { 'x-api-token': TOKEN },
        jar: member.jar,
        origin: 'https://evil.example',
      });
      assert.deepEqual([token.statusCode, token.json().error], [409, 'PROPOSAL_PENDING']);
      const wrong = await h.request({
        method: 'POST',
        url: '/api/admin/price/submit-proposal',
        headers: { 'x-api-token': `${TOKEN}x` },
        jar: admin.jar,
      });
      assert.deepEqual(
        [wrong.statusCode, wrong.json().error],
        [401, 'UNAUTHORIZED'],
        'a wrong token is refused even beside an admin session',
      );
      const triggered = await audited(h, admin.jar, 'price.proposal_triggered');
      assert.deepEqual(
        triggered.map((r) => [r.actor, r.outcome, r.detail.status, r.detail.reason ?? null]),
        [
          ['api-token', 'failure', 'skipped', 'pending_proposal'],
          [admin.user_id, 'failure', 'skipped', 'pending_proposal'],
          [admin.user_id, 'success', 'succeeded', 'no_ratified_price'],
        ],
      );
      assert.equal(triggered[2]!.detail.proposal_id, body.proposal_id);
      assert.equal(triggered[2]!.detail.run_id, body.run.id);
      // An ended session is no session.
      const cookie = admin.jar.cookie;
      assert.equal((await h.request({ method: 'POST', url: '/auth/logout', jar: admin.jar })).statusCode, 200);
      const ended = await post({ cookie });
      assert.deepEqual([ended.statusCode, ended.json().error], [401, 'UNAUTHORIZED']);
    } finally {
      await h.close();
      await fake.close();
    }
  });

  it('decision B78: with API_TOKEN unset an admin session still runs it; a request sending X-API-Token gets 503, one sending nothing 401', async () => {
    const fake = await startFakeSources();
    setPrice(fake, 0.25);
    const env = priceEnv(fake);
    delete env.API_TOKEN;
    const h = await bridge(undefined, env, { jobTimer: false });
    try {
      await h.app.ready();
      await h.app.priceOracle.pollNow();
      const admin = await h.member(ADMIN_EMAIL);
      const r = await h.request({ method: 'POST', url: '/api/admin/price/submit-proposal', jar: admin.jar });
      assert.equal(r.statusCode, 201, r.body);
      assert.equal((await h.request({ method: 'POST', url: '/api/admin/price/submit-proposal' })).statusCode, 401);
      const token = await h.request({
        method: 'POST',
        url: '/api/admin/price/submit-proposal',
        headers: { 'x-api-token': TOKEN },
        jar: admin.jar,
      });
      assert.deepEqual([token.statusCode, token.json().error], [503, 'NOT_CONFIGURED']);
    } finally {
      await h.close();
      await fake.close();
    }
  });
});

describe('price-proposal job: configuration (O19, O22)', () => {
  it('API_TOKEN unset → 503 NOT_CONFIGURED', async () => {
    const fake = await startFakeSources();
    const env = priceEnv(fake);
    delete env.API_TOKEN;
    const h = await bridge(undefined, env);
    try {
      const r = await submit(h);
      assert.deepEqual([r.statusCode, r.json().error], [503, 'NOT_CONFIGURED']);
    } finally {
      await h.close();
      await fake.close();
    }
  });

  it('a heartbeat leaving no room for ratification fails the start, naming the largest allowed', async () => {
    const fake = await startFakeSources();
    // 240 h lifetime − (1 h delay + 72 h SetDomPrice window + 1 h margin) = 166 h at most.
    const h = await bridge(undefined, priceEnv(fake, { PRICE_PROPOSAL_HEARTBEAT_HOURS: '167' }));
    try {
      await assert.rejects(async () => void (await h.app.ready()), /PRICE_PROPOSAL_HEARTBEAT_HOURS: .*i\.e\. 166 h/);
    } finally {
      await h.close().catch(() => undefined);
      await fake.close();
    }
  });
});

describe('price-proposal job: two bridge instances (decisions V16, V17)', () => {
  it('two instances on one PostgreSQL database and one set of canisters: one proposal per due run, and one for two simultaneous admin triggers', async () => {
    const fake = await startFakeSources();
    setPrice(fake, null);
    // Only the test's ticks run scheduled slots (jobTimer: false): the test jumps the fake clock by hours
    // and days, and a run an instance's own timer had in flight would lose its lease, timed by that
    // clock, mid-run (a jump no real clock makes). The two instances still race for every slot and for
    // the lease: both tick at once, and both admin triggers arrive at once.
    const h = await bridge(
      BACKENDS.find((b) => b.db === 'postgres' && b.sessions === 'database'),
      priceEnv(fake),
      { jobTimer: false },
    );
    // The second instance: its own pool on the same database, the same canisters, built the production way.
    const database = await openDatabase({ url: h.config.DATABASE_URL });
    const log = createLogger('silent', 'bridge', 'test');
    const second = await buildApp({
      config: h.config,
      db: database.db,
      sessionStore: databaseSessionStore(database.db, database.pool),
      canisters: h.opened.canisters,
      notifier: notificationClientFromEnv(log.logger, {}),
      keys: await loadKeys(h.config),
      log,
      now: h.now,
      jobTimer: false,
    });
    try {
      await Promise.all([h.app.ready(), second.ready()]);
      setPrice(fake, 0.3);
      await Promise.all([h.app.priceOracle.pollNow(), second.priceOracle.pollNow()]);
      await Promise.all([h.app.jobs.tick(), second.jobs.tick(), h.app.jobs.tick(), second.jobs.tick()]);
      for (let i = 0; i < 3; i++) {
        h.advance(HOUR);
        await Promise.all([h.app.jobs.tick(), second.jobs.tick(), h.app.jobs.tick(), second.jobs.tick()]);
      }
      const gov = h.opened.canisters.clients.governance;
      let setPrices = await gov.list_proposals({ category: 'SetDomPrice', limit: 100 });
      const runs = await h.app.jobs.runs({ job: PRICE_JOB, limit: 100 });
      const seen = JSON.stringify(runs.map((r) => [r.slot, r.status, r.detail?.reason ?? r.error]));
      assert.equal(setPrices.length, 1, `one SetDomPrice proposal; runs: ${seen}`);
      const scheduled = runs.filter((r) => r.trigger === 'schedule');
      assert.equal(new Set(scheduled.map((r) => r.slot)).size, scheduled.length, `one run per slot: ${seen}`);
      // Newest first: the first slot after the poll submitted, the next three found it pending.
      assert.deepEqual(
        scheduled.map((r) => [r.status, r.detail?.reason]),
        [
          ['skipped', 'pending_proposal'],
          ['skipped', 'pending_proposal'],
          ['skipped', 'pending_proposal'],
          ['succeeded', 'no_ratified_price'],
        ],
        seen,
      );
      assert.ok(
        runs.every((r) => r.status !== 'running'),
        seen,
      );
      // Ratified, then two admins trigger at once on the two instances: one proposal, the other is told why.
      const alice = await activeMember(h, 'alice-two@domdao.example');
      assert.equal(await ratify(h, String(setPrices[0]!.id), [alice]), 'Executed');
      await h.app.priceOracle.pollNow();
      const both = await Promise.all(
        [h.app, second].map((app) =>
          app.inject({ method: 'POST', url: '/api/admin/price/submit-proposal', headers: { 'x-api-token': TOKEN } }),
        ),
      );
      assert.deepEqual(both.map((r) => r.statusCode).sort(), [201, 409], both.map((r) => r.body).join(' | '));
      assert.equal(both.find((r) => r.statusCode === 409)!.json().error, 'PROPOSAL_PENDING');
      setPrices = await gov.list_proposals({ category: 'SetDomPrice', limit: 100 });
      assert.equal(setPrices.length, 2);
    } finally {
      await second.close();
      await database.close();
      await h.close();
      await fake.close();
    }
  });
});

describe('the whole chain through HTTP (decisions O16–O23, V8–V12)', () => {
  it('sources → job → SetDomPrice → members vote through the gateway → execute → GET the ratified price → a USD contribution valued at it', async () => {
    const fake = await startFakeSources();
    setPrice(fake, null);
    const h = await bridge(undefined, priceEnv(fake), { jobTimer: false });
    try {
      await h.app.ready();
      const alice = await activeMember(h, 'alice-chain@domdao.example');
      const bob = await activeMember(h, 'bob-chain@domdao.example');
      setPrice(fake, 0.5);
      const poll = await h.app.priceOracle.pollNow();
      assert.ok(poll.ok);
      h.advance(HOUR);
      const run = await slotRun(h);
      assert.equal(run.detail?.reason, 'no_ratified_price');
      const id = run.detail.proposal_id as string;
      assert.equal(await ratify(h, id, [alice, bob]), 'Executed');
      const price = await h.request({ method: 'GET', url: '/api/governance/price' });
      assert.equal(price.statusCode, 200);
      const ratified = price.json() as { price_usd: number; proposal_id: string; effective_at: string };
      assert.deepEqual(
        [ratified.price_usd, ratified.proposal_id, ratified.effective_at],
        [0.5, id, new Date(h.now()).toISOString()],
        'in force from its execution',
      );
      // No campaign HTTP route yet (another part of the bridge): the member's own canister client.
      const platform = h.opened.canisters.platform!;
      const campaign = platform.as(alice.principal).campaign;
      // Real DOM (decision L11): minted by governance (the minting account), approved for the campaign canister.
      await platform
        .as(platform.ids.governance)
        .ledger.icrc1_transfer({ to: { owner: alice.principal }, amount: 100n * 100_000_000n });
      await platform
        .as(alice.principal)
        .ledger.icrc2_approve({ spender: { owner: platform.ids.campaign }, amount: 50n * 100_000_000n });
      const created = await campaign.create_campaign({
        title: 'Garden',
        description: 'Seeds',
        goal: { UsdValue: 1000 },
        deadline: BigInt(h.now() + 30 * DAY) * 1_000_000n,
      });
      assert.ok('Ok' in created, 'Err' in created ? Object.keys(created.Err).join() : '');
      const c = await campaign.contribute(created.Ok, { Usd: 10 });
      assert.ok('Ok' in c, 'Err' in c ? Object.keys(c.Err).join() : '');
      assert.equal(c.Ok.amount_e8s, 2_000_000_000n, '10 USD at 0.5 USD/DOM = 20 DOM');
      assert.deepEqual([c.Ok.usd_value, String(c.Ok.price_tick_id)], [10, id]);
    } finally {
      await h.close();
      await fake.close();
    }
  });
});
