// Beyond spec 3: Idempotency-Key (decision D9). Same behaviour with the in-process store and Redis.
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { redisUrlForTests, requireRedis, startPrivateRedis, uniquePrefix } from '@domdao/test-helpers';
import type { Redis } from 'ioredis';
import { memoryIdempotencyStore } from '../src/idempotency/memory.ts';
import { redisIdempotencyStore } from '../src/idempotency/redis.ts';
import { storageKey, type StoredResult } from '../src/idempotency/store.ts';
import { makeServiceWithProvider, validBody } from './harness.ts';

let redis: Redis;
/** The real setTimeout, taken before a test fakes it. */
const realSetTimeout = globalThis.setTimeout;

/**
 * Moves the test's clock on by `stepMs` at a time (timers faked with t.mock.timers) until `promise`
 * settles: a command waiting on a stopped server times out only on this clock. The real wait between
 * steps lets the service's I/O go on; the 60 s of real time is a hang guard (the work is a few ms).
 */
async function passTimeUntil<T>(t: TestContext, promise: Promise<T>, stepMs: number, hung: string): Promise<T> {
  let settled = false;
  const watched = promise.finally(() => (settled = true));
  watched.catch(() => undefined);
  const started = performance.now();
  while (!settled) {
    if (performance.now() - started > 60_000) throw new Error(`no answer within 60 s of real time: ${hung}`);
    t.mock.timers.tick(stepMs);
    await new Promise((resolve) => realSetTimeout(resolve, 10));
  }
  return watched;
}

before(async () => (redis = await requireRedis()));
after(() => redis.quit());

for (const store of ['memory', 'redis'] as const) {
  describe(`Idempotency-Key with the ${store} store`, () => {
    const prefix = uniquePrefix('idem');
    const env = store === 'redis' ? { IDEMPOTENCY_REDIS_URL: redisUrlForTests, IDEMPOTENCY_KEY_PREFIX: prefix } : {};
    let p: Awaited<ReturnType<typeof makeServiceWithProvider>>;
    let calls = 0;
    before(async () => {
      p = await makeServiceWithProvider(env, () => ({ status: 200, body: { id: `provider-${++calls}` } }));
    });
    after(async () => {
      if (store === 'redis') {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(...keys);
      }
      await p.close();
    });

    it('a repeat with the same key and body returns the first result and sends nothing again', async () => {
      const key = `order-${store}-1`;
      const first = await p.send(validBody('welcome'), { 'idempotency-key': key });
      const sentBefore = p.provider.requests.length;
      const second = await p.send(validBody('welcome'), { 'idempotency-key': key });
      assert.equal(first.statusCode, 200);
      assert.equal(second.statusCode, 200);
      assert.equal(second.json().id, first.json().id);
      assert.equal(second.json().stubbed, false);
      assert.equal(second.headers['idempotent-replayed'], 'true');
      assert.equal(first.headers['idempotent-replayed'], undefined);
      assert.equal(p.provider.requests.length, sentBefore, 'the provider was not called again');
      // request_id stays this request's correlation id (spec 3 correlation rule 1).
      assert.equal(second.json().request_id, second.headers['x-request-id']);
      assert.notEqual(second.json().request_id, first.json().request_id);
      assert.ok(
        p.logs.events('email.idempotent_replay').some((e) => e.original_request_id === first.json().request_id),
      );
    });

    it('the same key with a different body is 422 idempotency_key_reused and sends nothing', async () => {
      const key = `order-${store}-2`;
      await p.send(validBody('welcome'), { 'idempotency-key': key });
      const n = p.provider.requests.length;
      const res = await p.send(validBody('welcome', { to: 'eve@example.com' }), { 'idempotency-key': key });
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().error, 'idempotency_key_reused');
      assert.equal(p.provider.requests.length, n);
    });

    it('a concurrent repeat while the first is in flight is 409 idempotency_conflict; exactly one email goes out', async (t) => {
      // The first send is held at the provider until the repeat has its answer: in flight by an event, not by 100 ms
      // against 400.
      let reached!: () => void;
      const atProvider = new Promise<void>((resolve) => (reached = resolve));
      let answer!: () => void;
      const answered = new Promise<void>((resolve) => (answer = resolve));
      const slow = await makeServiceWithProvider(env, async () => {
        reached();
        await answered;
        return { status: 200, body: { id: 'slow-1' } };
      });
      t.after(() => slow.close());
      const key = `order-${store}-3`;
      const first = slow.send(validBody('welcome'), { 'idempotency-key': key });
      await atProvider;
      const b = await slow.send(validBody('welcome'), { 'idempotency-key': key });
      answer();
      const a = await first;
      assert.equal(a.statusCode, 200);
      assert.equal(b.statusCode, 409);
      assert.equal(b.json().error, 'idempotency_conflict');
      assert.equal(slow.provider.requests.length, 1);
    });

    it('a failed send releases the key, so the caller can retry under it', async (t) => {
      let fail = true;
      const flaky = await makeServiceWithProvider(env, () =>
        fail ? { status: 500, body: 'down' } : { status: 200, body: { id: 'second-time' } },
      );
      t.after(() => flaky.close());
      const key = `order-${store}-4`;
      assert.equal((await flaky.send(validBody('welcome'), { 'idempotency-key': key })).statusCode, 500);
      fail = false;
      const retry = await flaky.send(validBody('welcome'), { 'idempotency-key': key });
      assert.equal(retry.statusCode, 200);
      assert.equal(retry.json().id, 'second-time');
    });

    it('a validation error is not remembered: the corrected request may use the same key', async () => {
      const key = `order-${store}-5`;
      assert.equal((await p.send(validBody('welcome', { to: 'bad' }), { 'idempotency-key': key })).statusCode, 400);
      assert.equal((await p.send(validBody('welcome'), { 'idempotency-key': key })).statusCode, 200);
    });

    it('keys of other services’ requests do not collide: a different key sends again', async () => {
      const n = p.provider.requests.length;
      await p.send(validBody('welcome'), { 'idempotency-key': `order-${store}-6a` });
      await p.send(validBody('welcome'), { 'idempotency-key': `order-${store}-6b` });
      assert.equal(p.provider.requests.length, n + 2);
    });
  });
}

