// The scheduled jobs' runs in the admin console (decision F34): one block per job, entries newest
// first, streaks of skipped runs folded into a line that opens, failing jobs first and marked.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, useApi, type Answer, type Loaded } from '../api.ts';

type Run = Answer<'listJobRuns'>['items'][number];
type Group = Answer<'listJobRunsGrouped'>['jobs'][number];
type Entry = Group['entries'][number];

/** A run's status as a badge; a failure in the bad colour. */
export const Status = ({ status }: { status: string }) => <span class={`badge s-${status}`}>{status}</span>;

// Decision F34: the console says times in UTC, one zone for every admin wherever they are.
const HM = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' } as const;
const today = () => new Date().toISOString().slice(0, 10);
/** "9 Mar" this year, "9 Mar 2025" another year (UTC). */
const dayOf = (iso: string) =>
  new Date(iso).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
    ...(iso.slice(0, 4) !== today().slice(0, 4) && { year: 'numeric' }),
  });
const timeOf = (iso: string) => new Date(iso).toLocaleTimeString('en-GB', HM);
/** "10:58 UTC" today, "9 Mar, 10:58 UTC" another day. */
const at = (iso: string) => (iso.slice(0, 10) === today() ? `${timeOf(iso)} UTC` : `${dayOf(iso)}, ${timeOf(iso)} UTC`);
/** "10:02–10:58 UTC" within one day (its date first when it is not today), both in full otherwise. */
function span(from: string, to: string): string {
  if (from.slice(0, 10) !== to.slice(0, 10)) return `${at(from).replace(' UTC', '')} – ${at(to)}`;
  return `${from.slice(0, 10) === today() ? '' : `${dayOf(from)}, `}${timeOf(from)}–${timeOf(to)} UTC`;
}
function every(seconds: number): string {
  if (seconds % 86_400 === 0) return seconds === 86_400 ? 'daily' : `every ${seconds / 86_400} days`;
  if (seconds % 3600 === 0) return seconds === 3600 ? 'hourly' : `every ${seconds / 3600} h`;
  if (seconds % 60 === 0) return `every ${seconds / 60} min`;
  return `every ${seconds} s`;
}
const CODE = /^[a-z]+(?:_[a-z]+)*$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
/** Why a run did what it did (`reason` in its detail): a code in words (`no_aggregate` → "no aggregate"), a sentence as it is. */
export function reason(r: Run): string {
  const why = r.detail?.reason;
  if (typeof why !== 'string') return '';
  return CODE.test(why) ? why.replace(/_/g, ' ') : why;
}
/** A run's message: its error, else its reason and up to three plain facts of its detail (no URL, nothing the reason says already). */
function message(r: Run): string {
  if (r.error) return r.error;
  const d = (r.detail ?? {}) as Record<string, unknown>;
  const why = typeof d.reason === 'string' ? d.reason : undefined;
  const facts = Object.entries(d)
    .filter(([k]) => k !== 'reason' && k !== 'action' && !(why && k.startsWith(why)))
    .filter(([, v]) => typeof v === 'number' || (typeof v === 'string' && !/^https?:/.test(v)))
    .slice(0, 3)
    .map(([k, v]) => {
      const text =
        typeof v === 'number'
          ? Number.isInteger(v)
            ? String(v)
            : v.toFixed(2)
          : ISO.test(v as string)
            ? at(v as string)
            : (v as string);
      return `${k.replace(/_/g, ' ')} ${text}`;
    });
  return [reason(r), ...facts].filter(Boolean).join(' · ');
}

/** The runs behind a fold, read when it is opened: GET /api/admin/jobs/runs from the fold's newest run. */
function FoldRuns({ job, entry }: { job: string; entry: Entry }) {
  const limit = Math.min(entry.count, 200);
  const runs = useApi<Answer<'listJobRuns'>>(
    `/api/admin/jobs/runs?job=${encodeURIComponent(job)}&before_id=${BigInt(entry.run.id) + 1n}&limit=${limit}`,
  );
  if (runs.error) return <p class="error">{runs.error.message}</p>;
  if (!runs.data) return <p aria-busy="true">Loading…</p>;
  return (
    <>
      <ol class="fold-runs" tabIndex={0} aria-label={`The ${entry.count} skipped runs`}>
        {runs.data.items.map((r) => (
          <li key={r.id}>
            <time dateTime={r.started_at}>{at(r.started_at)}</time> {r.trigger === 'manual' ? '(manual) ' : ''}
            <span class="muted">{message(r)}</span>
          </li>
        ))}
      </ol>
      {entry.count > limit ? (
        <p class="muted">
          The newest {limit} of {entry.count}.
        </p>
      ) : null}
    </>
  );
}

