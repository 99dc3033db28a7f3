// GET /api/admin/jobs/runs/grouped (decision B79): each job's runs newest first, every streak of
// consecutive skipped runs folded into one entry (its count and time span), jobs whose newest run
// failed first; `limit` entries a job at the limit and one past it; a job's older entries by
// before_id; the runs behind a fold through GET /api/admin/jobs/runs; admin only. On PGlite and PostgreSQL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JobRun } from '../src/core/jobs/types.ts';
import { ADMIN_EMAIL, BACKENDS, bridge, type Bridge, type Jar } from './harness.ts';

const MIN = 60_000;

type Entry = { run: JobRun; count: number; oldest_id: string; first_started_at: string; last_started_at: string };
type Group = { job: string; every_seconds: number; next_slot: string; entries: Entry[]; next_before_id: string | null };

/** A test job whose next outcome the test chooses; every run is a manual run a minute after the last. */
function scripted(h: Bridge, name: string) {
  let next: 'succeeded' | 'skipped' | 'failed' = 'succeeded';
  h.app.jobs.define({
    name,
    everyMs: 3_600_000,
    run: async () => {
      if (next === 'failed') throw new Error('the source answered 500');
      return { outcome: next, detail: { reason: next === 'skipped' ? 'nothing to do' : 'did it' } };
    },
  });
  return async (outcome: typeof next, times = 1): Promise<JobRun[]> => {
    next = outcome;
    const runs: JobRun[] = [];
    for (let i = 0; i < times; i++) {
      h.advance(MIN);
      runs.push(await h.app.jobs.runNow(name));
    }
    return runs;
  };
}

const grouped = async (h: Bridge, jar: Jar, query: string) => {
  const r = await h.request({ method: 'GET', url: `/api/admin/jobs/runs/grouped?${query}`, jar });
  assert.equal(r.statusCode, 200, r.body);
  assert.equal(r.headers['cache-control'], 'private, no-store');
  return (r.json() as { jobs: Group[] }).jobs;
};
const shape = (entries: Entry[]) => entries.map((e) => `${e.run.status}×${e.count}`);

