// Decision R29: a step of the bridge's start (a plugin's registration, an onReady hook) may take up to
// START_STEP_TIMEOUT_MS, 120 s, before the start fails naming it, not Fastify's 10 s, which a loaded
// machine stretched a correct start past. Time is the test's own (node:test's fake setTimeout, which
// Fastify's loader times the steps with), so nothing here depends on how fast the machine is.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { bridge } from './harness.ts';

/** A gate the test opens, and a promise that a step has started waiting at it. */
function gate() {
  let open!: () => void;
  let started!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const waiting = new Promise<void>((resolve) => (started = resolve));
  return {
    open,
    waiting,
    pass: async () => {
      started();
      await opened;
    },
  };
}

/** A harness bridge with a plugin and an onReady hook that each wait at a gate of the test's. */
async function slowStart(t: TestContext) {
  const h = await bridge(undefined, {}, { jobTimer: false });
  t.after(() => h.close());
  const plugin = gate();
  const hook = gate();
  void h.app.register(async function slowPlugin() {
    await plugin.pass();
  });
  h.app.addHook('onReady', async function slowOnReady() {
    await hook.pass();
  });
  // Fake time from here: the loader's timers are set when each step starts.
  t.mock.timers.enable({ apis: ['setTimeout'] });
  // The start's outcome, caught at once: a failure may come while the test is still moving time.
  const outcome: Promise<'started' | (Error & { code?: string })> = Promise.resolve(h.app.ready()).then(
    () => 'started' as const,
    (e: Error) => e,
  );
  return { outcome, plugin, hook };
}

/** Lets every pending callback run (the step's end reaches the loader in a few turns). */
const turns = async () => {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('decision R29: a slow start step does not fail the start', () => {
  it('a plugin and an onReady hook that each take 119.999 s (fake time) start; Fastify’s default 10 s would have failed both', async (t) => {
    const s = await slowStart(t);
    try {
      await s.plugin.waiting;
      t.mock.timers.tick(119_999);
      s.plugin.open();
      // The hook starts only if the plugin's step was not failed meanwhile.
      assert.equal(await Promise.race([s.hook.waiting.then(() => 'hook' as const), s.outcome]), 'hook');
      t.mock.timers.tick(119_999);
      s.hook.open();
      assert.equal(await s.outcome, 'started');
    } finally {
      t.mock.timers.reset();
    }
  });

  it('a plugin still loading at 120 s fails the start, named', async (t) => {
    const s = await slowStart(t);
    try {
      await s.plugin.waiting;
      t.mock.timers.tick(120_000);
      await turns();
      s.plugin.open(); // too late: the start has failed (without the bound it would go on, and the assertion fail)
      s.hook.open();
      const e = await s.outcome;
      assert.ok(e !== 'started', 'the start went on');
      assert.equal(e.code, 'FST_ERR_PLUGIN_TIMEOUT');
      assert.match(e.message, /slowPlugin/);
    } finally {
      t.mock.timers.reset();
    }
  });

  it('an onReady hook still waiting at 120 s fails the start', async (t) => {
    const s = await slowStart(t);
    try {
      await s.plugin.waiting;
      s.plugin.open();
      await s.hook.waiting;
      t.mock.timers.tick(120_000);
      await turns();
      s.hook.open();
      const e = await s.outcome;
      assert.ok(e !== 'started', 'the start went on');
      assert.equal(e.code, 'FST_ERR_HOOK_TIMEOUT');
      assert.match(e.message, /'onReady' hook timed out/);
    } finally {
      t.mock.timers.reset();
    }
  });
});