function EntryItem({ job, entry }: { job: string; entry: Entry }) {
  const r = entry.run;
  const [open, setOpen] = useState(false);
  if (entry.count > 1)
    return (
      <li class="run folded" data-status="skipped" data-count={entry.count}>
        <details onToggle={(e) => setOpen(e.currentTarget.open)}>
          <summary>
            <strong class="skipped">skipped {entry.count} times</strong>,{' '}
            {span(entry.first_started_at, entry.last_started_at)}
            {message(r) ? <span class="muted"> · latest: {message(r)}</span> : null}
          </summary>
          {open ? <FoldRuns job={job} entry={entry} /> : null}
        </details>
      </li>
    );
  return (
    <li class={`run ${r.status === 'failed' ? 'bad' : ''}`} data-status={r.status}>
      <Status status={r.status} /> <time dateTime={r.started_at}>{at(r.started_at)}</time>
      {r.trigger === 'manual' ? <span class="muted"> (manual)</span> : null}
      {message(r) ? <span class={r.status === 'failed' ? 'error' : 'muted'}> · {message(r)}</span> : null}
      {r.retry_at ? <span class="muted"> · retried at {at(r.retry_at)}</span> : null}
    </li>
  );
}

function JobGroup({ group }: { group: Group }) {
  const [older, setOlder] = useState<{ entries: Entry[]; next: string | null }>({
    entries: [],
    next: group.next_before_id,
  });
  const [error, setError] = useState('');
  // A reload of the list (a run just triggered) starts the group over.
  useEffect(() => setOlder({ entries: [], next: group.next_before_id }), [group]);
  const latest = group.entries[0]?.run;
  const failed = latest?.status === 'failed';
  const more = async () => {
    setError('');
    try {
      const page = await api<Answer<'listJobRunsGrouped'>>(
        `/api/admin/jobs/runs/grouped?job=${encodeURIComponent(group.job)}&limit=10&before_id=${older.next}`,
      );
      const g = page.jobs[0];
      // The server folds a streak whole on the page it starts (decision B79): pages never split one.
      setOlder({ entries: [...older.entries, ...(g?.entries ?? [])], next: g?.next_before_id ?? null });
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };
  const id = `job-${group.job.replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <li class={`job ${failed ? 'bad' : ''}`} data-job={group.job}>
      <div class="row">
        <h3 id={id}>
          <code>{group.job}</code>
        </h3>
        {latest ? (
          <span>
            {failed ? <strong class="error">Last run failed </strong> : null}
            <Status status={latest.status} />
          </span>
        ) : null}
      </div>
      <p class="muted">
        {every(group.every_seconds)} · next {at(group.next_slot)}
      </p>
      {group.entries.length === 0 ? <p class="muted">Not run yet.</p> : null}
      <ul class="runs">
        {[...group.entries, ...older.entries].map((e) => (
          <EntryItem key={e.run.id} job={group.job} entry={e} />
        ))}
      </ul>
      {older.next ? (
        <button type="button" class="secondary small" onClick={() => void more()}>
          Older runs of {group.job}
        </button>
      ) : null}
      {error ? <p class="error">{error}</p> : null}
    </li>
  );
}

/** Decision F34: every job's newest runs, the latest first, consecutive skipped runs folded into one line that opens. */
export function JobRuns({ runs }: { runs: Loaded<Answer<'listJobRunsGrouped'>> }) {
  return (
    <section class="card" aria-labelledby="runs-h">
      <h2 id="runs-h">Job runs</h2>
      <p class="muted">
        Newest first. A job whose last run failed comes first; consecutive skipped runs are one line (open it for each
        run).
      </p>
      {runs.error ? <p class="error">{runs.error.message}</p> : null}
      <ul class="jobs">
        {(runs.data?.jobs ?? []).map((g) => (
          <JobGroup key={g.job} group={g} />
        ))}
      </ul>
    </section>
  );
}