for (const backend of [BACKENDS[0]!, BACKENDS[2]!]) {
  describe(`job runs grouped on ${backend.db} (decision B79)`, () => {
    it('decision B79: consecutive skipped runs fold into one entry with its span; failures and successes stand alone; paged per job', async (t) => {
      const h = await bridge(backend, {}, { jobTimer: false });
      t.after(() => h.close());
      const fold = scripted(h, 'test:fold');
      const broken = scripted(h, 'test:broken');
      // Oldest to newest: succeeded, 3 skipped, failed, 57 skipped.
      const [ok] = await fold('succeeded');
      const early = await fold('skipped', 3);
      const [failed] = await fold('failed');
      const idle = await fold('skipped', 57);
      await broken('succeeded');
      await broken('failed');
      const admin = await h.member(ADMIN_EMAIL);

      const all = await grouped(h, admin.jar, 'limit=50');
      assert.equal(all[0]!.job, 'test:broken', 'a job whose newest run failed comes first');
      const rest = all.slice(1).map((g) => g.job);
      assert.deepEqual(rest, [...rest].sort(), 'then by name');
      assert.ok(rest.includes('price:proposal') && rest.includes('test:fold'), 'every defined job, run or not');
      const f = all.find((g) => g.job === 'test:fold')!;
      assert.deepEqual(shape(f.entries), ['skipped×57', 'failed×1', 'skipped×3', 'succeeded×1']);
      assert.equal(f.next_before_id, null);
      assert.equal(f.every_seconds, 3600);
      const [streak, fail, small, first] = f.entries as [Entry, Entry, Entry, Entry];
      assert.deepEqual(
        [streak.run.id, streak.oldest_id, streak.first_started_at, streak.last_started_at],
        [idle.at(-1)!.id, idle[0]!.id, idle[0]!.started_at, idle.at(-1)!.started_at],
        'a fold names its newest run, its oldest run and its span',
      );
      assert.equal(Date.parse(streak.last_started_at) - Date.parse(streak.first_started_at), 56 * MIN);
      assert.deepEqual(
        [fail.run.id, fail.run.error, fail.count, fail.oldest_id],
        [failed!.id, 'the source answered 500', 1, failed!.id],
      );
      assert.deepEqual([small.run.id, small.oldest_id], [early.at(-1)!.id, early[0]!.id]);
      assert.deepEqual(
        [first.run.id, first.first_started_at, first.last_started_at],
        [ok!.id, ok!.started_at, ok!.started_at],
      );
      assert.equal(
        f.entries.reduce((n, e) => n + e.count, 0),
        62,
        'every run is in exactly one entry',
      );

      // Paged one entry at a time: a streak is whole on every page, whatever the page size.
      const seen: string[] = [];
      let before: string | null = null;
      for (let i = 0; i < 10; i++) {
        const page: Group[] = await grouped(
          h,
          admin.jar,
          `job=test:fold&limit=1${before ? `&before_id=${before}` : ''}`,
        );
        assert.equal(page.length, 1, 'job= answers that job alone');
        seen.push(...shape(page[0]!.entries));
        before = page[0]!.next_before_id;
        if (before === null) break;
      }
      assert.deepEqual(seen, ['skipped×57', 'failed×1', 'skipped×3', 'succeeded×1']);
      // Two entries a page: the second page starts with the failure the first page's streak ended at.
      const two = (await grouped(h, admin.jar, 'job=test:fold&limit=2'))[0]!;
      assert.deepEqual([shape(two.entries), two.next_before_id], [['skipped×57', 'failed×1'], failed!.id]);
      // A page that starts inside a streak folds what is left of it.
      const inside = (await grouped(h, admin.jar, `job=test:fold&limit=1&before_id=${idle[10]!.id}`))[0]!;
      assert.deepEqual([shape(inside.entries), inside.entries[0]!.run.id], [['skipped×10'], idle[9]!.id]);

      // The runs behind a fold, as the console opens it: GET /api/admin/jobs/runs from the fold's newest run.
      const opened = await h.request({
        method: 'GET',
        url: `/api/admin/jobs/runs?job=test:fold&before_id=${BigInt(streak.run.id) + 1n}&limit=${streak.count}`,
        jar: admin.jar,
      });
      const runs = (opened.json() as { items: JobRun[] }).items;
      assert.deepEqual(
        runs.map((r) => r.id),
        [...idle].reverse().map((r) => r.id),
      );
      assert.ok(runs.every((r) => r.status === 'skipped'));

      // The limit: 1 and 50 are taken, 0 and 51 are not; an unknown job is 404; admins only.
      assert.equal((await grouped(h, admin.jar, 'job=test:fold&limit=1'))[0]!.entries.length, 1);
      assert.equal((await grouped(h, admin.jar, 'job=test:fold&limit=50'))[0]!.entries.length, 4);
      for (const bad of ['limit=0', 'limit=51', 'before_id=-1', 'before_id=x', `job=${'x'.repeat(65)}`]) {
        const r = await h.request({ method: 'GET', url: `/api/admin/jobs/runs/grouped?${bad}`, jar: admin.jar });
        assert.deepEqual([r.statusCode, r.json().error], [400, 'VALIDATION_ERROR'], bad);
      }
      const nope = await h.request({
        method: 'GET',
        url: `/api/admin/jobs/runs/grouped?job=${'x'.repeat(64)}`,
        jar: admin.jar,
      });
      assert.deepEqual(
        [nope.statusCode, nope.json().error],
        [404, 'JOB_NOT_FOUND'],
        'a name of 64 characters is a name',
      );
      const member = await h.member('grouped-member@domdao.example');
      assert.equal(
        (await h.request({ method: 'GET', url: '/api/admin/jobs/runs/grouped', jar: member.jar })).statusCode,
        403,
      );
      assert.equal((await h.request({ method: 'GET', url: '/api/admin/jobs/runs/grouped' })).statusCode, 401);
      // The default is five entries a job.
      const five = await fold('succeeded', 6);
      const d = (await grouped(h, admin.jar, 'job=test:fold'))[0]!;
      assert.deepEqual([d.entries.length, d.next_before_id], [5, five[1]!.id]);
    });
  });
}
