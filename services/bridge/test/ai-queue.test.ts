// The per-model queue (decision A7): the inference server holds one model and swapping takes time
// (spec 2 Limits: 10–30 s, scaled down here), so mixed traffic must not swap on every call. 50/50
// embed and summarize traffic through the bridge's HTTP endpoints against the fake server's swap
// delay: every request is answered, and swaps are a small fraction of requests.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createModelQueue } from '../src/features/ai/model-queue.ts';
import { bridge } from './harness.ts';
import { startFakeInference } from './fake-inference.ts';

describe('per-model queue (decision A7)', () => {
  it('50/50 embed and summarize traffic: every request answered, swaps a small fraction of requests', async () => {
    // Scaled: swap 200 ms (spec 10–30 s), the loaded model keeps the server at most 1 s while the other waits (20 s in
    // production).
    const fake = await startFakeInference({ swapDelayMs: 200 });
    const h = await bridge(
      undefined,
      { INFERENCE_URL: fake.url, AI_RATE_LIMIT_PER_MINUTE: '100000' },
      { ai: { queue: { quantumMs: 1_000 } } },
    );
    try {
      const { jar } = await h.member('ada@example.org');
      const N = 160;
      const started = Date.now();
      const pending: Promise<number>[] = [];
      for (let i = 0; i < N; i++) {
        const payload =
          i % 2
            ? { text: `embed me ${i}` }
            : { proposal_id: String(100_000 + i), title: `Idea ${i}`, body: `A draft idea number ${i}.` };
        pending.push(
          h
            .request({ method: 'POST', url: i % 2 ? '/api/ai/embed' : '/api/ai/summarize', payload, jar })
            .then((r) => r.statusCode),
        );
        await new Promise((r) => setTimeout(r, 25)); // 40 requests/s, alternating models
      }
      const codes = await Promise.all(pending);
      const seconds = (Date.now() - started) / 1000;
      assert.deepEqual(
        codes.filter((c) => c !== 200),
        [],
        'every request answered',
      );
      const swaps = fake.swaps;
      const perMinute = (swaps / seconds) * 60;
      console.log(
        `queue: ${N} requests (50/50 embed/summarize) in ${seconds.toFixed(1)} s, ${swaps} swaps (${perMinute.toFixed(0)}/min vs ${((N / seconds) * 60).toFixed(0)} requests/min; ${((swaps / N) * 100).toFixed(1)} % of requests)`,
      );
      assert.ok(swaps <= N / 10, `${swaps} swaps for ${N} requests: at most one per 10 requests`);
      assert.ok(swaps >= 2, 'both models were served in turns');
    } finally {
      await h.close();
      await fake.close();
    }
  });

  it('decision A6: a call that loads another model gets INFERENCE_SWAP_ALLOWANCE_MS on top of INFERENCE_TIMEOUT_MS; a slow call without a swap times out (503)', async () => {
    const fake = await startFakeInference({ swapDelayMs: 1_500 });
    const h = await bridge(undefined, {
      INFERENCE_URL: fake.url,
      INFERENCE_TIMEOUT_MS: '1000',
      INFERENCE_SWAP_ALLOWANCE_MS: '3000',
      AI_RATE_LIMIT_PER_MINUTE: '1000',
    });
    try {
      const { jar } = await h.member('ada@example.org');
      const ask = (url: string, payload: object) => h.request({ method: 'POST', url, payload, jar });
      assert.equal(
        (await ask('/api/ai/draft', { intent: 'x', category: 'General' })).statusCode,
        200,
        'the first load (1.5 s) fits the allowance',
      );
      const swapped = await ask('/api/ai/embed', { text: 'x' });
      assert.equal(swapped.statusCode, 200, 'a 1.5 s swap within 1 s + 3 s');
      fake.delays.push(1_500);
      const slow = await ask('/api/ai/embed', { text: 'y' });
      assert.equal(slow.statusCode, 503, 'the same model, 1.5 s: over INFERENCE_TIMEOUT_MS');
      assert.deepEqual(slow.json(), { error: 'AI service temporarily unavailable', code: 'CIRCUIT_OPEN' });
    } finally {
      await h.close();
      await fake.close();
    }
  });

  it('a waiting model is not starved: after the quantum the loaded one yields, oldest waiting first', async () => {
    let t = 0;
    const order: string[] = [];
    const q = createModelQueue({ concurrency: 1, quantumMs: 100, maxWaiting: 100, now: () => t });
    const work = (m: string, swapSeen: boolean[]) => (swap: boolean) => {
      order.push(m);
      swapSeen.push(swap);
      t += 30;
      return new Promise<void>((r) => setImmediate(r));
    };
    const swaps: boolean[] = [];
    const jobs = [q.run('a', work('a', swaps))];
    for (let i = 0; i < 10; i++) jobs.push(q.run('a', work('a', swaps)));
    jobs.push(q.run('b', work('b', swaps)));
    await Promise.all(jobs);
    const bAt = order.indexOf('b');
    assert.ok(bAt > 0 && bAt <= 5, `b served after at most the quantum (position ${bAt} of ${order.join('')})`);
    assert.equal(swaps.filter(Boolean).length, q.stats().swaps, 'tasks are told when they load a model');
    assert.deepEqual(q.stats().swaps, order.join('').replace(/(.)\1+/g, '$1').length, 'a swap per change of model');
  });

  it('more than maxWaiting requests are refused at once (503 AI_BUSY at the endpoint)', async () => {
    const q = createModelQueue({ concurrency: 1, quantumMs: 100, maxWaiting: 2 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = q.run('a', () => gate);
    const waiting = [q.run('a', async () => undefined), q.run('b', async () => undefined)];
    await assert.rejects(
      q.run('a', async () => undefined),
      /already waiting/,
    );
    release();
    await Promise.all([first, ...waiting]);
  });
});
