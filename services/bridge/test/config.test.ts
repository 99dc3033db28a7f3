// Bridge configuration (repo promise: validated at start-up with every problem listed; documented in
// docs/reference/config-bridge.md, decision S29), and the admin view of mint failures raised by the user canister.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ConfigError } from '@domdao/config';
import { assertConfigReferenceDocuments } from '@domdao/test-helpers';
import { BridgeEnv } from '../src/config-schema.ts';
import { loadBridgeConfig } from '../src/config.ts';
import { ADMIN_EMAIL, bridge } from './harness.ts';

describe('bridge configuration', () => {
  it('docs/reference/config-bridge.md documents every bridge variable with its default', () =>
    assertConfigReferenceDocuments(BridgeEnv, 'bridge', '## Bridge service'));

  it('refuses bad values, all listed at once', () => {
    assert.throws(
      () => loadBridgeConfig({ PORT: 'eighty', SESSION_STORE: 'memcached' }),
      (e: unknown) => e instanceof ConfigError && e.problems.length === 2,
    );
    assert.throws(
      () =>
        loadBridgeConfig({
          SESSION_STORE: 'redis',
          COOKIE_DOMAIN: 'domdao.example',
          FRONTEND_ORIGINS: 'https://app.domdao.example/path,ftp://x',
          ACCESS_TOKEN: 'short',
        }),
      (e: unknown) =>
        e instanceof ConfigError &&
        ['SESSION_REDIS_URL', 'COOKIE_DOMAIN', 'ACCESS_TOKEN', 'FRONTEND_ORIGINS'].every((v) =>
          e.problems.some((p) => p.startsWith(v)),
        ),
    );
    assert.throws(
      () =>
        loadBridgeConfig({
          COOKIE_DOMAIN: 'domdao.example',
          FRONTEND_ORIGINS: 'https://app.domdao.example/path',
          ACCESS_TOKEN: 'short',
        }),
      (e: unknown) => e instanceof ConfigError && e.problems.length === 3,
    );
  });

  it('production requires explicit secrets, the cookie domain and PostgreSQL', () => {
    assert.throws(
      () => loadBridgeConfig({ NODE_ENV: 'production' }),
      (e: unknown) =>
        e instanceof ConfigError &&
        ['HPKE_PRIVATE_KEY', 'BLIND_INDEX_KEY', 'SESSION_DATA_KEY', 'COOKIE_DOMAIN', 'DATABASE_URL'].every((v) =>
          e.problems.some((p) => p.startsWith(v)),
        ),
    );
    assert.throws(
      () => loadBridgeConfig({ NODE_ENV: 'production', DEV_OUTBOX_FILE: '/tmp/outbox' }),
      (e: unknown) => e instanceof ConfigError && e.problems.some((p) => p.startsWith('DEV_OUTBOX_FILE')),
    );
    assert.equal(loadBridgeConfig({}).SESSION_STORE, 'database', 'embedded defaults need nothing');
  });
});

describe('the test harness with a refused configuration', () => {
  it('rejects with the configuration error and leaves no server of its own running', async () => {
    const servers = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;
    const before = servers();
    await assert.rejects(bridge(undefined, { SESSION_IDLE_MINUTES: 'soon' }), ConfigError);
    // A closed server's handle goes at the end of the event loop's turn.
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(servers(), before, 'the notification service and the provider recorder were closed');
  });
});

describe('admin notifications (spec 2 membership_mint_failed)', () => {
  it('admins read the mint failures the user canister raised after 10 attempts; others are refused', async () => {
    let down = false;
    const h = await bridge(
      undefined,
      {},
      {
        interceptCall: (_f, _t, method) => {
          if (down && method === 'mint_membership_registered') throw new Error('membership canister stopped');
        },
      },
    );
    after(() => h.close());
    const admin = await h.member(ADMIN_EMAIL);
    assert.deepEqual((await h.request({ method: 'GET', url: '/api/admin/notifications', jar: admin.jar })).json(), {
      notifications: [],
    });
    down = true;
    assert.equal((await h.register('unminted@example.org')).statusCode, 201);
    const verified = await h.verify('unminted@example.org');
    assert.match(verified.body, /being issued/);
    for (let attempt = 1; attempt < 10; attempt++) {
      const [item] = await h.opened.canisters.clients.user.list_retry_queue();
      h.advance(Number((item!.next_attempt - BigInt(h.now()) * 1_000_000n) / 1_000_000n) + 1);
      await h.opened.canisters.platform!.tick();
    }
    const { jar } = await h.login(ADMIN_EMAIL); // two days have passed: a fresh session
    const listed = await h.request({ method: 'GET', url: '/api/admin/notifications', jar });
    assert.equal(listed.statusCode, 200, listed.body);
    const [n] = listed.json().notifications;
    assert.deepEqual(
      [n.type, n.attempts, n.last_error],
      ['membership_mint_failed', 10, 'membership canister unavailable: membership canister stopped'],
    );
    assert.match(n.email_encrypted, /^hpke1\./);
    assert.match(n.user_id, /^[0-9a-f-]{36}$/);
    const member = await h.login('unminted@example.org');
    assert.equal(
      (await h.request({ method: 'GET', url: '/api/admin/notifications', jar: member.jar })).statusCode,
      403,
    );
  });
});

