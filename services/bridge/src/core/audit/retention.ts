// Audit retention (decision B65): the job `audit:retention` deletes rows older than
// AUDIT_RETENTION_DAYS, AUDIT_RETENTION_BATCH rows per transaction, once a day.
import type { JobRunner } from '../jobs/index.ts';
import type { AuditLog } from './index.ts';

export const AUDIT_RETENTION_JOB = 'audit:retention';
const DAY_MS = 86_400_000;

export function defineAuditRetention(o: { jobs: JobRunner; audit: AuditLog; days: number; batch: number; now: () => number }): void {
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
