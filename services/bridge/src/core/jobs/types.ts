// The jobs seam's public types and errors (see runner.ts), and a run's row as the database returns it.
import type { Db } from '../db/schema.ts';

export type JobTrigger = 'schedule' | 'manual';
export type JobStatus = 'running' | 'succeeded' | 'skipped' | 'failed';

export interface JobContext {
  job: string;
  /** Id of this run's row (decimal string). */
  runId: string;
  /** `2026-11-23T21:00:00.000Z` for a scheduled slot, `manual:<uuid>` for runNow: an idempotency key. */
  slot: string;
  trigger: JobTrigger;
  /** 1 on the first try of the slot; higher on retries after a failure or a crash. */
  attempt: number;
  /** Aborted on shutdown or when the lease was lost: stop soon, nothing after it is recorded as success. */
  signal: AbortSignal;
  /** What runNow was given (manual runs), else undefined. */
  input: unknown;
  now(): number;
}

/** What a run returns: `skipped` when it decided there was nothing to do; `detail` is kept as JSON. */
export interface JobOutcome {
  outcome?: 'succeeded' | 'skipped';
  detail?: Record<string, unknown>;
}

export interface JobSpec {
  /** Stable name, feature-prefixed: `price:proposal`, `inbox:digest`. */
  name: string;
  /** Slot length (ms, at least 1 s). */
  everyMs: number;
  /** Slot boundaries at epoch + offsetMs + k·everyMs, e.g. daily at 03:00 UTC: everyMs 86_400_000, offsetMs 10_800_000. */
  offsetMs?: number;
  /** Tries per scheduled slot (a throw or a crash counts), default 3. Manual runs are tried once. */
  maxAttempts?: number;
  /** Delay before retrying a slot whose run threw, doubling per attempt; default 60 s. A crashed run is retried at once. */
  retryDelayMs?: number;
  run(ctx: JobContext): Promise<JobOutcome | void>;
}

export interface JobRun {
  id: string;
  job: string;
  slot: string;
  trigger: JobTrigger;
  status: JobStatus;
  attempt: number;
  scheduled_for: string;
  started_at: string;
  finished_at: string | null;
  /** When a failed scheduled slot will be tried again; null when it will not. */
  retry_at: string | null;
  detail: Record<string, unknown> | null;
  error: string | null;
}

export interface JobInfo {
  name: string;
  every_seconds: number;
  offset_seconds: number;
  next_slot: string;
  lease_owner: string | null;
  lease_until: string | null;
  last_run: JobRun | null;
}

export class JobBusyError extends Error {
  constructor(readonly job: string) {
    super(`job ${job} is running; try again when it has finished`);
  }
}

export class UnknownJobError extends Error {
  constructor(readonly job: string) {
    super(`no job named ${job}`);
  }
}

export interface JobRunnerOptions {
  db: Db;
  now?: () => number;
  /** This instance's name in leases and runs; random by default. */
  instanceId?: string;
  /** A held lease lasts this long unless renewed (renewed every third of it while a run goes on). Default 60 s. */
  leaseMs?: number;
  /** How often due slots are looked for. Default 1 s. */
  pollMs?: number;
  log?: { info(o: object, m: string): void; warn(o: object, m: string): void; error(o: object, m: string): void };
  /** Told of each finished run (the bridge's metrics, decision B69). */
  onRunFinished?: (job: string, status: JobStatus, seconds: number) => void;
}

export type Row = {
  id: string | number;
  job: string;
  slot: string;
  trigger: string;
  status: string;
  attempt: number;
  scheduled_for: Date | string;
  started_at: Date | string;
  finished_at: Date | string | null;
  retry_at: Date | string | null;
  detail: unknown;
  error: string | null;
};

export const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export function toRun(r: Row): JobRun {
  const detail =
    typeof r.detail === 'string'
      ? (JSON.parse(r.detail) as Record<string, unknown>)
      : ((r.detail ?? null) as Record<string, unknown> | null);
  return {
    id: String(r.id),
    job: r.job,
    slot: r.slot,
    trigger: r.trigger as JobTrigger,
    status: r.status as JobStatus,
    attempt: Number(r.attempt),
    scheduled_for: iso(r.scheduled_for)!,
    started_at: iso(r.started_at)!,
    finished_at: iso(r.finished_at),
    retry_at: iso(r.retry_at),
    detail,
    error: r.error,
  };
}
