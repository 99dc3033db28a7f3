// The jobs seam (decisions V16–V21): durable scheduled jobs on PostgreSQL and PGlite, safe
// with any number of bridge instances.
// - A job's time is cut into slots (slots.ts); a due slot is claimed by inserting its (job, slot) row,
//   unique, so across instances each slot runs once.
// - Every run of a job (scheduled or `runNow`) holds the job's lease row, renewed while it runs, so
//   two runs of one job never overlap; a lease that expires means its holder died, and the next
//   holder marks that run `failed` ("interrupted") and retries the slot (at-least-once per slot).
// - Every run is a row (store.ts): trigger, status, attempt, started/finished, detail JSON, error.
// The clock is injected (`now`): leases, slots and retries use it, never the database's clock, so
// tests move time; instances are assumed NTP-synchronised (a lease is a minute by default).
import { inNewTrace } from '@domdao/service-kit';
import { randomUUID } from 'node:crypto';
import { isEmbeddedDatabaseFailed } from '../db/errors.ts';
import type { Db } from '../db/schema.ts';
import { foldRuns, orderGroups, type JobGroup } from './folds.ts';
import { jobInfos, listRuns, runById, type RunsQuery } from './history.ts';
import { JobLeases } from './leases.ts';
import { RELEASE_GRACE_MS, settlesBy } from './in-process.ts';
import { scheduleProblem, slotKey, slotStart } from './slots.ts';
import { claimSlot, failInterrupted, finishRun, insertManualRun } from './store.ts';
import {
  toRun,
  type JobInfo,
  type JobRun,
  type JobRunnerOptions,
  type JobSpec,
  type JobStatus,
  type JobTrigger,
  JobBusyError,
  UnknownJobError,
} from './types.ts';

const NAME = /^[a-z0-9][a-z0-9:._-]{0,63}$/;

interface Job {
  spec: Required<Omit<JobSpec, 'offsetMs'>> & { offsetMs: number };
  /** In-memory hint: the slot known to be settled and when to look again (no query every poll). */
  settledSlot?: string;
  recheckAt: number;
  inflight?: Promise<void>;
}

