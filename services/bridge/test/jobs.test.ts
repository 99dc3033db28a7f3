// The jobs seam (decisions V16–V21): durable scheduled jobs on PostgreSQL and PGlite. Two
// runners (two bridge instances) on one database run each due slot once; a run that throws is
// retried with backoff up to its tries; a run whose instance dies (a SIGKILLed process) is declared
// interrupted and its slot retried; runNow records a manual run and waits for a busy job; close()
// aborts and releases; the history lists every run, newest first, and the admin endpoints show it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { openDatabase } from '../src/core/db/connect.ts';
import type { Db } from '../src/core/db/schema.ts';
import { openTemplateDatabase } from './embedded-template.ts';
import { JobBusyError, type JobContext, type JobRun } from '../src/core/jobs/types.ts';
import { JobRunner } from '../src/core/jobs/runner.ts';
import { slotStart } from '../src/core/jobs/slots.ts';
import { ADMIN_EMAIL, bridge, freshPostgres } from './harness.ts';

const MIN = 60_000;
const T0 = Date.parse('2026-11-23T21:00:00Z');

/** Two "instances": PostgreSQL = two pools on one database; PGlite = two runners on its one connection. */
async function twoDatabases(kind: 'pglite' | 'postgres'): Promise<{ a: Db; b: Db; close(): Promise<void> }> {
  if (kind === 'pglite') {
    const d = await openTemplateDatabase();
    return { a: d.db, b: d.db, close: () => d.close() };
  }
  const p = await freshPostgres('bridge_jobs');
  const a = await openDatabase({ url: p.url });
  const b = await openDatabase({ url: p.url });
  return {
    a: a.db,
    b: b.db,
    async close() {
      await a.close();
      await b.close();
      await p.drop();
    },
  };
}

