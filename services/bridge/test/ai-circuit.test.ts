// The inference circuit breaker (spec 2 "Inference circuit breaker", decision A5), switched on in a
// test bridge and driven by the bridge's controllable clock: CLOSED → OPEN after the threshold of
// consecutive failures, OPEN fast-fails (503, no inference call), HALF-OPEN after the reset time lets
// one probe through, CLOSED on its success, OPEN on its failure; the ai.circuit_open alert fires on
// CLOSED → OPEN only. Plus the alerts' other conditions and their delivery to a Sentry endpoint.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { createAlerts } from '../src/features/ai/alerts.ts';
import { bridge } from './harness.ts';
import { startFakeInference } from './fake-inference.ts';

const CIRCUIT_OPEN = { error: 'AI service temporarily unavailable', code: 'CIRCUIT_OPEN' };

describe('inference circuit breaker (spec 2)', () => {
  it('every transition, with the bridge clock: CLOSED → OPEN → HALF-OPEN → OPEN → HALF-OPEN → CLOSED', async () => {
    const fake = await startFakeInference();
    const h = await bridge(
      undefined,
      {
        INFERENCE_URL: fake.url,
        INFERENCE_CIRCUIT_OPEN_THRESHOLD: '3',
        INFERENCE_CIRCUIT_RESET_MS: '60000',
        AI_RATE_LIMIT_PER_MINUTE: '1000',
      },
      { ai: { circuit: true } },
    );
    try {
      const { jar } = await h.member('ada@example.org');
      const embed = () => h.request({ method: 'POST', url: '/api/ai/embed', payload: { text: 'hello world' }, jar });
      const circuit = async () =>
        ((await h.request({ method: 'GET', url: '/api/ai/health' })).json() as { circuit: string }).circuit;
      const calls = () => fake.embedCalls().filter((c) => JSON.stringify(c.body.input) === '["hello world"]').length;
      const alerts = () => h.logs.lines().filter((l) => l.event === 'ai.alert' && l.alert === 'ai.circuit_open');

      assert.equal((await embed()).statusCode, 200);
      fake.always = 'fail';
      // Two failures, a success: the count is of consecutive failures.
      await embed();
      await embed();
      fake.always = undefined;
      assert.equal((await embed()).statusCode, 200);
      assert.equal(await circuit(), 'CLOSED');
      fake.always = 'fail';
      for (let i = 0; i < 3; i++) assert.deepEqual((await embed()).json(), CIRCUIT_OPEN);
      assert.equal(await circuit(), 'OPEN', 'three consecutive failures (INFERENCE_CIRCUIT_OPEN_THRESHOLD)');
      assert.equal(alerts().length, 1, 'ai.circuit_open on CLOSED → OPEN');
      assert.equal(alerts()[0]!.component, 'ai');

      const before = calls();
      fake.always = undefined;
      const fast = await embed();
      assert.equal(fast.statusCode, 503);
      assert.deepEqual(fast.json(), CIRCUIT_OPEN);
      assert.equal(calls(), before, 'OPEN: no inference call');

      h.advance(59_999);
      await embed();
      assert.equal(calls(), before, 'still OPEN 1 ms before INFERENCE_CIRCUIT_RESET_MS');
      h.advance(1);
      assert.equal(await circuit(), 'HALF-OPEN');
      fake.always = 'fail';
      // HALF-OPEN: one probe; requests arriving meanwhile wait for it and, when it fails, fail without a call.
      fake.delays.push(150);
      const probes = await Promise.all([embed(), embed(), embed()]);
      for (const p of probes) assert.deepEqual(p.json(), CIRCUIT_OPEN);
      assert.equal(calls(), before + 1, 'one probe went through');
      assert.equal(await circuit(), 'OPEN', 'the probe failed: OPEN again');
      assert.equal(alerts().length, 1, 'HALF-OPEN → OPEN is not a new ai.circuit_open');

      h.advance(60_000);
      fake.always = undefined;
      assert.equal((await embed()).statusCode, 200, 'the probe succeeds');
      assert.equal(await circuit(), 'CLOSED');
      assert.equal(calls(), before + 2);
      assert.equal((await embed()).statusCode, 200);
      const changes = h.logs
        .lines()
        .filter((l) => l.event === 'ai.circuit_changed')
        .map((l) => `${String(l.from)}→${String(l.to)}`);
      assert.deepEqual(changes, [
        'CLOSED→OPEN',
        'OPEN→HALF-OPEN',
        'HALF-OPEN→OPEN',
        'OPEN→HALF-OPEN',
        'HALF-OPEN→CLOSED',
      ]);
    } finally {
      await h.close();
      await fake.close();
    }
  });

  it('a malformed or refused answer comes from a live server: it does not open the circuit (decision A5)', async () => {
    const fake = await startFakeInference();
    const h = await bridge(
      undefined,
      { INFERENCE_URL: fake.url, AI_RATE_LIMIT_PER_MINUTE: '1000' },
      { ai: { circuit: true } },
    );
    try {
      const { jar } = await h.member('bo@example.org');
      fake.always = 'malformed';
      for (let i = 0; i < 5; i++)
        assert.equal(
          (await h.request({ method: 'POST', url: '/api/ai/embed', payload: { text: 'x' }, jar })).statusCode,
          502,
        );
      assert.equal(
        ((await h.request({ method: 'GET', url: '/api/ai/health' })).json() as { circuit: string }).circuit,
        'CLOSED',
      );
    } finally {
      await h.close();
      await fake.close();
    }
  });
});