describe('Idempotency-Key shared by two replicas through Redis', () => {
  it('a repeat sent to the other replica is replayed, not sent twice', async (t) => {
    const prefix = uniquePrefix('idem-replicas');
    const env = { IDEMPOTENCY_REDIS_URL: redisUrlForTests, IDEMPOTENCY_KEY_PREFIX: prefix };
    const a = await makeServiceWithProvider(env, () => ({ status: 200, body: { id: 'from-a' } }));
    t.after(() => a.close());
    const b = await makeServiceWithProvider(env, () => ({ status: 200, body: { id: 'from-b' } }));
    t.after(() => b.close());
    const first = await a.send(validBody('welcome'), { 'idempotency-key': 'shared-1' });
    const second = await b.send(validBody('welcome'), { 'idempotency-key': 'shared-1' });
    assert.equal(second.json().id, 'from-a');
    assert.equal(first.json().id, 'from-a');
    assert.equal(b.provider.requests.length, 0);
    const keys = await redis.keys(`${prefix}*`);
    assert.equal(keys.length, 1, 'the key is stored hashed under the prefix');
    assert.ok(!keys[0]!.includes('shared-1'));
    assert.ok((await redis.ttl(keys[0]!)) > 86_000, '24-hour lifetime');
    await redis.del(...keys);
  });
});

describe('Idempotency-Key format', () => {
  let p: Awaited<ReturnType<typeof makeServiceWithProvider>>;
  before(async () => (p = await makeServiceWithProvider()));
  after(() => p.close());
  for (const [why, key] of [
    ['over 255 characters', 'k'.repeat(256)],
    ['with a space', 'a b'],
    ['non-ASCII', 'clé'],
  ] as const) {
    it(`${why} is 400 invalid_request naming Idempotency-Key, and nothing is sent`, async () => {
      const res = await p.send(validBody('welcome'), { 'idempotency-key': key });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().details[0].field, 'Idempotency-Key');
      assert.equal(p.provider.requests.length, 0);
    });
  }
});

describe('in-process store bound (IDEMPOTENCY_MAX_ENTRIES)', () => {
  it('past the bound the oldest key is forgotten (it sends again); recent keys are still replayed', async (t) => {
    const p = await makeServiceWithProvider({ IDEMPOTENCY_MAX_ENTRIES: '100' });
    t.after(() => p.close());
    for (let i = 0; i < 101; i++)
      assert.equal((await p.send(validBody('welcome'), { 'idempotency-key': `bound-${i}` })).statusCode, 200);
    assert.equal(p.provider.requests.length, 101);
    const recent = await p.send(validBody('welcome'), { 'idempotency-key': 'bound-100' });
    assert.equal(recent.headers['idempotent-replayed'], 'true');
    assert.equal(p.provider.requests.length, 101);
    const oldest = await p.send(validBody('welcome'), { 'idempotency-key': 'bound-0' });
    assert.equal(oldest.headers['idempotent-replayed'], undefined);
    assert.equal(p.provider.requests.length, 102);
  });
});

