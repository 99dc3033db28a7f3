// The bridge's metrics (decision B69), the seam every part counts through. Each part gets only the
// narrow hook it needs in its options (sign-in: `signIn`, the oracle: `onObservations`, the AI
// feature: `onModelCall`, …), so no feature imports prom-client or another feature; readings that a
// table holds (the outbox backlog, the subscribers' lag) are taken at scrape time.
import { sql } from 'kysely';
import type { Metrics } from '@domdao/service-kit';
import type { Db } from '../db/schema.ts';

/** What the sign-in feature counts (decision B69): refused passwords and lockouts, never who. */
export interface SignInCounters {
  failed(): void;
  lockedOut(): void;
}

/** An observation of one price source as the oracle judged it (its name and when it was observed). */
export interface SourceObservation {
  name: string;
  observed_at: number | null;
}

export type CallOutcome = 'ok' | 'error';

/** What the live streams count (decisions V37, V38): refusals and drops by reason, open streams by kind. */
export interface LiveStreamCounters {
  refused(reason: string): void;
  dropped(reason: string): void;
  open(read: () => Record<string, number>): void;
}

export interface BridgeMetrics {
  readonly registry: Metrics;
  readonly signIn: SignInCounters;
  sessionCreated(): void;
  jobFinished(job: string, outcome: string, seconds: number): void;
  followerPassed(follower: string, at: number): void;
  priceObserved(observations: readonly SourceObservation[]): void;
  canisterCall(canister: string, method: string, seconds: number, outcome: CallOutcome): void;
  modelCall(model: string, operation: string, seconds: number, outcome: CallOutcome): void;
  embeddedSyncFailed(): void;
  /** A member refused with 429 by a per-member limit (decision B92), by the limit's name. */
  memberLimited(limit: string): void;
  readonly liveStreams: LiveStreamCounters;
}

export function bridgeMetrics(metrics: Metrics, now: () => number = Date.now): BridgeMetrics {
  const sessions = metrics.counter('bridge_sessions_created_total', 'sessions created (successful sign-ins)');
  const signInFailures = metrics.counter(
    'bridge_sign_in_failures_total',
    'sign-ins refused for a wrong email or password',
  );
  const lockouts = metrics.counter(
    'bridge_sign_in_lockouts_total',
    'sign-ins refused with 429 TOO_MANY_ATTEMPTS (a client or account locked out)',
  );
  const memberLimited = metrics.counter(
    'bridge_member_limit_refusals_total',
    'member requests refused with 429 RATE_LIMITED by a per-member limit (proposals, delegation_changes, member_searches; decision B92)',
    ['limit'],
  );
  const jobs = metrics.counter(
    'bridge_job_runs_total',
    'scheduled job runs by job and outcome (succeeded, skipped, failed)',
    ['job', 'outcome'],
  );
  const jobSeconds = metrics.histogram('bridge_job_run_duration_seconds', 'duration of job runs by job', ['job']);
  const followed = new Map<string, number>();
  metrics.gauge(
    'bridge_event_follower_last_pass_timestamp_seconds',
    'Unix time of the last successful pass of each canister follower',
    ['follower'],
    (g) => {
      for (const [follower, at] of followed) g.set({ follower }, at / 1000);
    },
  );
  const sources = new Map<string, number | null>();
  metrics.gauge(
    'bridge_price_source_age_seconds',
    'age of the last observation of each price source (absent until it answered once)',
    ['source'],
    (g) => {
      g.reset();
      const t = now();
      for (const [source, at] of sources) if (at !== null) g.set({ source }, Math.max(0, (t - at) / 1000));
    },
  );
  const canisterCalls = metrics.histogram(
    'bridge_canister_call_duration_seconds',
    'canister calls by canister, method and outcome',
    ['canister', 'method', 'outcome'],
  );
  const modelCalls = metrics.histogram(
    'bridge_ai_model_duration_seconds',
    'inference server calls by model, operation and outcome',
    ['model', 'operation', 'outcome'],
  );
  const syncFailures = metrics.counter(
    'bridge_embedded_database_sync_failures_total',
    'failed syncs of the embedded database (decision P16: a restart is needed)',
  );
  const liveRefused = metrics.counter(
    'bridge_live_streams_refused_total',
    'live streams refused by reason (instance_full, anonymous_share_full: 503; per_client: 429)',
    ['reason'],
  );
  const liveDropped = metrics.counter(
    'bridge_live_streams_dropped_total',
    'live streams dropped by reason (slow_reader: LIVE_MAX_BUFFER_BYTES waiting)',
    ['reason'],
  );
  let liveOpen: () => Record<string, number> = () => ({});
  metrics.gauge(
    'bridge_live_streams',
    'live streams open on this instance by kind (member, anonymous)',
    ['kind'],
    (g) => {
      for (const [kind, n] of Object.entries(liveOpen())) g.set({ kind }, n);
    },
  );
  return {
    registry: metrics,
    signIn: { failed: () => signInFailures.inc(), lockedOut: () => lockouts.inc() },
    sessionCreated: () => sessions.inc(),
    jobFinished(job, outcome, seconds) {
      jobs.inc({ job, outcome });
      jobSeconds.observe({ job }, seconds);
    },
    followerPassed: (follower, at) => void followed.set(follower, at),
    priceObserved(observations) {
      // A source that failed this time keeps its last good observation: its age grows.
      for (const o of observations)
        if (o.observed_at !== null || !sources.has(o.name))
          sources.set(o.name, o.observed_at ?? sources.get(o.name) ?? null);
    },
    canisterCall: (canister, method, seconds, outcome) => canisterCalls.observe({ canister, method, outcome }, seconds),
    modelCall: (model, operation, seconds, outcome) => modelCalls.observe({ model, operation, outcome }, seconds),
    embeddedSyncFailed: () => syncFailures.inc(),
    memberLimited: (limit) => memberLimited.inc({ limit }),
    liveStreams: {
      refused: (reason) => liveRefused.inc({ reason }),
      dropped: (reason) => liveDropped.inc({ reason }),
      open: (read) => void (liveOpen = read),
    },
  };
}