for (const kind of ['pglite', 'postgres'] as const) {
  describe(`jobs on ${kind}`, () => {
    it('two instances: each due slot runs once, in every instance race (V16)', async () => {
      const dbs = await twoDatabases(kind);
      let now = T0 + 5_000;
      const ran: string[] = [];
      const run = async (ctx: JobContext) => {
        ran.push(`${ctx.slot}@${ctx.attempt}`);
        await new Promise((r) => setTimeout(r, 20)); // long enough for the other instance to look meanwhile
        return { detail: { slot: ctx.slot } };
      };
      const a = new JobRunner({ db: dbs.a, now: () => now, instanceId: 'a' });
      const b = new JobRunner({ db: dbs.b, now: () => now, instanceId: 'b' });
      for (const r of [a, b]) r.define({ name: 'test:every-minute', everyMs: MIN, run });
      try {
        for (let slot = 0; slot < 4; slot++) {
          await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
          await Promise.all([a.tick(), b.tick()]); // settled: nothing more in this slot
          now += MIN;
        }
        assert.deepEqual(ran, [
          '2026-11-23T21:00:00.000Z@1',
          '2026-11-23T21:01:00.000Z@1',
          '2026-11-23T21:02:00.000Z@1',
          '2026-11-23T21:03:00.000Z@1',
        ]);
        const runs = await a.runs({ job: 'test:every-minute' });
        assert.equal(runs.length, 4);
        assert.deepEqual(
          runs.map((r) => r.status),
          ['succeeded', 'succeeded', 'succeeded', 'succeeded'],
        );
        assert.deepEqual(runs[0]!.detail, { slot: '2026-11-23T21:03:00.000Z' }, 'newest first, detail kept as JSON');
        assert.equal(runs[0]!.scheduled_for, '2026-11-23T21:03:00.000Z');
        assert.ok(runs.every((r) => r.finished_at !== null && r.trigger === 'schedule'));
      } finally {
        await a.close();
        await b.close();
        await dbs.close();
      }
    });

    it('a run that throws is failed, retried with backoff, and given up after maxAttempts (V18)', async () => {
      const p = kind === 'postgres' ? await freshPostgres('bridge_jobs') : undefined;
      const d = await (p ? openDatabase({ url: p.url }) : openTemplateDatabase());
      let now = T0;
      let failures = 5;
      const r = new JobRunner({ db: d.db, now: () => now });
      r.define({
        name: 'test:flaky',
        everyMs: 60 * MIN,
        maxAttempts: 3,
        retryDelayMs: MIN,
        run: async () => {
          if (failures-- > 0) throw new Error('source unreachable');
          return { outcome: 'skipped', detail: { why: 'nothing to do' } };
        },
      });
      try {
        await r.tick();
        let [run] = await r.runs();
        assert.equal(run!.status, 'failed');
        assert.equal(run!.error, 'source unreachable');
        assert.equal(run!.retry_at, new Date(T0 + MIN).toISOString());
        await r.tick(); // not yet due
        assert.equal((await r.runs())[0]!.attempt, 1);
        now += MIN;
        await r.tick();
        [run] = await r.runs();
        assert.deepEqual(
          [run!.attempt, run!.status, run!.retry_at],
          [2, 'failed', new Date(now + 2 * MIN).toISOString()],
          'the delay doubles',
        );
        now += 2 * MIN;
        await r.tick();
        [run] = await r.runs();
        assert.deepEqual(
          [run!.attempt, run!.status, run!.retry_at],
          [3, 'failed', null],
          'no tries left: failed for good',
        );
        now += 10 * MIN;
        await r.tick();
        assert.equal((await r.runs()).length, 1, 'one row per slot, attempts counted on it');
        now = T0 + 60 * MIN; // the next slot runs afresh
        failures = 0;
        await r.tick();
        [run] = await r.runs();
        assert.deepEqual(
          [run!.slot, run!.status, run!.attempt, run!.detail],
          ['2026-11-23T22:00:00.000Z', 'skipped', 1, { why: 'nothing to do' }],
        );
      } finally {
        await r.close();
        await d.close();
        await p?.drop();
      }
    });

    it('runNow records a manual run with its input; a busy job makes it wait, then JobBusyError (V19)', async () => {
      const d = await openTemplateDatabase();
      let release!: () => void;
      const r = new JobRunner({ db: d.db, now: () => T0 });
      const inputs: unknown[] = [];
      r.define({
        name: 'test:manual',
        everyMs: 24 * 60 * MIN,
        offsetMs: 3 * 60 * MIN,
        run: async (ctx) => {
          inputs.push(ctx.input);
          if (ctx.trigger === 'schedule') await new Promise<void>((res) => (release = res));
          return { detail: { trigger: ctx.trigger } };
        },
      });
      try {
        const scheduled = r.tick(); // holds the lease until released
        await new Promise((res) => setTimeout(res, 50));
        await assert.rejects(r.runNow('test:manual', { waitMs: 200 }), JobBusyError);
        const manual = r.runNow('test:manual', { input: { by: 'admin' }, waitMs: 5_000 });
        await new Promise((res) => setTimeout(res, 100));
        release();
        await scheduled;
        const run: JobRun = await manual;
        assert.equal(run.trigger, 'manual');
        assert.equal(run.status, 'succeeded');
        assert.match(run.slot, /^manual:[0-9a-f-]{36}$/);
        assert.deepEqual(inputs, [undefined, { by: 'admin' }]);
        const runs = await r.runs({ job: 'test:manual' });
        assert.deepEqual(
          runs.map((x) => [x.trigger, x.slot.startsWith('manual:') ? 'manual' : x.slot]),
          [
            ['manual', 'manual'],
            ['schedule', '2026-11-23T03:00:00.000Z'],
          ],
          'daily at 03:00 UTC: the slot of 23 Nov started at 03:00',
        );
        const [info] = await r.list();
        assert.equal(info!.next_slot, '2026-11-24T03:00:00.000Z');
        assert.equal(info!.lease_owner, null, 'released after the runs');
        assert.equal(info!.last_run!.id, run.id);
      } finally {
        await r.close();
        await d.close();
      }
    });
  });
}

