// Price oracle configuration (decisions O8, O9, O11): validated at start-up, each problem
// named with the variable, the source and the field; one test per error.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError } from '@domdao/config';
import Fastify from 'fastify';
import { loadBridgeConfig } from '../src/config.ts';
import { openTemplateDatabase } from './embedded-template.ts';
import priceOracleRoutes from '../src/features/oracle/routes.ts';
import { createPriceOracle } from '../src/features/oracle/oracle.ts';
import { parsePriceSources } from '../src/core/price-sources.ts';
import {
  MAX_BODY_BYTES,
  observe,
  resolvePointer,
  timestampValue,
  type SourceConfig,
} from '../src/features/oracle/sources.ts';
import { startFakeSources } from './oracle-fakes.ts';

const fixed = { kind: 'fixed', name: 'dev', weight: 1, price: 0.1 };
const http = { kind: 'json-http', name: 'ex', weight: 1, url: 'http://127.0.0.1:1/p', price_pointer: '/price' };

function problems(env: Record<string, string>): string[] {
  try {
    loadBridgeConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
}
const withSources = (list: unknown) =>
  problems({ PRICE_SOURCES: typeof list === 'string' ? list : JSON.stringify(list) });

describe('PRICE_SOURCES validation (decision O8)', () => {
  it('valid sources load with their defaults (timeout_ms 5000, max_age_seconds 300)', () => {
    const config = loadBridgeConfig({ PRICE_SOURCES: JSON.stringify([fixed, { ...http, timestamp_pointer: '/t' }]) });
    const { sources, problems: p } = parsePriceSources(config);
    assert.deepEqual(p, []);
    assert.deepEqual(sources[0], { ...fixed, timeout_ms: 5000, max_age_seconds: 300 });
    assert.equal(sources[1]!.kind, 'json-http');
  });
  it('unset: no sources and no problem (the endpoint answers 503)', () =>
    assert.deepEqual(parsePriceSources({}), { sources: [], problems: [] }));
  it('both PRICE_SOURCES and PRICE_SOURCES_FILE', () =>
    assert.deepEqual(problems({ PRICE_SOURCES: '[]', PRICE_SOURCES_FILE: '/x' }), [
      'PRICE_SOURCES: set either PRICE_SOURCES or PRICE_SOURCES_FILE, not both',
    ]));
  it('not JSON', () => assert.match(withSources('[{')[0]!, /^PRICE_SOURCES: not valid JSON \(/));
  it('not an array, or empty', () => {
    assert.deepEqual(withSources({ a: 1 }), ['PRICE_SOURCES: must be a non-empty JSON array of sources']);
    assert.deepEqual(withSources([]), ['PRICE_SOURCES: must be a non-empty JSON array of sources']);
  });
  it('an item that is not an object', () =>
    assert.deepEqual(withSources([fixed, 3]), ['PRICE_SOURCES[1]: must be an object']));
  it('unknown kind', () =>
    assert.deepEqual(withSources([{ ...fixed, kind: 'oracle-of-delphi' }]), [
      'PRICE_SOURCES[0] (dev): kind must be one of json-http, fixed (got "oracle-of-delphi")',
    ]));
  it('missing url and price_pointer of a json-http source', () => {
    const p = withSources([{ kind: 'json-http', name: 'ex', weight: 1 }]);
    assert.ok(
      p.some((x) => x.startsWith('PRICE_SOURCES[0] (ex): url:')),
      p.join('\n'),
    );
    assert.ok(
      p.some((x) => x.startsWith('PRICE_SOURCES[0] (ex): price_pointer:')),
      p.join('\n'),
    );
  });
  it('url not http(s)', () =>
    assert.match(withSources([{ ...http, url: 'ftp://x/p' }]).join('\n'), /^PRICE_SOURCES\[0\] \(ex\): url: /));
  it('a JSON pointer not starting with "/"', () =>
    assert.match(
      withSources([{ ...http, price_pointer: 'price' }]).join('\n'),
      /^PRICE_SOURCES\[0\] \(ex\): price_pointer: /,
    ));
  it('weight zero or negative', () => {
    assert.match(withSources([{ ...fixed, weight: 0 }]).join('\n'), /^PRICE_SOURCES\[0\] \(dev\): weight: /);
    assert.match(withSources([{ ...fixed, weight: -1 }]).join('\n'), /^PRICE_SOURCES\[0\] \(dev\): weight: /);
  });
  it('a fixed price that is not positive', () =>
    assert.match(withSources([{ ...fixed, price: 0 }]).join('\n'), /^PRICE_SOURCES\[0\] \(dev\): price: /));
  it('timeout_ms and max_age_seconds out of range', () => {
    const p = withSources([{ ...fixed, timeout_ms: 10, max_age_seconds: 0 }]);
    assert.ok(
      p.some((x) => x.startsWith('PRICE_SOURCES[0] (dev): timeout_ms:')) &&
        p.some((x) => x.startsWith('PRICE_SOURCES[0] (dev): max_age_seconds:')),
      p.join('\n'),
    );
  });
  it('an unknown field (a typo must not be ignored)', () =>
    assert.match(withSources([{ ...fixed, wieght: 2 }]).join('\n'), /^PRICE_SOURCES\[0\] \(dev\)/));
  it('a bad name', () =>
    assert.match(
      withSources([{ ...fixed, name: 'has space' }]).join('\n'),
      /^PRICE_SOURCES\[0\] \(has space\): name: /,
    ));
  it('duplicate names', () =>
    assert.deepEqual(withSources([fixed, { ...fixed, price: 0.2 }]), ['PRICE_SOURCES[1] (dev): duplicate name dev']));
  it('every bad source is listed at once', () =>
    assert.equal(
      withSources([
        { ...fixed, weight: 0 },
        { ...http, kind: 'nope' },
      ]).length,
      2,
    ));

  it('PRICE_SOURCES_FILE: read from the file; unreadable or invalid files are named', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'oracle-config-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'sources.json');
    writeFileSync(file, JSON.stringify([fixed]));
    assert.equal(parsePriceSources(loadBridgeConfig({ PRICE_SOURCES_FILE: file })).sources.length, 1);
    assert.deepEqual(problems({ PRICE_SOURCES_FILE: join(dir, 'missing.json') }), [
      `PRICE_SOURCES_FILE: cannot read ${join(dir, 'missing.json')} (ENOENT)`,
    ]);
    writeFileSync(file, '{');
    assert.match(problems({ PRICE_SOURCES_FILE: file })[0]!, /^PRICE_SOURCES_FILE: not valid JSON/);
  });
});

describe('price oracle numeric settings (decisions O3, O4, O11)', () => {
  it('PRICE_OUTLIER_PCT must be in (0, 100]', () => {
    assert.ok(problems({ PRICE_OUTLIER_PCT: '0' }).some((p) => p.startsWith('PRICE_OUTLIER_PCT')));
    assert.ok(problems({ PRICE_OUTLIER_PCT: '101' }).some((p) => p.startsWith('PRICE_OUTLIER_PCT')));
    assert.equal(loadBridgeConfig({ PRICE_OUTLIER_PCT: '12.5' }).PRICE_OUTLIER_PCT, 12.5);
  });
  it('PRICE_MIN_SOURCES at least 1', () =>
    assert.ok(problems({ PRICE_MIN_SOURCES: '0' }).some((p) => p.startsWith('PRICE_MIN_SOURCES'))));
  it('decision O11: PRICE_STALENESS_SECONDS at least twice PRICE_POLL_SECONDS', () => {
    assert.deepEqual(problems({ PRICE_POLL_SECONDS: '60', PRICE_STALENESS_SECONDS: '119' }), [
      'PRICE_STALENESS_SECONDS: must be at least twice PRICE_POLL_SECONDS, or one slow poll makes the price stale',
    ]);
    const d = loadBridgeConfig({});
    assert.deepEqual(
      [d.PRICE_POLL_SECONDS, d.PRICE_STALENESS_SECONDS, d.PRICE_OUTLIER_PCT, d.PRICE_MIN_SOURCES],
      [30, 300, 20, 2],
    );
  });
});

describe('source readings (decision O9)', () => {
  it('RFC 6901 pointers: escapes, arrays, absent members', () => {
    const doc = { 'a/b': { 'm~n': [10, { x: 1 }] }, '': 5 };
    assert.equal(resolvePointer(doc, '/a~1b/m~0n/0'), 10);
    assert.equal(resolvePointer(doc, '/a~1b/m~0n/1/x'), 1);
    assert.equal(resolvePointer(doc, '/'), 5);
    assert.equal(resolvePointer(doc, ''), doc);
    assert.equal(resolvePointer(doc, '/a~1b/m~0n/01'), undefined);
    assert.equal(resolvePointer(doc, '/missing/x'), undefined);
    assert.equal(resolvePointer({ o: {} }, '/o/toString'), undefined, 'inherited members are not members');
  });
  it('timestamps: Unix seconds (number or string) or ISO 8601; anything else null', () => {
    assert.equal(timestampValue(1_700_000_000), 1_700_000_000_000);
    assert.equal(timestampValue('1700000000'), 1_700_000_000_000);
    assert.equal(timestampValue('2026-03-10T12:00:00Z'), Date.parse('2026-03-10T12:00:00Z'));
    assert.equal(timestampValue('yesterday'), null);
    assert.equal(timestampValue(-5), null);
    assert.equal(timestampValue(null), null);
  });
});

describe('json-http adapter failures (decisions O1, O9)', () => {
  it('oversized bodies (declared or chunked), redirects, nothing at the pointer and unreadable timestamps are recorded, never thrown', async (t) => {
    const fake = await startFakeSources();
    t.after(() => fake.close());
    const big = JSON.stringify({ p: 1, pad: 'x'.repeat(MAX_BODY_BYTES) });
    fake.set('/big', { body: big });
    fake.set('/big-chunked', { body: big, chunked: true });
    fake.set('/moved', { status: 302, body: '', headers: { location: fake.url('/ok') } });
    fake.set('/ok', { body: { p: '0.5', t: 'soon' } });
    const src = (path: string, extra = {}): SourceConfig => ({
      kind: 'json-http',
      name: 'x',
      weight: 1,
      url: fake.url(path),
      price_pointer: '/p',
      timeout_ms: 2000,
      max_age_seconds: 60,
      ...extra,
    });
    const now = () => 1_000;
    assert.equal((await observe(src('/big'), now)).error, `body larger than ${MAX_BODY_BYTES} bytes`);
    assert.equal((await observe(src('/big-chunked'), now)).error, `body larger than ${MAX_BODY_BYTES} bytes`);
    // At the limit and one byte past it, declared and chunked.
    const sized = (n: number) => {
      const head = '{"p":1,"pad":"';
      return head + 'x'.repeat(n - head.length - 2) + '"}';
    };
    fake.set('/at-limit', { body: sized(MAX_BODY_BYTES) });
    fake.set('/at-limit-chunked', { body: sized(MAX_BODY_BYTES), chunked: true });
    fake.set('/past-limit', { body: sized(MAX_BODY_BYTES + 1) });
    fake.set('/past-limit-chunked', { body: sized(MAX_BODY_BYTES + 1), chunked: true });
    assert.equal((await observe(src('/at-limit'), now)).price, 1);
    assert.equal((await observe(src('/at-limit-chunked'), now)).price, 1);
    assert.equal((await observe(src('/past-limit'), now)).error, `body larger than ${MAX_BODY_BYTES} bytes`);
    assert.equal((await observe(src('/past-limit-chunked'), now)).error, `body larger than ${MAX_BODY_BYTES} bytes`);
    assert.match((await observe(src('/moved'), now)).error!, /^fetch failed: /);
    assert.equal((await observe(src('/ok', { price_pointer: '/price' }), now)).error, 'nothing at /price');
    assert.deepEqual(await observe(src('/ok'), now), {
      name: 'x',
      weight: 1,
      maxAgeMs: 60_000,
      price: 0.5,
      observedAt: 1_000,
    });
    assert.deepEqual(await observe(src('/ok', { timestamp_pointer: '/t' }), now), {
      name: 'x',
      weight: 1,
      maxAgeMs: 60_000,
      price: 0.5,
      observedAt: null,
    });
    assert.equal((await observe(src('/nothing-here'), now)).error, 'HTTP 404');
  });
});

describe('decision O12: no sources configured', () => {
  it('GET /api/price/dom-usd answers 503 PRICE_UNAVAILABLE naming the missing configuration', async () => {
    const database = await openTemplateDatabase();
    const oracle = createPriceOracle({
      db: database.db as never,
      sources: [],
      pollMs: 30_000,
      outlierPct: 20,
      minSources: 2,
      stalenessMs: 300_000,
      now: Date.now,
      publicUrl: 'http://127.0.0.1',
    });
    const app = Fastify();
    after(async () => {
      await app.close();
      await database.close();
    });
    await app.register(priceOracleRoutes, { oracle, retryAfterSeconds: 30, now: Date.now });
    const r = await app.inject({ method: 'GET', url: '/api/price/dom-usd' });
    assert.equal(r.statusCode, 503);
    assert.equal(r.headers['retry-after'], '30');
    assert.deepEqual([r.json().error, r.json().message], ['PRICE_UNAVAILABLE', 'no price sources are configured']);
  });
});