describe('AI alerts (spec 2 Events, decision A12)', () => {
  const recorder = () => {
    const lines: Array<Record<string, unknown>> = [];
    return { lines, log: { warn: (o: object) => void lines.push(o as Record<string, unknown>) } };
  };

  it('ai.latency_high: an inference answer over 15 s, once per slow spell', async () => {
    const r = recorder();
    const a = await createAlerts({ log: r.log });
    a.inferenceLatency(15_000, { model: 'm', operation: 'summarize' });
    assert.equal(r.lines.length, 0, '15 s is not over 15 s');
    a.inferenceLatency(15_001, { model: 'm', operation: 'summarize' });
    a.inferenceLatency(20_000, { model: 'm', operation: 'draft' });
    assert.equal(r.lines.length, 1);
    assert.deepEqual(
      [r.lines[0]!.event, r.lines[0]!.alert, r.lines[0]!.service, r.lines[0]!.component],
      ['ai.alert', 'ai.latency_high', 'oracle-bridge', 'ai'],
    );
    a.inferenceLatency(800, { model: 'm', operation: 'draft' });
    a.inferenceLatency(16_000, { model: 'm', operation: 'draft' });
    assert.equal(r.lines.length, 2, 're-armed by a normal answer');
  });

  it('ai.cache_miss_rate: hit rate below 40 % over the last 100 summary requests (from 20 on), once until it recovers', async () => {
    const r = recorder();
    const a = await createAlerts({ log: r.log });
    for (let i = 0; i < 19; i++) a.summaryLookup(false);
    assert.equal(r.lines.length, 0, 'fewer than 20 requests: not judged');
    a.summaryLookup(false);
    assert.equal(r.lines.length, 1);
    assert.equal(r.lines[0]!.alert, 'ai.cache_miss_rate');
    for (let i = 0; i < 10; i++) a.summaryLookup(false);
    assert.equal(r.lines.length, 1, 'once per condition');
    for (let i = 0; i < 60; i++) a.summaryLookup(true);
    for (let i = 0; i < 70; i++) a.summaryLookup(false);
    assert.equal(r.lines.length, 2, 'recovered (≥ 40 %), then fell again');
  });

  it('with SENTRY_DSN the alert reaches the error tracker: a local endpoint receives and parses the SDK envelope', async () => {
    const envelopes: string[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        envelopes.push(
          `${req.url}\n${(req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')}`,
        );
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    try {
      const r = recorder();
      const a = await createAlerts({
        log: r.log,
        sentryDsn: `http://publickey@127.0.0.1:${port}/42`,
        environment: 'test',
        release: 'bridge@test',
      });
      a.circuitOpened({ failures: 3, reason: 'consecutive inference failures' });
      await a.flush(5_000);
      assert.equal(envelopes.length, 1);
      const [url, ...lines] = envelopes[0]!.split('\n').filter(Boolean);
      assert.equal(url!.split('?')[0], '/api/42/envelope/');
      const header = JSON.parse(lines[0]!) as { event_id?: string; sent_at?: string };
      assert.match(String(header.event_id), /^[0-9a-f]{32}$/);
      assert.match(
        envelopes[0]!.split('\n')[0]!,
        /sentry_key=publickey/,
        'the DSN public key authenticates the envelope',
      );
      assert.equal((JSON.parse(lines[1]!) as { type: string }).type, 'event');
      const event = JSON.parse(lines[2]!) as {
        message: string;
        level: string;
        tags: Record<string, string>;
        environment: string;
        release: string;
        extra: Record<string, unknown>;
      };
      assert.match(event.message, /^ai\.circuit_open: /);
      assert.equal(event.level, 'warning');
      assert.deepEqual(event.tags, { service: 'oracle-bridge', component: 'ai', alert: 'ai.circuit_open' });
      assert.equal(event.environment, 'test');
      assert.equal(event.extra.failures, 3);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
