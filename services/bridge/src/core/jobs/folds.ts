// A job's run history with its idle runs folded (decision B79): newest first, each streak of
// consecutive `skipped` runs one entry (how many, from when to when), every other run an entry of its
// own. A page of raw runs cannot be folded by its reader: a job that skips every minute fills any page
// with one streak, hides the other jobs, and the page's last streak may go on past it. Here a streak
// costs two indexed queries however long it is, and each job's page holds `limit` entries.
import { sql } from 'kysely';
import type { Db } from '../db/schema.ts';
import { iso, toRun, type JobRun } from './types.ts';

export interface RunEntry {
  /** The entry's newest run; for a fold, the newest run of the streak. */
  run: JobRun;
  /** The runs the entry stands for: 1, or the length of a streak of consecutive skipped runs. */
  count: number;
  /** The oldest run of the entry (the run itself when count is 1). */
  oldest_id: string;
  /** When the entry's oldest and newest runs started. */
  first_started_at: string;
  last_started_at: string;
}

export interface FoldedRuns {
  entries: RunEntry[];
  /** Pass as before_id for the next entries of this job; null when there are none. */
  next_before_id: string | null;
}

const entryOf = (run: JobRun): RunEntry => ({
  run,
  count: 1,
  oldest_id: run.id,
  first_started_at: run.started_at,
  last_started_at: run.started_at,
});

/** The entries of one job's runs older than `beforeId` (all when undefined), newest first, at most `limit`. */
export async function foldRuns(db: Db, job: string, q: { beforeId?: string; limit: number }): Promise<FoldedRuns> {
  const entries: RunEntry[] = [];
  let cursor = q.beforeId;
  let more = true;
  const older = (id: string | undefined) => {
    const base = db.selectFrom('job_runs').where('job', '=', job);
    return id === undefined ? base : base.where('id', '<', id);
  };
  while (entries.length < q.limit && more) {
    const want = q.limit - entries.length;
    const rows = await older(cursor).selectAll().orderBy('id', 'desc').limit(want).execute();
    if (rows.length < want) more = false;
    for (const row of rows) {
      const run = toRun(row);
      const last = entries.at(-1);
      // Rows come newest first and each either opens an entry or joins the one before it: a skipped run
      // joins a skipped entry only when nothing came between them.
      if (run.status === 'skipped' && last?.run.status === 'skipped') {
        last.count += 1;
        last.oldest_id = run.id;
        if (run.started_at < last.first_started_at) last.first_started_at = run.started_at;
        if (run.started_at > last.last_started_at) last.last_started_at = run.started_at;
      } else entries.push(entryOf(run));
      cursor = run.id;
    }
    const last = entries.at(-1);
    if (!more || last?.run.status !== 'skipped') continue;
    // The page ended inside a streak: find where it stops (the newest run below it that was not
    // skipped) and count the rest of it at once, instead of reading it row by row.
    const stop = await older(last.oldest_id)
      .select('id')
      .where('status', '<>', 'skipped')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    let rest = older(last.oldest_id).where('status', '=', 'skipped');
    if (stop) rest = rest.where('id', '>', String(stop.id));
    const agg = await rest
      .select([
        sql<string | number>`count(*)`.as('n'),
        sql<string | number | null>`min(id)`.as('oldest'),
        sql<Date | string | null>`min(started_at)`.as('first'),
        sql<Date | string | null>`max(started_at)`.as('latest'),
      ])
      .executeTakeFirstOrThrow();
    if (Number(agg.n) > 0) {
      last.count += Number(agg.n);
      last.oldest_id = String(agg.oldest);
      const first = iso(agg.first)!;
      const latest = iso(agg.latest)!;
      if (first < last.first_started_at) last.first_started_at = first;
      if (latest > last.last_started_at) last.last_started_at = latest;
      cursor = last.oldest_id;
    }
    if (!stop) more = false;
  }
  let next: string | null = null;
  if (more && entries.length === q.limit && cursor !== undefined) {
    const any = await older(cursor).select('id').limit(1).executeTakeFirst();
    if (any) next = cursor;
  }
  return { entries, next_before_id: next };
}

export interface JobGroup extends FoldedRuns {
  job: string;
  every_seconds: number;
  /** When the next scheduled slot starts. */
  next_slot: string;
}

/** Decision B79: jobs whose newest run failed first, then by name. */
export function orderGroups(groups: JobGroup[]): JobGroup[] {
  const failed = (g: JobGroup) => (g.entries[0]?.run.status === 'failed' ? 0 : 1);
  return [...groups].sort((a, b) => failed(a) - failed(b) || (a.job < b.job ? -1 : a.job > b.job ? 1 : 0));
}