export class JobRunner {
  readonly instanceId: string;
  readonly #db: Db;
  readonly #now: () => number;
  readonly #leaseMs: number;
  readonly #pollMs: number;
  readonly #log: JobRunnerOptions['log'];
  readonly #onRunFinished: JobRunnerOptions['onRunFinished'];
  readonly #leases: JobLeases;
  readonly #jobs = new Map<string, Job>();
  readonly #running = new Set<Promise<unknown>>();
  readonly #stop = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(o: JobRunnerOptions) {
    this.#db = o.db;
    this.#now = o.now ?? Date.now;
    this.instanceId = o.instanceId ?? randomUUID();
    this.#leaseMs = o.leaseMs ?? 60_000;
    this.#pollMs = o.pollMs ?? 1_000;
    this.#log = o.log;
    this.#onRunFinished = o.onRunFinished;
    this.#leases = new JobLeases(this.#db, this.#now, this.#leaseMs, this.instanceId);
  }

  /** Registers a job (before or after start). Throws on a bad name or schedule, or a duplicate name. */
  define(spec: JobSpec): void {
    if (!NAME.test(spec.name))
      throw new Error(`job name ${JSON.stringify(spec.name)}: lowercase letters, digits and : . _ -, at most 64`);
    const problem = scheduleProblem(spec);
    if (problem) throw new Error(`job ${spec.name}: ${problem}`);
    if (this.#jobs.has(spec.name)) throw new Error(`job ${spec.name} is already defined`);
    const maxAttempts = spec.maxAttempts ?? 3;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
      throw new Error(`job ${spec.name}: maxAttempts must be a positive integer`);
    this.#jobs.set(spec.name, {
      spec: { ...spec, offsetMs: spec.offsetMs ?? 0, maxAttempts, retryDelayMs: spec.retryDelayMs ?? 60_000 },
      recheckAt: 0,
    });
  }

  /** Looks for due slots every pollMs (unref'd timer) until close(). */
  start(): void {
    if (this.#closed || this.#timer) return;
    const loop = () => {
      if (this.#closed) return;
      void this.#pass(false);
      this.#timer = setTimeout(loop, this.#pollMs).unref();
    };
    this.#timer = setTimeout(loop, 0).unref();
  }

  /**
   * One pass: for each job, runs its current slot if it is due and this instance claims it (after a
   * run of that job already going on here has finished). Resolves when those runs have finished
   * (tests drive time with this).
   */
  tick(): Promise<void> {
    return this.#pass(true);
  }

  #pass(waitForBusy: boolean): Promise<void> {
    const started: Promise<void>[] = [];
    for (const job of this.#jobs.values()) {
      if (this.#closed || (job.inflight && !waitForBusy)) continue;
      const previous = job.inflight ?? Promise.resolve();
      const p = previous
        .then(() => (this.#closed ? undefined : this.#track(this.#scheduled(job))))
        .catch((err: unknown) => {
          // A failed embedded database was logged once (database.sync_failed); a line per pass adds nothing.
          if (!isEmbeddedDatabaseFailed(err))
            this.#log?.warn(
              { event: 'jobs.tick_failed', job: job.spec.name, err: err instanceof Error ? err.message : String(err) },
              'looking for a due job slot failed; retrying',
            );
          job.recheckAt = this.#now() + this.#pollMs;
        });
      const mine: Promise<void> = p.finally(() => {
        if (job.inflight === mine) job.inflight = undefined;
      });
      job.inflight = mine;
      started.push(mine);
    }
    return Promise.all(started).then(() => undefined);
  }

  /**
   * Runs a job now, outside its schedule, once (an admin trigger): waits up to `waitMs` (default 10 s)
   * for a run of the same job to finish, then JobBusyError. Resolves with the finished run's record.
   */
  async runNow(name: string, opts: { input?: unknown; waitMs?: number } = {}): Promise<JobRun> {
    const job = this.#jobs.get(name);
    if (!job) throw new UnknownJobError(name);
    if (this.#closed) throw new Error('the job runner is closed');
    const deadline = Date.now() + (opts.waitMs ?? 10_000);
    // A run of this job already going on in this instance finishes first (V19): the lease alone cannot
    // tell two runs of one instance apart once the clock has moved past it, and the later one's orphan
    // sweep would fail the earlier one as interrupted.
    const previous = job.inflight;
    let released!: () => void;
    const done = new Promise<void>((r) => (released = r));
    const run = this.#track(
      (async () => {
        try {
          // A run whose end is recorded lets go of the lease a database round trip later: waited for even by a
          // caller who asked not to wait (the reindex route), who has seen it finished in the history.
          if (previous && !(await settlesBy(previous, Math.max(deadline, Date.now() + RELEASE_GRACE_MS))))
            throw new JobBusyError(name);
          return await this.#manual(job, name, deadline, opts.input);
        } finally {
          released();
        }
      })(),
    );
    // Until this run has let go of the lease and every earlier run of the job in this instance has settled (one that
    // gave up waiting too): no wider than the lease's own window between a run's recorded end and its release.
    const mine: Promise<void> = Promise.allSettled([previous, done]).then(() => undefined);
    job.inflight = mine;
    void mine.then(() => {
      if (job.inflight === mine) job.inflight = undefined;
    });
    return run;
  }

  /** A manual run under the lease, asked for until `deadline`. */
  async #manual(job: Job, name: string, deadline: number, input: unknown): Promise<JobRun> {
    for (;;) {
      if (await this.#leases.acquire(name)) break;
      if (Date.now() >= deadline) throw new JobBusyError(name);
      await new Promise((r) => setTimeout(r, 50));
    }
    try {
      await this.#recoverOrphans(job);
      const row = await insertManualRun(this.#db, {
        job: name,
        slot: `manual:${randomUUID()}`,
        owner: this.instanceId,
        at: new Date(this.#now()),
      });
      return await this.#execute(job, row.id, row.slot, 'manual', 1, input);
    } finally {
      await this.#leases.release(name);
    }
  }

  /** Run history, newest first, keyset-paged by id. */
  runs(q: RunsQuery = {}): Promise<JobRun[]> {
    return listRuns(this.#db, q);
  }

  /**
   * Decision B79: each defined job (or only `job`) with its runs older than `beforeId`, newest first,
   * streaks of consecutive skipped runs folded, `limit` entries a job; jobs whose newest run failed first.
   */
  async grouped(q: { job?: string; beforeId?: string; limit: number }): Promise<JobGroup[]> {
    const groups: JobGroup[] = [];
    for (const { spec } of this.#jobs.values()) {
      if (q.job !== undefined && spec.name !== q.job) continue;
      const folded = await foldRuns(this.#db, spec.name, {
        limit: q.limit,
        ...(q.beforeId !== undefined && { beforeId: q.beforeId }),
      });
      groups.push({
        job: spec.name,
        every_seconds: spec.everyMs / 1000,
        next_slot: slotKey(slotStart(spec, this.#now()) + spec.everyMs),
        ...folded,
      });
    }
    return orderGroups(groups);
  }

  run(id: string): Promise<JobRun | undefined> {
    return runById(this.#db, id);
  }

  /** The defined jobs with their next slot, lease and last run. */
  list(): Promise<JobInfo[]> {
    return jobInfos(
      this.#db,
      [...this.#jobs.values()].map((j) => j.spec),
      this.#now(),
    );
  }

  has(name: string): boolean {
    return this.#jobs.has(name);
  }

  /** Stops looking for slots, aborts runs in flight (their signal), waits for them, releases leases. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#stop.abort();
    while (this.#running.size) await Promise.allSettled([...this.#running]);
  }

  #track<T>(p: Promise<T>): Promise<T> {
    this.#running.add(p);
    void p.finally(() => this.#running.delete(p)).catch(() => undefined);
    return p;
  }

  async #scheduled(job: Job): Promise<void> {
    const { spec } = job;
    const now = this.#now();
    const start = slotStart(spec, now);
    const slot = slotKey(start);
    if (job.settledSlot === slot && now < job.recheckAt) return;
    // Cheap look first: a settled slot needs no lease.
    const seen = await this.#db
      .selectFrom('job_runs')
      .select(['status', 'retry_at'])
      .where('job', '=', spec.name)
      .where('slot', '=', slot)
      .executeTakeFirst();
    if (seen && !(seen.status === 'running' || (seen.status === 'failed' && seen.retry_at !== null))) {
      job.settledSlot = slot;
      job.recheckAt = start + spec.everyMs;
      return;
    }
    if (seen?.status === 'failed' && new Date(seen.retry_at!).getTime() > now) {
      job.settledSlot = slot;
      job.recheckAt = new Date(seen.retry_at!).getTime();
      return;
    }
    if (!(await this.#leases.acquire(spec.name))) {
      // Another instance holds the lease: look again once it could have expired.
      job.settledSlot = slot;
      job.recheckAt = Math.min(now + this.#leaseMs, start + spec.everyMs);
      return;
    }
    try {
      await this.#recoverOrphans(job);
      const claimed = await claimSlot(this.#db, {
        job: spec.name,
        slot,
        scheduledFor: new Date(start),
        owner: this.instanceId,
        at: new Date(this.#now()),
      });
      if (claimed) await this.#execute(job, claimed.id, slot, 'schedule', claimed.attempt, undefined);
      job.settledSlot = slot;
      job.recheckAt = 0; // look at this slot once more: it may need a retry
    } finally {
      await this.#leases.release(spec.name);
    }
  }

  /** Runs the handler under the lease (renewed meanwhile) and records how it ended. */
  async #execute(
    job: Job,
    runId: string,
    slot: string,
    trigger: JobTrigger,
    attempt: number,
    input: unknown,
  ): Promise<JobRun> {
    const { spec } = job;
    const abort = new AbortController();
    const onStop = () => abort.abort(new Error('the bridge is shutting down'));
    this.#stop.signal.addEventListener('abort', onStop, { once: true });
    if (this.#stop.signal.aborted) onStop();
    const renew = setInterval(
      () => {
        void this.#leases.renew(spec.name).then(
          (held) => {
            if (!held) abort.abort(new Error('the job lease was lost'));
          },
          () => undefined,
        );
      },
      Math.max(100, Math.floor(this.#leaseMs / 3)),
    );
    renew.unref();
    let status: JobStatus;
    let detail: Record<string, unknown> | null = null;
    let error: string | null = null;
    const t0 = Date.now();
    try {
      // Decision E16: a run is a trace of its own, so its lines and the calls it makes share one trace id.
      const out = await inNewTrace(() =>
        spec.run({ job: spec.name, runId, slot, trigger, attempt, signal: abort.signal, input, now: this.#now }),
      );
      status = out?.outcome ?? 'succeeded';
      detail = out?.detail ?? null;
    } catch (err) {
      status = 'failed';
      error = (err instanceof Error ? err.message : String(err)).slice(0, 2000);
    } finally {
      clearInterval(renew);
      this.#stop.signal.removeEventListener('abort', onStop);
    }
    const now = this.#now();
    const retryAt =
      status === 'failed' && trigger === 'schedule' && attempt < spec.maxAttempts
        ? new Date(now + spec.retryDelayMs * 2 ** (attempt - 1))
        : null;
    const row = await finishRun(
      this.#db,
      { id: runId, owner: this.instanceId, attempt },
      { status, at: new Date(now), detail, error, retryAt },
    );
    this.#onRunFinished?.(spec.name, status, (Date.now() - t0) / 1000);
    const log = status === 'failed' ? this.#log?.warn : this.#log?.info;
    log?.call(
      this.#log,
      {
        event: `jobs.run.${status}`,
        job: spec.name,
        run_id: runId,
        slot,
        trigger,
        attempt,
        ms: Date.now() - t0,
        ...(error && { err: error }),
        ...(retryAt && { retry_at: retryAt.toISOString() }),
      },
      `job ${spec.name} ${status}`,
    );
    if (!row) {
      this.#log?.warn(
        { event: 'jobs.run.superseded', job: spec.name, run_id: runId },
        'a job run finished after its lease was taken over; its outcome was not recorded',
      );
      return (await this.run(runId))!;
    }
    return toRun(row);
  }

  /**
   * Holding the lease, any run of this job still `running` belongs to a holder that died (its lease
   * expired): it is failed as interrupted, and a scheduled slot with tries left is retried at once.
   */
  async #recoverOrphans(job: Job): Promise<void> {
    const rows = await failInterrupted(this.#db, job.spec.name, job.spec.maxAttempts, new Date(this.#now()));
    for (const r of rows)
      this.#log?.warn(
        { event: 'jobs.run.interrupted', job: job.spec.name, run_id: String(r.id), slot: r.slot, owner: r.owner },
        'a job run was interrupted (its instance stopped); the slot is retried if tries remain',
      );
  }
}
