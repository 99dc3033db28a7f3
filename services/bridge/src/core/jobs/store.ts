// What the jobs seam writes (decisions V16–V19): a run's row as it is claimed, started by hand,
// finished, or failed as interrupted. One row per (job, slot), so across instances a slot runs once;
// every write names the run's owner, so a late finish of a run another instance took over changes
// nothing. history.ts reads these rows.
import { sql } from 'kysely';
import type { Db } from '../db/schema.ts';
import type { JobStatus, Row } from './types.ts';

/**
 * Claims a scheduled slot: inserts its row, or takes back its failed row once its retry is due. The
 * claimed row's id and attempt, or nothing when another instance has it or it is settled.
 */
export async function claimSlot(
  db: Db,
  o: { job: string; slot: string; scheduledFor: Date; owner: string; at: Date },
): Promise<{ id: string; attempt: number } | undefined> {
  const inserted = await db
    .insertInto('job_runs')
    .values({
      job: o.job,
      slot: o.slot,
      trigger: 'schedule',
      status: 'running',
      attempt: 1,
      owner: o.owner,
      scheduled_for: o.scheduledFor,
      started_at: o.at,
    })
    .onConflict((oc) => oc.columns(['job', 'slot']).doNothing())
    .returning(['id', 'attempt'])
    .executeTakeFirst();
  const claimed =
    inserted ??
    (await db
      .updateTable('job_runs')
      .set((eb) => ({
        status: 'running',
        attempt: eb('attempt', '+', 1),
        owner: o.owner,
        started_at: o.at,
        finished_at: null,
        retry_at: null,
        error: null,
        detail: null,
      }))
      .where('job', '=', o.job)
      .where('slot', '=', o.slot)
      .where('status', '=', 'failed')
      .where('retry_at', '<=', o.at)
      .returning(['id', 'attempt'])
      .executeTakeFirst());
  return claimed && { id: String(claimed.id), attempt: Number(claimed.attempt) };
}

/** A run started by hand (`runNow`): a slot of its own, so it never takes a scheduled slot's place. */
export async function insertManualRun(
  db: Db,
  o: { job: string; slot: string; owner: string; at: Date },
): Promise<{ id: string; slot: string }> {
  const row = await db
    .insertInto('job_runs')
    .values({
      job: o.job,
      slot: o.slot,
      trigger: 'manual',
      status: 'running',
      attempt: 1,
      owner: o.owner,
      scheduled_for: o.at,
      started_at: o.at,
    })
    .returning(['id', 'slot'])
    .executeTakeFirstOrThrow();
  return { id: String(row.id), slot: row.slot };
}

/**
 * Records how a run ended. Only the run's owner finishes it, and only while it is still running at
 * this attempt: nothing (undefined) when another instance already declared it interrupted.
 */
export function finishRun(
  db: Db,
  run: { id: string; owner: string; attempt: number },
  end: {
    status: JobStatus;
    at: Date;
    detail: Record<string, unknown> | null;
    error: string | null;
    retryAt: Date | null;
  },
): Promise<Row | undefined> {
  return db
    .updateTable('job_runs')
    .set({
      status: end.status,
      finished_at: end.at,
      detail: end.detail === null ? null : JSON.stringify(end.detail),
      error: end.error,
      retry_at: end.retryAt,
    })
    .where('id', '=', run.id)
    .where('owner', '=', run.owner)
    .where('status', '=', 'running')
    .where('attempt', '=', run.attempt)
    .returningAll()
    .executeTakeFirst();
}

/**
 * For the lease's new holder: every run of `job` still `running` belongs to a holder that died. Each
 * is failed as interrupted; a scheduled slot with tries left is due for retry at once.
 */
export function failInterrupted(
  db: Db,
  job: string,
  maxAttempts: number,
  at: Date,
): Promise<Array<{ id: string; owner: string; slot: string }>> {
  return db
    .updateTable('job_runs')
    .set((eb) => ({
      status: 'failed',
      finished_at: at,
      error: 'interrupted: the instance running it stopped before it finished',
      retry_at: sql<Date | null>`case when ${eb.ref('trigger')} = 'schedule' and ${eb.ref('attempt')} < ${maxAttempts} then ${at}::timestamptz end`,
    }))
    .where('job', '=', job)
    .where('status', '=', 'running')
    .returning(['id', 'owner', 'slot'])
    .execute();
}
