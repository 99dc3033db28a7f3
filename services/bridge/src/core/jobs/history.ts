// What the jobs seam answers about its runs (decisions V16, V20): the run history, newest first and
// keyset-paged by id, one run, and the defined jobs with their next slot, lease and last run.
import type { Db } from '../db/schema.ts';
import { slotKey, slotStart } from './slots.ts';
import { iso, toRun, type JobInfo, type JobRun, type JobSpec, type JobStatus, type Row } from './types.ts';

export interface RunsQuery {
  job?: string;
  status?: JobStatus;
  beforeId?: string;
  limit?: number;
}

export async function listRuns(db: Db, q: RunsQuery = {}): Promise<JobRun[]> {
  let query = db.selectFrom('job_runs').selectAll();
  if (q.job !== undefined) query = query.where('job', '=', q.job);
  if (q.status !== undefined) query = query.where('status', '=', q.status);
  if (q.beforeId !== undefined) query = query.where('id', '<', q.beforeId);
  const rows = await query
    .orderBy('id', 'desc')
    .limit(q.limit ?? 50)
    .execute();
  return rows.map((r) => toRun(r as Row));
}

export async function runById(db: Db, id: string): Promise<JobRun | undefined> {
  const r = await db.selectFrom('job_runs').selectAll().where('id', '=', id).executeTakeFirst();
  return r ? toRun(r) : undefined;
}

export async function jobInfos(
  db: Db,
  specs: Array<Pick<Required<JobSpec>, 'name' | 'everyMs'> & { offsetMs: number }>,
  now: number,
): Promise<JobInfo[]> {
  const out: JobInfo[] = [];
  for (const spec of specs) {
    const lease = await db.selectFrom('jobs').selectAll().where('name', '=', spec.name).executeTakeFirst();
    const [last] = await listRuns(db, { job: spec.name, limit: 1 });
    const held = lease?.lease_until != null && new Date(lease.lease_until).getTime() > now;
    out.push({
      name: spec.name,
      every_seconds: spec.everyMs / 1000,
      offset_seconds: spec.offsetMs / 1000,
      next_slot: slotKey(slotStart(spec, now) + spec.everyMs),
      lease_owner: held ? lease.lease_owner : null,
      lease_until: held ? iso(lease.lease_until) : null,
      last_run: last ?? null,
    });
  }
  return out;
}
