// The price oracle's life cycle (decisions O6, O11, O15): the background poller's schedule and its
// stop on close (aborting a fetch in flight), pollNow never answering with a poll begun before it,
// and a restart serving the last stored aggregate.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { openTemplateDatabase } from './embedded-template.ts';
import priceOracleRoutes from '../src/features/oracle/routes.ts';
import { createPriceOracle } from '../src/features/oracle/oracle.ts';
import type { SourceConfig } from '../src/core/price-sources.ts';
import { startFakeSources } from './oracle-fakes.ts';

const fixed = (name: string, price: number): SourceConfig => ({
  kind: 'fixed',
  name,
  weight: 1,
  price,
  timeout_ms: 1000,
  max_age_seconds: 60,
});

/** Polls for a condition (generous bound: only a guard against a hang). */
async function until(cond: () => boolean): Promise<void> {
  for (const end = performance.now() + 30_000; !cond(); await new Promise((r) => setTimeout(r, 5))) {
    if (performance.now() > end) throw new Error('condition not reached in 30 s');
  }
}

describe('price oracle life cycle', () => {
  it('decision O6: polls on its own every interval once ready, never overlapping, and stops on close, aborting a slow fetch', async (t) => {
    const fake = await startFakeSources();
    t.after(() => fake.close());
    const database = await openTemplateDatabase();
    t.after(() => database.close());
    fake.set('/p', { body: { p: 1 } });
    const http = (name: string, timeout_ms = 1000): SourceConfig => ({
      kind: 'json-http',
      name,
      weight: 1,
      url: fake.url(`/${name}`),
      price_pointer: '/p',
      timeout_ms,
      max_age_seconds: 60,
    });
    const oracle = createPriceOracle({
      db: database.db as never,
      sources: [http('p', 60_000), fixed('f', 1)],
      pollMs: 100,
      outlierPct: 20,
      minSources: 2,
      stalenessMs: 60_000,
      now: Date.now,
      publicUrl: 'http://127.0.0.1:1/',
    });
    const app = Fastify();
    t.after(() => app.close());
    await app.register(priceOracleRoutes, { oracle, retryAfterSeconds: 1, now: Date.now });
    await app.ready();
    // Polls follow one another 100 ms after each ends; a source slower than the interval (300 ms) shows
    // they never overlap: at most one request in flight at a time.
    fake.set('/p', { body: { p: 1 }, delayMs: 300 });
    const t1 = performance.now();
    const h1 = fake.hits('/p');
    while (fake.hits('/p') < h1 + 3 && performance.now() - t1 < 10_000) await new Promise((r) => setTimeout(r, 20));
    const elapsed = performance.now() - t1;
    assert.ok(fake.hits('/p') >= h1 + 3, 'the poller keeps polling on its own');
    assert.ok(elapsed >= 2 * 400 - 50, `polls did not overlap (3 more hits after ${elapsed.toFixed(0)} ms)`);
    fake.set('/p', { body: { p: 1 } });
    const r = await app.inject({ method: 'GET', url: '/api/price/dom-usd' });
    assert.equal(r.statusCode, 200);
    assert.equal(
      oracle.latest()!.record_url,
      `http://127.0.0.1:1/api/price/dom-usd/records/${oracle.latest()!.record_id}`,
      'decision O15: the record URL under PUBLIC_URL',
    );

    // A source that hangs: the poll in flight is aborted by close, which returns long before its timeout.
    fake.set('/p', { body: { p: 1 }, delayMs: 60_000 });
    const before = fake.hits('/p');
    await until(() => fake.hits('/p') > before); // a poll is now waiting on the hanging source
    const t0 = performance.now();
    await app.close();
    // Not a speed bound: without the abort, close would wait for the source's 60 s timeout.
    assert.ok(performance.now() - t0 < 30_000, 'close does not wait for the source timeout');
    const after = fake.hits('/p');
    await new Promise((r) => setTimeout(r, 300)); // three poll intervals: nothing may happen in them
    assert.equal(fake.hits('/p'), after, 'no poll after close');
    assert.deepEqual(await oracle.pollNow().then((o) => !o.ok && o.reason), 'the oracle is stopped');
  });

  it('decision O6: pollNow during a poll under way reads the sources again after it (what changed meanwhile is seen); callers meanwhile share that one poll', async (t) => {
    const fake = await startFakeSources();
    t.after(() => fake.close());
    const database = await openTemplateDatabase();
    t.after(() => database.close());
    const http = (name: string): SourceConfig => ({
      kind: 'json-http',
      name,
      weight: 1,
      url: fake.url(`/${name}`),
      price_pointer: '/p',
      timeout_ms: 2000,
      max_age_seconds: 60,
    });
    const oracle = createPriceOracle({
      db: database.db as never,
      sources: [http('a'), http('b')],
      pollMs: 3_600_000,
      outlierPct: 20,
      minSources: 2,
      stalenessMs: 60_000,
      now: Date.now,
      publicUrl: 'http://127.0.0.1',
    });
    t.after(() => oracle.stop());
    // A poll reads the sources while they are down (slowly)…
    for (const s of ['a', 'b']) fake.set(`/${s}`, { status: 503, body: { error: 'down' }, delayMs: 200 });
    const early = oracle.pollNow();
    await until(() => fake.hits('/a') === 1 && fake.hits('/b') === 1); // the first poll has read both
    // …they come back while it is under way: a pollNow now must not answer with that poll's reading.
    for (const s of ['a', 'b']) fake.set(`/${s}`, { body: { p: 3 } });
    const hits = fake.hits('/a');
    const [late1, late2] = await Promise.all([oracle.pollNow(), oracle.pollNow()]);
    assert.equal((await early).ok, false, 'the first poll read the sources down');
    assert.equal(late1.ok, true, 'a poll after the call sees them up');
    assert.equal(late1, late2, 'the two callers share one poll');
    assert.equal(fake.hits('/a'), hits + 1, 'one more read of each source, not two');
    assert.equal(oracle.latest()!.response.price_usd, 3);
  });

  it('decision O11: after a restart the last stored aggregate is served at once, and becomes stale once old', async (t) => {
    const database = await openTemplateDatabase();
    t.after(() => database.close());
    let now = Date.parse('2026-03-10T12:00:00Z');
    const options = {
      db: database.db as never,
      pollMs: 3_600_000,
      outlierPct: 20,
      minSources: 2,
      stalenessMs: 300_000,
      now: () => now,
      publicUrl: 'http://127.0.0.1',
    };
    const first = createPriceOracle({ ...options, sources: [fixed('a', 2), fixed('b', 2.02)] });
    assert.equal((await first.pollNow()).ok, true);
    await first.stop();

    now += 60_000;
    // The restarted bridge's sources disagree (no aggregate): it still answers the stored one.
    const second = createPriceOracle({ ...options, sources: [fixed('a', 2), fixed('c', 4)] });
    const app = Fastify();
    t.after(() => app.close());
    await app.register(priceOracleRoutes, { oracle: second, retryAfterSeconds: 1, now: () => now });
    await app.ready();
    await second.pollNow();
    const body = (await app.inject({ method: 'GET', url: '/api/price/dom-usd' })).json();
    assert.deepEqual(body, {
      price_usd: 2.01,
      timestamp: (now - 60_000) / 1000,
      source: 'aggregate',
      sources: [
        { name: 'a', price: 2, weight: 1 },
        { name: 'b', price: 2.02, weight: 1 },
      ],
      confidence: 'medium',
      stale: false,
    });
    now += 240_000;
    assert.deepEqual(
      (await app.inject({ method: 'GET', url: '/api/price/dom-usd' })).json(),
      body,
      'exactly PRICE_STALENESS_SECONDS old: still fresh',
    );
    now += 1;
    assert.deepEqual(
      (await app.inject({ method: 'GET', url: '/api/price/dom-usd' })).json(),
      { ...body, confidence: 'low', stale: true },
      'one ms more: stale',
    );
  });
});
