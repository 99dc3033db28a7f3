// The price oracle through HTTP (decisions O1–O15; spec 1 "Oracle price response" and "Price
// feed behaviour"): local fake sources (slow, failing, lying, stale, malformed, non-numeric), the
// bridge built the production way with the test clock, polls driven by the test.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { BACKENDS, bridge, type Bridge } from './harness.ts';
import { startFakeSources, type FakeSources } from './oracle-fakes.ts';

const SLOW_POLLS = { PRICE_POLL_SECONDS: '600', PRICE_STALENESS_SECONDS: '1200' };

async function oracleBridge(
  sources: unknown[],
  env: Record<string, string> = {},
  backend = BACKENDS[0],
): Promise<Bridge> {
  const h = await bridge(backend, { ...SLOW_POLLS, PRICE_SOURCES: JSON.stringify(sources), ...env });
  await h.app.ready();
  await h.app.priceOracle.pollNow(); // after the first poll started when the app became ready, a poll of its own
  return h;
}

const get = (h: Bridge, url: string, headers: Record<string, string> = {}) =>
  h.request({ method: 'GET', url, headers });

describe('GET /api/price/dom-usd (spec 1 Oracle price response)', () => {
  let fake: FakeSources;
  after(() => fake?.close());

  it('spec 1 Price feed behaviour 1: the weighted median of the agreeing fresh sources, in the exact response shape; bad sources are dropped and recorded', async () => {
    fake = await startFakeSources();
    const h0 = Date.parse('2026-03-10T12:00:00Z');
    fake.set('/a', { body: { data: { 'DOM/USD': { price: 1.01, at: new Date(h0 - 5_000).toISOString() } } } });
    fake.set('/b', { body: [{ last: '1.02', time: h0 / 1000 - 10 }] });
    fake.set('/slow', { body: { p: 1.01 }, delayMs: 3_000 });
    fake.set('/failing', { status: 500, body: { error: 'down' } });
    fake.set('/liar', { body: { p: 5.0 } });
    fake.set('/stale', { body: { p: 1.01, t: h0 / 1000 - 3_600 } });
    fake.set('/malformed', { body: '{"p": 1.0' });
    fake.set('/text', { body: { p: 'abc' } });
    // A generous timeout for the sources that answer at once (a loaded CI machine can take seconds),
    // and a short one for the slow source, which answers only after 3 s.
    const json = (name: string, path: string, price_pointer: string, extra = {}) => ({
      kind: 'json-http',
      name,
      weight: 1,
      url: fake.url(path),
      price_pointer,
      timeout_ms: 2_500,
      max_age_seconds: 60,
      ...extra,
    });
    const h = await oracleBridge([
      { kind: 'fixed', name: 'fixed', weight: 2, price: 1.0 },
      json('a', '/a', '/data/DOM~1USD/price', { timestamp_pointer: '/data/DOM~1USD/at' }),
      json('b', '/b', '/0/last', { timestamp_pointer: '/0/time', weight: 0.5 }),
      json('slow', '/slow', '/p', { timeout_ms: 300 }),
      json('failing', '/failing', '/p'),
      json('liar', '/liar', '/p'),
      json('stale', '/stale', '/p', { timestamp_pointer: '/t' }),
      json('malformed', '/malformed', '/p'),
      json('text', '/text', '/p'),
    ]);
    after(() => h.close());
    const r = await get(h, '/api/price/dom-usd');
    assert.equal(r.statusCode, 200, r.body);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    // Weights: 1.00×2, 1.01×1, 1.02×0.5 → half of 3.5 is reached at 1.00.
    assert.deepEqual(r.json(), {
      price_usd: 1.0,
      timestamp: h0 / 1000,
      source: 'aggregate',
      sources: [
        { name: 'fixed', price: 1.0, weight: 2 },
        { name: 'a', price: 1.01, weight: 1 },
        { name: 'b', price: 1.02, weight: 0.5 },
      ],
      confidence: 'high', // 3 sources; the weighted median of the deviations is 0 (the fixed source holds 2 of 3.5)
      stale: false,
    } as never);

    // The stored record behind it: every source with its verdict (what a proposal's source_url cites).
    const latest = h.app.priceOracle.latest()!;
    assert.equal(latest.record_url, `https://bridge.domdao.example/api/price/dom-usd/records/${latest.record_id}`);
    const rec = await get(h, `/api/price/dom-usd/records/${latest.record_id}`);
    assert.equal(rec.statusCode, 200, rec.body);
    assert.match(String(rec.headers['cache-control']), /immutable/);
    const byName = Object.fromEntries(
      rec
        .json()
        .observations.map((o: { name: string; status: string; error?: string }) => [
          o.name,
          `${o.status}${o.error ? `: ${o.error}` : ''}`,
        ]),
    );
    assert.deepEqual(byName, {
      fixed: 'used',
      a: 'used',
      b: 'used',
      slow: 'failed: timeout after 300 ms',
      failing: 'failed: HTTP 500',
      liar: 'outlier',
      stale: 'too_old',
      malformed: 'failed: malformed JSON',
      text: 'invalid: not a positive finite price: "abc"',
    });
    assert.equal(rec.json().price_usd, 1.0);
    assert.equal((await get(h, '/api/price/dom-usd/records/999999')).json().error, 'PRICE_RECORD_NOT_FOUND');
    assert.equal((await get(h, '/api/price/dom-usd/records/abc')).statusCode, 400);

    // Decision O12: the request path never fetches; ETag per aggregate, 304 when unchanged.
    const hits = fake.hits();
    const etag = String(r.headers.etag);
    assert.equal(r.headers['cache-control'], 'no-cache');
    for (let i = 0; i < 25; i++) assert.equal((await get(h, '/api/price/dom-usd')).statusCode, 200);
    assert.equal((await get(h, '/api/price/dom-usd', { 'if-none-match': etag })).statusCode, 304);
    assert.equal(
      (await get(h, '/api/price/dom-usd', { 'if-none-match': `W/"0-f", ${etag}` })).statusCode,
      304,
      'a list of ETags',
    );
    assert.equal(fake.hits(), hits, 'no source was fetched by 26 requests');
    await h.app.priceOracle.pollNow();
    assert.equal(fake.hits(), hits + 8, 'one poll fetches every HTTP source once');
    const after2 = await get(h, '/api/price/dom-usd', { 'if-none-match': etag });
    assert.equal(after2.statusCode, 200, 'a new aggregate has a new ETag');
    assert.notEqual(after2.headers.etag, etag);
  });
});

