// Audit retention (decision B65): the job `audit:retention` deletes rows older than
// AUDIT_RETENTION_DAYS, AUDIT_RETENTION_BATCH rows per transaction, once a day. The database keeps every
// row younger than the floor the migration step records from the same setting (decision B98).
import { sql, type Kysely } from 'kysely';
import type { JobRunner } from '../jobs/runner.ts';
import type { AuditLog } from './log.ts';

export const AUDIT_RETENTION_JOB = 'audit:retention';
const DAY_MS = 86_400_000;

export function defineAuditRetention(o: {
  jobs: JobRunner;
  audit: AuditLog;
  days: number;
  batch: number;
  now: () => number;
}): void {
  o.jobs.define({
    name: AUDIT_RETENTION_JOB,
    everyMs: DAY_MS,
    // Off the hour, away from the other daily jobs.
    offsetMs: 17 * 60_000,
    run: async () => {
      const before = new Date(o.now() - o.days * DAY_MS);
      const r = await o.audit.purge(before, o.batch);
      return { detail: { before: before.toISOString(), deleted: r.deleted, batches: r.batches } };
    },
  });
}

/** Decision B98: the retention audit_log_purge holds to, written as the owner at every migration step. */
export async function recordRetentionFloor(owner: Kysely<unknown>, days: number): Promise<void> {
  await sql`insert into audit_retention_floor (id, days) values (true, ${days}) on conflict (id) do update set days = excluded.days`.execute(
    owner,
  );
}
