// Admin view of the scheduled jobs (decision V20): which jobs exist, when each runs next, who holds
// its lease, and the run history (newest first, keyset-paged); the history grouped by job with streaks
// of skipped runs folded (decision B79).
import type { preHandlerAsyncHookHandler } from 'fastify';
import { Type } from '@sinclair/typebox';
import { Int8Text } from '../http/decimal.ts';
import { HttpError } from '../http/errors.ts';
import type { JobRunner } from './runner.ts';
import type { BridgeApp } from '../http/typed.ts';
import { StrictErrorBody } from '../http/route-doc.ts';

export interface JobRoutesOptions {
  jobs: JobRunner;
  /** Cross-site rule, session and admin role, once for the scope (auth/guards.ts `guards.admin`, decision S2). */
  admin: preHandlerAsyncHookHandler;
}

/** What the two run listings refuse with (plain and grouped). */
const RUNS_ERRORS = {
  400: { description: 'VALIDATION_ERROR', ...StrictErrorBody },
  401: { description: 'UNAUTHORIZED', ...StrictErrorBody },
  403: {
    description: 'FORBIDDEN (not an admin) or CSRF_REJECTED (a mutation from another site, decision B8)',
    ...StrictErrorBody,
  },
  404: { description: 'JOB_NOT_FOUND', ...StrictErrorBody },
};
const JobRunBody = Type.Object({
  id: Type.String(),
  job: Type.String(),
  slot: Type.String({ description: 'the slot start (ISO-8601) of a scheduled run, manual:<uuid> for a manual one' }),
  trigger: Type.Union([Type.Literal('schedule'), Type.Literal('manual')]),
  status: Type.Union(['running', 'succeeded', 'skipped', 'failed'].map((s) => Type.Literal(s))),
  attempt: Type.Integer(),
  scheduled_for: Type.String(),
  started_at: Type.String(),
  finished_at: Type.Union([Type.String(), Type.Null()]),
  retry_at: Type.Union([Type.String(), Type.Null()], { description: 'when a failed scheduled slot is tried again' }),
  detail: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
});
export { JobRunBody };

const runsQuery = Type.Object(
  {
    job: Type.Optional(Type.String({ maxLength: 64 })),
    status: Type.Optional(
      Type.Union((['running', 'succeeded', 'skipped', 'failed'] as const).map((s) => Type.Literal(s))),
    ),
    before_id: Type.Optional(Int8Text('cursor: runs older than this id (use next_before_id)')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  },
  { additionalProperties: false },
);

const groupedQuery = Type.Object(
  {
    job: Type.Optional(
      Type.String({ maxLength: 64, description: 'only this job (its older entries: with before_id)' }),
    ),
    before_id: Type.Optional(Int8Text('entries of runs older than this id (a group’s next_before_id)')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 5, description: 'entries per job' })),
  },
  { additionalProperties: false },
);

const RunEntryBody = Type.Object({
  run: { ...JobRunBody, description: 'the newest run of the entry' },
  count: Type.Integer({ minimum: 1, description: '1, or how many consecutive skipped runs this entry folds' }),
  oldest_id: Type.String({ description: 'the oldest run of the entry (the run’s own id when count is 1)' }),
  first_started_at: Type.String({ description: 'when the oldest run of the entry started' }),
  last_started_at: Type.String({ description: 'when the newest run of the entry started' }),
});

export default async function jobRoutes(app: BridgeApp, opts: JobRoutesOptions): Promise<void> {
  app.addHook('preHandler', opts.admin);
  app.get(
    '/api/admin/jobs',
    {
      schema: {
        summary: 'Scheduled jobs: interval, next slot, lease holder and last run (admin)',
        operationId: 'listJobs',
        description: 'Admin session required; what the scheduler holds for each job now.',
        security: [{ sessionCookie: [] }],
        tags: ['jobs'],
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object({
                name: Type.String(),
                every_seconds: Type.Number(),
                offset_seconds: Type.Number(),
                next_slot: Type.String(),
                lease_owner: Type.Union([Type.String(), Type.Null()]),
                lease_until: Type.Union([Type.String(), Type.Null()]),
                last_run: Type.Union([JobRunBody, Type.Null()]),
              }),
            ),
          }),
          401: { description: 'UNAUTHORIZED', ...StrictErrorBody },
          403: {
            description: 'FORBIDDEN (not an admin) or CSRF_REJECTED (a mutation from another site, decision B8)',
            ...StrictErrorBody,
          },
        },
      },
    },
    async (req, reply) => {
      reply.header('cache-control', 'private, no-store');
      return { items: await opts.jobs.list() };
    },
  );

  app.get(
    '/api/admin/jobs/runs',
    {
      schema: {
        summary: 'Run history of the scheduled jobs, newest first (admin)',
        operationId: 'listJobRuns',
        description:
          'Admin session required; every run with its trigger, outcome and detail, keyset-paged by before_id.',
        security: [{ sessionCookie: [] }],
        tags: ['jobs'],
        querystring: runsQuery,
        response: {
          200: Type.Object({ items: Type.Array(JobRunBody), next_before_id: Type.Union([Type.String(), Type.Null()]) }),
          ...RUNS_ERRORS,
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      if (q.job !== undefined && !opts.jobs.has(q.job))
        throw new HttpError(404, 'JOB_NOT_FOUND', `no job named ${q.job}`);
      const limit = q.limit ?? 50;
      const items = await opts.jobs.runs({
        ...(q.job !== undefined && { job: q.job }),
        ...(q.status && { status: q.status }),
        ...(q.before_id !== undefined && { beforeId: q.before_id }),
        limit,
      });
      reply.header('cache-control', 'private, no-store');
      return { items, next_before_id: items.length === limit ? items[items.length - 1]!.id : null };
    },
  );

  app.get(
    '/api/admin/jobs/runs/grouped',
    {
      schema: {
        summary:
          'Run history by job, newest first, consecutive skipped runs folded into one entry (admin, decision B79)',
        operationId: 'listJobRunsGrouped',
        description:
          'Admin session required. Every defined job (or `job` alone) with its newest `limit` entries: a run that was not skipped is an entry of its own, a streak of consecutive skipped runs one entry with its count and time span. Jobs whose newest run failed come first, then by name. A group’s `next_before_id` with `job` gives its older entries; the runs of a fold are GET /api/admin/jobs/runs?job=…&before_id=<run.id + 1>.',
        security: [{ sessionCookie: [] }],
        tags: ['jobs'],
        querystring: groupedQuery,
        response: {
          200: Type.Object({
            jobs: Type.Array(
              Type.Object({
                job: Type.String(),
                every_seconds: Type.Number(),
                next_slot: Type.String({ description: 'when the next scheduled slot starts' }),
                entries: Type.Array(RunEntryBody),
                next_before_id: Type.Union([Type.String(), Type.Null()]),
              }),
            ),
          }),
          ...RUNS_ERRORS,
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      if (q.job !== undefined && !opts.jobs.has(q.job))
        throw new HttpError(404, 'JOB_NOT_FOUND', `no job named ${q.job}`);
      const jobs = await opts.jobs.grouped({
        limit: q.limit ?? 5,
        ...(q.job !== undefined && { job: q.job }),
        ...(q.before_id !== undefined && { beforeId: q.before_id }),
      });
      reply.header('cache-control', 'private, no-store');
      return { jobs };
    },
  );
}