// The lifetimes at their exact ends (decisions D9, D47): a remembered send for IDEMPOTENCY_TTL_SECONDS,
// an unfinished claim for 10 minutes. The in-process store on a clock the test moves; Redis keeps its
// own clock, so its keys' expiry instant (PEXPIRETIME) is checked against the server's TIME read just
// before and just after the command (Redis's rule from there: a key is gone once that instant passed).
describe('decisions D9, D47: how long a key is remembered, at the limit and one ms past it', () => {
  const RESULT: StoredResult = { id: 'sent-1', status: 'sent', stubbed: false, request_id: 'r-1' };
  const TTL_S = 86_400;

  it('in process: a completed send is replayed 1 ms before 24 h and forgotten at 24 h; a claim blocks for 10 minutes less 1 ms', async () => {
    const clock = { now: 1_800_000_000_000 };
    const store = memoryIdempotencyStore(TTL_S, 100, () => clock.now);
    assert.deepEqual(await store.begin('done', 'f'), { state: 'new' });
    await store.complete('done', 'f', RESULT);
    const completedAt = clock.now;
    clock.now = completedAt + 86_400_000 - 1;
    assert.deepEqual(await store.begin('done', 'f'), { state: 'replay', result: RESULT });
    clock.now = completedAt + 86_400_000;
    assert.deepEqual(await store.begin('done', 'f'), { state: 'new' }, 'at exactly 24 h');

    const claimedAt = clock.now;
    assert.deepEqual(await store.begin('claimed', 'f'), { state: 'new' });
    clock.now = claimedAt + 600_000 - 1;
    assert.deepEqual(await store.begin('claimed', 'f'), { state: 'in_progress' });
    clock.now = claimedAt + 600_000;
    assert.deepEqual(await store.begin('claimed', 'f'), { state: 'new' }, 'at exactly 10 minutes');
  });

  it('Redis: a completed send expires 24 h after it was recorded, a claim 10 minutes after it was made (PEXPIRETIME against the server’s TIME)', async () => {
    const prefix = uniquePrefix('idem-expiry');
    const store = redisIdempotencyStore({
      url: redisUrlForTests,
      prefix,
      ttlSeconds: TTL_S,
      commandTimeoutMs: 60_000,
      onUnreachable: () => undefined,
    });
    try {
      const serverMs = async () => {
        const [s, us] = await redis.time();
        return Number(s) * 1000 + Math.floor(Number(us) / 1000);
      };
      const expiresAt = async (key: string) => Number(await redis.pexpiretime(`${prefix}${storageKey(key)}`));
      let before = await serverMs();
      assert.deepEqual(await store.begin('k', 'f'), { state: 'new' });
      let after = await serverMs();
      let at = await expiresAt('k');
      assert.ok(
        at >= before + 600_000 && at <= after + 600_000,
        `the claim expires at ${at - before} ms after the instant before it`,
      );
      before = await serverMs();
      await store.complete('k', 'f', RESULT);
      after = await serverMs();
      at = await expiresAt('k');
      // EX counts whole seconds from the command's own instant, within [before, after] to the ms.
      assert.ok(
        at >= before + 86_400_000 && at <= after + 86_400_000,
        `the result expires ${at - before} ms after the instant before it`,
      );
      assert.deepEqual(await store.begin('k', 'f'), { state: 'replay', result: RESULT });
    } finally {
      await store.close?.();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
  });
});

// Redis lost between the claim and the record of the outcome: a private server, ended by its PID while
// the provider is handling the send.
describe('decision D47: the idempotency store failing after the provider has answered', () => {
  it('a delivered email answers 200 with its id, not 500: the store failure is logged (idempotency.record_failed, step complete)', async (t) => {
    const lost = await startPrivateRedis();
    t.after(() => lost.kill());
    const p = await makeServiceWithProvider(
      { IDEMPOTENCY_REDIS_URL: lost.url, IDEMPOTENCY_KEY_PREFIX: 'd47:' },
      async () => {
        await lost.kill();
        return { status: 200, body: { id: 'delivered-once' } };
      },
    );
    t.after(() => p.close());
    const res = await p.send(validBody('welcome'), { 'idempotency-key': 'order-d47-sent' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().id, 'delivered-once');
    assert.equal(res.json().status, 'sent');
    assert.equal(p.provider.requests.length, 1);
    const logged = p.logs.events('idempotency.record_failed');
    assert.equal(logged.length, 1);
    assert.equal(logged[0]!.step, 'complete');
    assert.equal(logged[0]!.request_id, res.json().request_id);
    assert.equal(p.logs.events('email.sent').length, 1);
    assert.equal(p.logs.events('request.failed').length, 0);
    // The outage itself: one warning, however many reconnects fail meanwhile. Waited for (a loaded
    // machine may take its time to notice), then reconnects given 300 ms to add more (fewer on a slow
    // machine only make the check weaker, never wrong).
    for (const started = performance.now(); p.logs.events('idempotency.store_unreachable').length === 0;) {
      assert.ok(performance.now() - started < 30_000, 'the outage was never logged');
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(p.logs.events('idempotency.store_unreachable').length, 1);
  });

  it('a Redis host lost without a reset (stopped, its connection left open): the delivered email still answers 200 once IDEMPOTENCY_REDIS_TIMEOUT_MS has passed (on the test’s clock)', async (t) => {
    const lost = await startPrivateRedis();
    t.after(() => lost.kill());
    let delivered!: () => void;
    const provided = new Promise<void>((resolve) => (delivered = resolve));
    const p = await makeServiceWithProvider(
      { IDEMPOTENCY_REDIS_URL: lost.url, IDEMPOTENCY_KEY_PREFIX: 'd47:', IDEMPOTENCY_REDIS_TIMEOUT_MS: '2000' },
      async () => {
        lost.pause();
        delivered();
        return { status: 200, body: { id: 'delivered-once' } };
      },
    );
    t.after(() => p.close());
    // The store's command timeouts run on the test's clock: a healthy command, however slow the
    // machine, never times out; the one left waiting on the stopped server does when the test says so.
    t.mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const answer = p.send(validBody('welcome'), { 'idempotency-key': 'order-d47-stopped' });
      await provided; // the claim was answered (the provider is called after it) and the server is stopped
      const res = await passTimeUntil(t, answer, 2_000, "the store held the delivered email's answer");
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().id, 'delivered-once');
    } finally {
      t.mock.timers.reset();
    }
    const logged = p.logs.events('idempotency.record_failed');
    assert.equal(logged.length, 1);
    assert.equal(logged[0]!.step, 'complete');
    assert.match(String((logged[0]!.err as { message?: string })?.message ?? logged[0]!.err), /timed out/i);
  });

  it("a claim that timed out is withdrawn once Redis answers again: the retry sends (not 409 for the claim's 10 minutes), and closing does not fail while Redis is stalled", async (t) => {
    const stalled = await startPrivateRedis();
    t.after(() => stalled.kill());
    const p = await makeServiceWithProvider(
      { IDEMPOTENCY_REDIS_URL: stalled.url, IDEMPOTENCY_KEY_PREFIX: 'd47:', IDEMPOTENCY_REDIS_TIMEOUT_MS: '2000' },
      () => ({ status: 200, body: { id: 'sent-after-stall' } }),
    );
    let closed = false;
    t.after(async () => {
      if (!closed) await p.close(); // an assertion failed before the test's own close
    });
    // As above: only the commands the test lets time out do.
    t.mock.timers.enable({ apis: ['setTimeout'] });
    try {
      stalled.pause();
      const first = await passTimeUntil(
        t,
        p.send(validBody('welcome'), { 'idempotency-key': 'order-d47-claim' }),
        2_000,
        'the claim never timed out',
      );
      assert.equal(first.statusCode, 500, 'the claim could not be made: nothing sent');
      assert.equal(p.provider.requests.length, 0);
      stalled.resume();
      // The late claim and its withdrawal run in order once the server goes on.
      const retry = await p.send(validBody('welcome'), { 'idempotency-key': 'order-d47-claim' });
      assert.equal(retry.statusCode, 200, retry.body);
      assert.equal(retry.json().id, 'sent-after-stall');
      assert.equal(p.provider.requests.length, 1);
      stalled.pause();
      await passTimeUntil(t, p.close(), 2_000, 'close did not end while Redis was stalled');
      closed = true;
      stalled.resume();
    } finally {
      t.mock.timers.reset();
    }
  });

  it('a failed send answers its own error (500 send_failed) when the key cannot be freed; the store failure is logged (step release)', async (t) => {
    const lost = await startPrivateRedis();
    t.after(() => lost.kill());
    const p = await makeServiceWithProvider(
      { IDEMPOTENCY_REDIS_URL: lost.url, IDEMPOTENCY_KEY_PREFIX: 'd47:' },
      async () => {
        await lost.kill();
        return { status: 422, body: { name: 'validation_error', message: 'suppressed' } };
      },
    );
    t.after(() => p.close());
    const res = await p.send(validBody('welcome'), { 'idempotency-key': 'order-d47-failed' });
    assert.equal(res.statusCode, 500);
    assert.equal(res.json().error, 'send_failed');
    const logged = p.logs.events('idempotency.record_failed');
    assert.equal(logged.length, 1);
    assert.equal(logged[0]!.step, 'release');
    assert.equal(p.logs.events('email.send_failed').length, 1);
  });
});