describe('jobs: crashes and shutdown', () => {
  it('an instance killed mid-run (SIGKILL): its run is declared interrupted and the slot retried elsewhere (V18)', async () => {
    const p = await freshPostgres('bridge_jobs');
    const d = await openDatabase({ url: p.url });
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./fixtures/job-crash-child.ts', import.meta.url))],
      {
        env: { ...process.env, JOBS_TEST_DATABASE_URL: p.url, JOBS_TEST_NOW: String(T0) },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (b: Buffer) => {
          out += b.toString();
          if (out.includes('started')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`the child exited (${code}) before its job started`)));
      });
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      let now = T0 + 10_000;
      const attempts: number[] = [];
      const r = new JobRunner({ db: d.db, now: () => now, instanceId: 'survivor', leaseMs: MIN });
      r.define({ name: 'test:crash', everyMs: 60 * MIN, run: async (ctx) => void attempts.push(ctx.attempt) });
      await r.tick();
      assert.deepEqual(attempts, [], 'the dead instance still holds the lease until it expires');
      assert.equal((await r.runs())[0]!.status, 'running');
      now = T0 + 2 * MIN;
      await r.tick();
      await r.tick();
      assert.deepEqual(attempts, [2], 'retried once, as the second attempt');
      const [run] = await r.runs();
      assert.deepEqual([run!.status, run!.attempt, run!.slot], ['succeeded', 2, '2026-11-23T21:00:00.000Z']);
      await r.close();
    } finally {
      child.kill('SIGKILL');
      await d.close();
      await p.drop();
    }
  });

  it('a run that outlives its lease loses it: the next holder retries the slot and the late finish records nothing (V18)', async () => {
    const d = await openTemplateDatabase();
    let now = T0;
    let finishSlow!: () => void;
    const signals: AbortSignal[] = [];
    const slow = new JobRunner({ db: d.db, now: () => now, instanceId: 'slow', leaseMs: 3_600_000 });
    const other = new JobRunner({ db: d.db, now: () => now, instanceId: 'other', leaseMs: MIN });
    slow.define({
      name: 'test:lease',
      everyMs: 60 * MIN,
      run: async (ctx) => {
        signals.push(ctx.signal);
        await new Promise<void>((r) => (finishSlow = r));
        return { detail: { by: 'slow' } };
      },
    });
    other.define({ name: 'test:lease', everyMs: 60 * MIN, run: async () => ({ detail: { by: 'other' } }) });
    try {
      const first = slow.tick();
      await new Promise((r) => setTimeout(r, 50));
      now = T0 + 59 * MIN; // still the same slot
      await d.db
        .updateTable('jobs')
        .set({ lease_until: new Date(T0) })
        .where('name', '=', 'test:lease')
        .execute(); // as if it had not renewed
      await other.tick();
      finishSlow();
      await first;
      const [run] = await other.runs();
      assert.deepEqual(
        [run!.status, run!.attempt, run!.detail],
        ['succeeded', 2, { by: 'other' }],
        "the slow instance's late success does not overwrite the retry",
      );
    } finally {
      await slow.close();
      await other.close();
      await d.close();
    }
  });

  it("decision V19: in one instance a manual run waits for the scheduled run of its job even when the clock has moved past that run's lease; neither is failed as interrupted, they never overlap", async () => {
    const d = await openTemplateDatabase();
    let now = T0;
    let finishScheduled!: () => void;
    let running = 0;
    let most = 0;
    const r = new JobRunner({ db: d.db, now: () => now, leaseMs: MIN });
    r.define({
      name: 'test:one-at-a-time',
      everyMs: 60 * MIN,
      run: async (ctx) => {
        most = Math.max(most, ++running);
        if (ctx.trigger === 'schedule') await new Promise<void>((res) => (finishScheduled = res));
        running--;
        return { detail: { trigger: ctx.trigger } };
      },
    });
    try {
      const scheduled = r.tick();
      await new Promise((res) => setTimeout(res, 50));
      // A test's clock jump (or an NTP step) past the lease, with its holder still running and not yet renewed.
      now = T0 + 2 * 24 * 60 * MIN;
      const manual = r.runNow('test:one-at-a-time', { waitMs: 5_000 });
      await new Promise((res) => setTimeout(res, 100));
      assert.equal(most, 1, 'the manual run has not started beside the scheduled one');
      finishScheduled();
      await scheduled;
      const run = await manual;
      assert.deepEqual([run.trigger, run.status, run.error], ['manual', 'succeeded', null]);
      const runs = await r.runs({ job: 'test:one-at-a-time' });
      assert.deepEqual(
        runs.map((x) => [x.trigger, x.status]),
        [
          ['manual', 'succeeded'],
          ['schedule', 'succeeded'],
        ],
      );
      assert.equal(most, 1);
    } finally {
      await r.close();
      await d.close();
    }
  });

  it('decision V19: runNow with waitMs 0 waits at least RELEASE_GRACE_MS (250 ms) for a run of its job in this instance, and no longer', async () => {
    const d = await openTemplateDatabase();
    let finish!: () => void;
    const r = new JobRunner({ db: d.db, now: () => T0 });
    r.define({
      name: 'test:grace',
      everyMs: 60 * MIN,
      run: async (ctx) => {
        if (ctx.input === 'hold') await new Promise<void>((res) => (finish = res));
        return { detail: {} };
      },
    });
    try {
      const held = r.runNow('test:grace', { input: 'hold' });
      await new Promise((res) => setTimeout(res, 50));
      const inGrace = r.runNow('test:grace', { waitMs: 0 });
      setTimeout(() => finish(), 100); // inside the 250 ms
      assert.equal((await held).status, 'succeeded');
      assert.equal((await inGrace).status, 'succeeded', 'a run ending 100 ms later is waited for');
      const again = r.runNow('test:grace', { input: 'hold' });
      await new Promise((res) => setTimeout(res, 50));
      const t0 = Date.now();
      await assert.rejects(r.runNow('test:grace', { waitMs: 0 }), JobBusyError);
      assert.ok(Date.now() - t0 >= 240, `refused after the grace, ${Date.now() - t0} ms`);
      finish();
      await again;
    } finally {
      await r.close();
      await d.close();
    }
  });

  it('close() aborts the run in flight, records it failed and releases the lease; another instance retries (V21)', async () => {
    const d = await openTemplateDatabase();
    let now = T0;
    const a = new JobRunner({ db: d.db, now: () => now, instanceId: 'a' });
    const b = new JobRunner({ db: d.db, now: () => now, instanceId: 'b' });
    a.define({
      name: 'test:shutdown',
      everyMs: 60 * MIN,
      run: (ctx) =>
        new Promise((_res, rej) => ctx.signal.addEventListener('abort', () => rej(ctx.signal.reason as Error))),
    });
    const done: string[] = [];
    b.define({ name: 'test:shutdown', everyMs: 60 * MIN, run: async (ctx) => void done.push(`${ctx.attempt}`) });
    try {
      void a.tick();
      await new Promise((r) => setTimeout(r, 50));
      await a.close();
      let [run] = await b.runs();
      assert.deepEqual(
        [run!.status, run!.error, run!.retry_at],
        ['failed', 'the bridge is shutting down', new Date(T0 + MIN).toISOString()],
      );
      assert.equal((await d.db.selectFrom('jobs').select('lease_owner').executeTakeFirstOrThrow()).lease_owner, null);
      now += MIN;
      await b.tick();
      [run] = await b.runs();
      assert.deepEqual([run!.status, run!.attempt, done], ['succeeded', 2, ['2']]);
    } finally {
      await b.close();
      await d.close();
    }
  });

  it('slots: aligned to the epoch plus the offset', () => {
    assert.equal(
      slotStart({ everyMs: 3_600_000 }, Date.parse('2026-11-23T21:59:59.999Z')),
      Date.parse('2026-11-23T21:00:00Z'),
    );
    assert.equal(
      slotStart({ everyMs: 86_400_000, offsetMs: 3 * 3_600_000 }, Date.parse('2026-11-23T02:59:59Z')),
      Date.parse('2026-11-22T03:00:00Z'),
    );
    assert.throws(
      () => new JobRunner({ db: {} as Db }).define({ name: 'Bad Name', everyMs: 60_000, run: async () => undefined }),
      /job name/,
    );
    assert.throws(
      () => new JobRunner({ db: {} as Db }).define({ name: 'ok', everyMs: 10, run: async () => undefined }),
      /at least 1000/,
    );
  });
});