/** Scrape-time readings of the bridge's tables: the outbox backlog and how far each event subscriber lags. */
export function tableGauges(metrics: Metrics, db: Db, now: () => number = Date.now): void {
  // One query serves both outbox gauges; prom-client collects every metric of a scrape at once.
  let reading: Promise<{ pending: number; oldest: number | undefined }> | undefined;
  const outbox = () =>
    (reading ??= db
      .selectFrom('bridge_outbox')
      .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.min('created_at').as('oldest')])
      .where('state', '=', 'pending')
      .executeTakeFirst()
      .then((row) => ({
        pending: Number(row?.n ?? 0),
        oldest: row?.oldest ? new Date(row.oldest as unknown as string).getTime() : undefined,
      }))
      .finally(() => setTimeout(() => (reading = undefined), 500).unref()));
  metrics.gauge('bridge_outbox_pending', 'outbox operations not yet done (decision B22)', [], async (g) => {
    g.set((await outbox()).pending);
  });
  metrics.gauge(
    'bridge_outbox_oldest_pending_age_seconds',
    'age of the oldest pending outbox operation; 0 when none is pending',
    [],
    async (g) => {
      const { oldest } = await outbox();
      g.set(oldest === undefined ? 0 : Math.max(0, (now() - oldest) / 1000));
    },
  );
  metrics.gauge(
    'bridge_event_subscriber_lag_events',
    'bridge events each durable subscriber has not handled yet',
    ['subscriber'],
    async (g) => {
      const { rows } = await sql<{ subscriber: string; lag: string }>`
      select c.subscriber, greatest(0, coalesce((select max(seq) from bridge_events), 0) - c.last_seq)::text as lag from event_cursors c`.execute(
        db,
      );
      g.reset();
      for (const r of rows) g.set({ subscriber: r.subscriber }, Number(r.lag));
    },
  );
}