for (const backend of [BACKENDS[0]!, BACKENDS[2]!]) {
  describe(`price availability, staleness and history on ${backend.db} (decisions O11–O13)`, () => {
    let fake: FakeSources;
    let h: Bridge;
    after(async () => {
      await h?.close();
      await fake?.close();
    });

    it('decisions O4, O12: 503 PRICE_UNAVAILABLE with Retry-After until enough sources agree; then 200', async () => {
      fake = await startFakeSources();
      fake.set('/x', { body: { p: 2.0 } });
      fake.set('/y', { status: 503, body: {} });
      fake.set('/z', { body: { p: 'n/a' } });
      const src = (name: string, weight = 1) => ({
        kind: 'json-http',
        name,
        weight,
        url: fake.url(`/${name}`),
        price_pointer: '/p',
        timeout_ms: 1000,
        max_age_seconds: 120,
      });
      h = await oracleBridge([src('x'), src('y'), src('z')], { PRICE_MIN_SOURCES: '2' }, backend);
      const r = await get(h, '/api/price/dom-usd');
      assert.equal(r.statusCode, 503, r.body);
      assert.equal(r.json().error, 'PRICE_UNAVAILABLE');
      assert.equal(r.json().message, 'no price aggregate yet; try again shortly');
      assert.equal(r.headers['retry-after'], '600');
      assert.equal(r.headers['cache-control'], 'no-store');
      fake.set('/y', { body: { p: 2.02 } });
      assert.deepEqual(await h.app.priceOracle.pollNow().then((o) => o.ok), true);
      const ok = (await get(h, '/api/price/dom-usd')).json();
      assert.deepEqual([ok.price_usd, ok.stale, ok.confidence, ok.sources.length], [2.01, false, 'medium', 2]);
    });

    it('decision O11 / spec 1 Price feed behaviour 3: when every source goes stale, stale is true and the last good price and timestamp stay, confidence low', async () => {
      const good = (await get(h, '/api/price/dom-usd')).json();
      fake.set('/x', { status: 500, body: {} });
      fake.set('/y', { body: { p: 2.02 }, delayMs: 2_000 });
      h.advance(1_000 * 1_000);
      assert.equal((await h.app.priceOracle.pollNow()).ok, false);
      const within = (await get(h, '/api/price/dom-usd')).json();
      assert.deepEqual(within, good, 'within PRICE_STALENESS_SECONDS (1200 s) the last aggregate is still fresh');
      h.advance(200 * 1_000 + 1);
      const stale = await get(h, '/api/price/dom-usd');
      assert.deepEqual(stale.json(), { ...good, confidence: 'low', stale: true });
      assert.notEqual(stale.headers.etag, undefined);
      fake.set('/x', { body: { p: 2.0 } });
      fake.set('/y', { body: { p: 2.0 } });
      await h.app.priceOracle.pollNow();
      const back = (await get(h, '/api/price/dom-usd')).json();
      assert.deepEqual([back.price_usd, back.stale, back.timestamp], [2.0, false, Math.floor(h.now() / 1000)]);
    });

    it('decision O13: history pages oldest first with a keyset cursor, filters by from/to, caps limit at 1000', async () => {
      const start = Math.floor(h.now() / 1000);
      for (let i = 1; i <= 4; i++) {
        fake.set('/x', { body: { p: 2.0 + i / 100 } });
        fake.set('/y', { body: { p: 2.0 + i / 100 } });
        h.advance(i === 2 ? 0 : 60_000); // two aggregates in the same second: the cursor still separates them
        assert.equal((await h.app.priceOracle.pollNow()).ok, true);
      }
      const all = (await get(h, '/api/price/dom-usd/history')).json();
      assert.equal(all.next, null);
      assert.equal(all.items.length, 6);
      const pages: number[][] = [];
      let url: string | null = `/api/price/dom-usd/history?from=${start}&limit=2`;
      while (url) {
        const page: { items: Array<{ price_usd: number }>; next: string | null } = (await get(h, url)).json();
        pages.push(page.items.map((x) => x.price_usd));
        url = page.next;
      }
      assert.deepEqual(pages, [[2.0, 2.01], [2.02, 2.03], [2.04]]);
      const windowed = (await get(h, `/api/price/dom-usd/history?from=${start + 60}&to=${start + 120}`)).json();
      assert.deepEqual(
        windowed.items.map((x: { price_usd: number }) => x.price_usd),
        [2.01, 2.02],
      );
      assert.deepEqual(Object.keys(windowed.items[0]).sort(), [
        'confidence',
        'id',
        'price_usd',
        'sources',
        'timestamp',
      ]);
      assert.equal((await get(h, '/api/price/dom-usd/history?limit=1001')).json().error, 'VALIDATION_ERROR');
      assert.equal((await get(h, '/api/price/dom-usd/history?from=10&to=5')).json().error, 'VALIDATION_ERROR');
    });
  });
}