describe('jobs: admin endpoints (V20)', () => {
  it('GET /api/admin/jobs and /api/admin/jobs/runs: admin only, the history newest first with paging', async () => {
    const h = await bridge();
    try {
      let n = 0;
      h.app.jobs.define({ name: 'test:http', everyMs: MIN, run: async () => ({ detail: { n: ++n } }) });
      // The app's own runner is live (it started when the app was ready): it may run a slot too.
      for (let i = 0; i < 3; i++) {
        await h.app.jobs.tick();
        h.advance(MIN);
      }
      await h.app.jobs.tick();
      assert.equal(n, 4, 'four slots, each run once');
      const member = await h.member('jobs-member@domdao.example');
      assert.equal((await h.request({ method: 'GET', url: '/api/admin/jobs/runs' })).statusCode, 401);
      assert.equal((await h.request({ method: 'GET', url: '/api/admin/jobs/runs', jar: member.jar })).statusCode, 403);
      const admin = await h.member(ADMIN_EMAIL);
      const page = await h.request({
        method: 'GET',
        url: '/api/admin/jobs/runs?job=test:http&limit=2',
        jar: admin.jar,
      });
      assert.equal(page.statusCode, 200, page.body);
      assert.equal(page.headers['cache-control'], 'private, no-store');
      const body = page.json() as { items: JobRun[]; next_before_id: string };
      assert.deepEqual(
        body.items.map((r) => r.detail),
        [{ n: 4 }, { n: 3 }],
      );
      const rest = (
        await h.request({
          method: 'GET',
          url: `/api/admin/jobs/runs?job=test:http&limit=2&before_id=${body.next_before_id}`,
          jar: admin.jar,
        })
      ).json() as { items: JobRun[]; next_before_id: string | null };
      assert.deepEqual(
        rest.items.map((r) => r.detail),
        [{ n: 2 }, { n: 1 }],
      );
      const last = (
        await h.request({
          method: 'GET',
          url: `/api/admin/jobs/runs?job=test:http&limit=2&before_id=${rest.next_before_id}`,
          jar: admin.jar,
        })
      ).json() as { items: JobRun[]; next_before_id: string | null };
      assert.deepEqual([last.items, last.next_before_id], [[], null]);
      assert.equal(
        (await h.request({ method: 'GET', url: '/api/admin/jobs/runs?job=nope', jar: admin.jar })).json().error,
        'JOB_NOT_FOUND',
      );
      const jobs = (await h.request({ method: 'GET', url: '/api/admin/jobs', jar: admin.jar })).json() as {
        items: { name: string; every_seconds: number; last_run: JobRun }[];
      };
      const mine = jobs.items.find((j) => j.name === 'test:http')!;
      assert.deepEqual([mine.every_seconds, mine.last_run.detail], [60, { n: 4 }]);
    } finally {
      await h.close();
    }
  });
});