describe('development voting times (decision G45)', () => {
  it('decisions V32, V37, V38: LIVE_POLL_MS 100 to 60000, LIVE_HEARTBEAT_SECONDS 1 to 300, LIVE_MAX_STREAMS 1 to 100000, LIVE_ANONYMOUS_STREAMS_PERCENT 0 to 90, LIVE_STREAMS_PER_CLIENT 1 to 1000 and LIVE_MAX_BUFFER_BYTES 1024 to 16777216, each at its limits and one past', () => {
    const cases = [
      ['LIVE_POLL_MS', 100, 60_000],
      ['LIVE_HEARTBEAT_SECONDS', 1, 300],
      ['LIVE_MAX_STREAMS', 1, 100_000],
      ['LIVE_ANONYMOUS_STREAMS_PERCENT', 0, 90],
      ['LIVE_STREAMS_PER_CLIENT', 1, 1000],
      ['LIVE_MAX_BUFFER_BYTES', 1024, 16_777_216],
    ] as const;
    for (const [name, min, max] of cases) {
      for (const ok of [min, max]) assert.equal(loadBridgeConfig({ [name]: String(ok) })[name], ok, `${name}=${ok}`);
      for (const bad of [min - 1, max + 1])
        assert.throws(
          () => loadBridgeConfig({ [name]: String(bad) }),
          (e: unknown) => e instanceof ConfigError && e.problems.some((p) => p.startsWith(name)),
          `${name}=${bad}`,
        );
    }
  });

  it('DEV_VOTING_MINUTES: 0 to 1440 accepted, 1441 and -1 refused; refused in production', () => {
    assert.equal(loadBridgeConfig({}).DEV_VOTING_MINUTES, 0);
    assert.equal(loadBridgeConfig({ DEV_VOTING_MINUTES: '1440' }).DEV_VOTING_MINUTES, 1440);
    for (const bad of ['1441', '-1', 'ten'])
      assert.throws(
        () => loadBridgeConfig({ DEV_VOTING_MINUTES: bad }),
        (e: unknown) => e instanceof ConfigError && e.problems.some((p) => p.startsWith('DEV_VOTING_MINUTES')),
      );
    assert.throws(
      () => loadBridgeConfig({ NODE_ENV: 'production', DEV_VOTING_MINUTES: '10' }),
      (e: unknown) =>
        e instanceof ConfigError && e.problems.some((p) => p.startsWith('DEV_VOTING_MINUTES: development only')),
    );
  });

  it('refused with IC canisters (it acts on the embedded ones only), before anything is opened', async () => {
    await assert.rejects(
      bridge(undefined, { IC_GOVERNANCE_CANISTER_ID: 'rrkah-fqaaa-aaaaa-aaaaq-cai', DEV_VOTING_MINUTES: '10' }),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.problems.length === 1 &&
        e.problems[0]!.startsWith('DEV_VOTING_MINUTES: the embedded canisters only'),
    );
  });

  it('a proposal made through the bridge opens a minute later and closes DEV_VOTING_MINUTES after; /api/governance/settings says so', async () => {
    const h = await bridge(undefined, { DEV_VOTING_MINUTES: '10' });
    try {
      const settings = (await h.request({ method: 'GET', url: '/api/governance/settings' })).json() as {
        voting_delay: string;
        rules: Array<{ category: string; voting_window: string }>;
      };
      const MINUTE_NS = 60_000_000_000n;
      assert.equal(BigInt(settings.voting_delay), MINUTE_NS);
      assert.deepEqual(new Set(settings.rules.map((r) => BigInt(r.voting_window))), new Set([10n * MINUTE_NS]));
      const m = await h.member('fast-voter@domdao.example');
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
      const { jar } = await h.login('fast-voter@domdao.example');
      const r = await h.request({
        method: 'POST',
        url: '/api/governance/propose',
        payload: { title: 'Try the fast vote', body: 'Development.', category: 'General' },
        jar,
      });
      assert.equal(r.statusCode, 201, r.body);
      const p = r.json() as { voting_opens: string; voting_closes: string };
      assert.equal(Date.parse(p.voting_opens) - h.now(), 60_000);
      assert.equal(Date.parse(p.voting_closes) - Date.parse(p.voting_opens), 10 * 60_000);
    } finally {
      await h.close();
    }
  });
});
