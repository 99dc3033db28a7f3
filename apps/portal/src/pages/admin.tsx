// The admin console (decisions F7, F28, F33–F35): users (find by email or name, roles, sessions, KYC
// approval and rejection with a reason), the price-proposal job run from a button with its outcome,
// the scheduled jobs' runs grouped by job with streaks of skipped runs folded, escrowed payments, mint
// failures, failed emails, the governance event log. Usable at 375 px: cards, stacked table rows.
// The server checks the admin role on every call (403 otherwise); hiding the page is convenience.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, useApi, usd, when, type Answer, type Loaded } from '../api.ts';
import { AdminOnly } from '../session.tsx';

/** What the console puts before a rejection's reason; with it the reference stays within the bridge's 200 characters (decision F35). */
const REJECTED = 'rejected: ';
const REASON_MAX = 200 - REJECTED.length;

/** Decision F28: find by email (exact) or name (part); each user a card that fits 375 px; KYC approved or rejected with a reason. */
function Users() {
  const [find, setFind] = useState('');
  const [query, setQuery] = useState('limit=20');
  const users = useApi<Answer<'listUsers'>>(`/api/admin/users?${query}`);
  const [msg, setMsg] = useState('');
  const [reasons, setReasons] = useState<Record<string, string>>({});
  const act = async (what: string, call: () => Promise<unknown>) => {
    setMsg('');
    try {
      await call();
      setMsg(what);
      users.reload();
    } catch (err) {
      setMsg(err instanceof ApiError ? err.message : String(err));
    }
  };
  return (
    <section class="card" aria-labelledby="users-h">
      <h2 id="users-h">Users</h2>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          const f = find.trim();
          setQuery(!f ? 'limit=20' : f.includes('@') ? `email=${encodeURIComponent(f)}` : `name=${encodeURIComponent(f)}&limit=50`);
        }}
      >
        <label class="grow">
          Find by email or name
          <input id="find-user" value={find} onInput={(e) => setFind(e.currentTarget.value)} placeholder="member@example.org or Grace" />
        </label>
        <button type="submit">Find</button>
      </form>
      <p role="status">{msg}</p>
      <ul class="list">
        {(users.data?.users ?? []).map((u) => (
          <li key={u.user_id} class="item user">
            <strong>{u.display_name}</strong>
            <span class="email">{u.email ?? '(address unreadable)'}</span>
            <span class="muted">
              {u.roles.join(', ')} · KYC {u.kyc_status} · membership {u.membership_status ?? 'none'} · since {when(u.created_at)}
            </span>
            {u.kyc_status === 'rejected' && u.kyc_reference?.startsWith(REJECTED) ? (
              <span class="why">Rejected because: {u.kyc_reference.slice(REJECTED.length)}</span>
            ) : null}
            <div class="actions">
              {u.kyc_status !== 'approved' ? (
                <button
                  type="button"
                  class="small"
                  onClick={() => void act('KYC approved.', () => api(`/api/admin/users/${u.user_id}/kyc`, { method: 'POST', body: { approved: true } }))}
                >
                  Approve KYC
                </button>
              ) : null}
              {u.kyc_status === 'none' ? (
                <>
                  <label class="sr-only" for={`reason-${u.user_id}`}>
                    Reason for rejecting {u.display_name}
                  </label>
                  <input
                    id={`reason-${u.user_id}`}
                    class="reason"
                    placeholder="Reason to reject"
                    maxLength={REASON_MAX}
                    value={reasons[u.user_id] ?? ''}
                    onInput={(e) => setReasons({ ...reasons, [u.user_id]: e.currentTarget.value })}
                  />
                  <button
                    type="button"
                    class="secondary small"
                    disabled={!(reasons[u.user_id] ?? '').trim()}
                    onClick={() =>
                      void act('KYC rejected.', () =>
                        api(`/api/admin/users/${u.user_id}/kyc`, {
                          method: 'POST',
                          body: { approved: false, reference: `${REJECTED}${reasons[u.user_id]!.trim()}` },
                        }),
                      )
                    }
                  >
                    Reject KYC
                  </button>
                </>
              ) : null}
              <button
                type="button"
                class="secondary small"
                onClick={() => void act('Sessions ended.', () => api(`/api/admin/users/${u.user_id}/sessions`, { method: 'DELETE' }))}
              >
                End sessions
              </button>
            </div>
          </li>
        ))}
      </ul>
      {users.data && users.data.users.length === 0 ? <p>No user matches.</p> : null}
      {users.error ? <p class="error">{users.error.message}</p> : null}
    </section>
  );
}

type Run = Answer<'listJobRuns'>['items'][number];
type Group = Answer<'listJobRunsGrouped'>['jobs'][number];
type Entry = Group['entries'][number];

/** A run's status as a badge; a failure in the bad colour. */
const Status = ({ status }: { status: string }) => <span class={`badge s-${status}`}>{status}</span>;

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
function reason(r: Run): string {
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
      const text = typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : ISO.test(v as string) ? at(v as string) : (v as string);
      return `${k.replace(/_/g, ' ')} ${text}`;
    });
  return [reason(r), ...facts].filter(Boolean).join(' · ');
}

/** The runs behind a fold, read when it is opened: GET /api/admin/jobs/runs from the fold's newest run. */
function FoldRuns({ job, entry }: { job: string; entry: Entry }) {
  const limit = Math.min(entry.count, 200);
  const runs = useApi<Answer<'listJobRuns'>>(`/api/admin/jobs/runs?job=${encodeURIComponent(job)}&before_id=${BigInt(entry.run.id) + 1n}&limit=${limit}`);
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
            <strong class="skipped">skipped {entry.count} times</strong>, {span(entry.first_started_at, entry.last_started_at)}
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
  const [older, setOlder] = useState<{ entries: Entry[]; next: string | null }>({ entries: [], next: group.next_before_id });
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
function JobRuns({ runs }: { runs: Loaded<Answer<'listJobRunsGrouped'>> }) {
  return (
    <section class="card" aria-labelledby="runs-h">
      <h2 id="runs-h">Job runs</h2>
      <p class="muted">Newest first. A job whose last run failed comes first; consecutive skipped runs are one line (open it for each run).</p>
      {runs.error ? <p class="error">{runs.error.message}</p> : null}
      <ul class="jobs">
        {(runs.data?.jobs ?? []).map((g) => (
          <JobGroup key={g.job} group={g} />
        ))}
      </ul>
    </section>
  );
}

type Outcome = { status: string; code?: string; message: string; proposalId?: string };
/** The documented answers of POST /api/admin/price/submit-proposal (decision O22) as the run's status. */
const SKIPPED = new Set(['PRICE_STALE', 'PROPOSAL_PENDING', 'NO_AGGREGATE']);

/** Decision F33: the price-proposal job run from the console with the admin's session; its outcome shown. */
function PriceJob({ onRan }: { onRan(): void }) {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>();
  const run = async () => {
    setBusy(true);
    setOutcome(undefined);
    try {
      const r = await api<Answer<'submitPriceProposal'>>('/api/admin/price/submit-proposal', { method: 'POST' });
      setOutcome({
        status: r.run.status,
        message: `Run ${r.run.id}: SetDomPrice proposal ${r.proposal_id} submitted at ${usd(r.price_usd)} per DOM (${reason(r.run)}).`,
        proposalId: r.proposal_id,
      });
    } catch (err) {
      if (err instanceof ApiError)
        setOutcome({
          status: SKIPPED.has(err.code) ? 'skipped' : err.code === 'PROPOSAL_NOT_SUBMITTED' ? 'failed' : 'not run',
          code: err.code,
          message: err.message,
        });
      else setOutcome({ status: 'not run', message: String(err) });
    } finally {
      setBusy(false);
      onRan();
    }
  };
  return (
    <section class="card" aria-labelledby="price-h">
      <h2 id="price-h">Price proposal</h2>
      <p class="muted">
        Runs the price-proposal job now. A stale price or a SetDomPrice proposal still pending stops it; the minimum change does not (decision O18).
      </p>
      <button type="button" onClick={() => void run()} disabled={busy} aria-busy={busy}>
        {busy ? 'Running…' : 'Run the price job now'}
      </button>
      <div class="outcome" role="status">
        {outcome ? (
          <p class={outcome.status === 'failed' || outcome.status === 'not run' ? 'bad' : ''}>
            <Status status={outcome.status.replace(' ', '-')} /> {outcome.code ? <code>{outcome.code}</code> : null} {outcome.message}{' '}
            {outcome.proposalId ? <a href={`/proposals/${outcome.proposalId}`}>Open the proposal</a> : null}
          </p>
        ) : null}
      </div>
    </section>
  );
}

function Listing<T>({
  title,
  path,
  pick,
  columns,
  empty,
}: {
  title: string;
  path: string;
  pick(d: unknown): T[];
  columns: Array<[string, (row: T) => string]>;
  empty: string;
}) {
  const d = useApi<unknown>(path);
  const rows = d.data ? pick(d.data) : [];
  const id = `h-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {d.error ? <p class="error">{d.error.message}</p> : null}
      {d.data && rows.length === 0 ? <p>{empty}</p> : null}
      {rows.length ? (
        // Decision F35: at phone widths each row is a block of "label value" lines (styles.css table.stack).
        <table class="stack">
          <thead>
            <tr>
              {columns.map(([h]) => (
                <th key={h} scope="col">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i}>
                {columns.map(([h, f]) => (
                  <td key={h} data-label={h}>
                    {f(r)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

type Payment = Answer<'listPayments'>['payments'][number];
type Note = Answer<'listAdminNotifications'>['notifications'][number];
type Email = Answer<'listMemberEmails'>['items'][number];
type Ev = Answer<'listGovernanceEvents'>['items'][number];

function Console() {
  const runs = useApi<Answer<'listJobRunsGrouped'>>('/api/admin/jobs/runs/grouped?limit=5');
  return (
    <>
      <h1>Admin console</h1>
      <Users />
      <PriceJob onRan={runs.reload} />
      <JobRuns runs={runs} />
      <Listing<Payment>
        title="Payments in escrow"
        path="/api/admin/payments?status=escrow"
        pick={(d) => (d as Answer<'listPayments'>).payments}
        columns={[
          ['When', (p) => when(p.created_at)],
          ['User', (p) => p.user_id?.slice(0, 8) ?? '—'],
          ['Amount', (p) => `${(Number(p.amount_minor) / 100).toFixed(2)} ${p.currency}`],
          ['Why', (p) => p.reason ?? ''],
        ]}
        empty="No payment is held in escrow."
      />
      <Listing<Note>
        title="Mint failures"
        path="/api/admin/notifications"
        pick={(d) => (d as Answer<'listAdminNotifications'>).notifications}
        columns={[
          ['When', (n) => when(n.at)],
          ['Type', (n) => n.type],
          ['User', (n) => n.user_id?.slice(0, 8) ?? '—'],
          ['Attempts', (n) => String(n.attempts)],
          ['Last error', (n) => n.last_error],
        ]}
        empty="No membership token failed to mint."
      />
      <Listing<Email>
        title="Failed emails"
        path="/api/admin/emails?status=failed&limit=20"
        pick={(d) => (d as Answer<'listMemberEmails'>).items}
        columns={[
          ['Updated', (e) => when(e.updated_at)],
          ['Template', (e) => e.template],
          ['Attempts', (e) => String(e.attempts)],
          ['Why', (e) => e.last_error ?? ''],
        ]}
        empty="Every email went out."
      />
      <Listing<Ev>
        title="Governance event log"
        path="/api/governance/admin/events?limit=20"
        pick={(d) => [...(d as Answer<'listGovernanceEvents'>).items].reverse()}
        columns={[
          ['#', (e) => e.seq],
          ['When', (e) => when(e.occurred_at)],
          ['Event', (e) => e.type],
          ['Proposal', (e) => String(e.data.proposal_id ?? '')],
        ]}
        empty="No governance event yet."
      />
      <section class="card" aria-labelledby="ops-h">
        <h2 id="ops-h">Operator commands</h2>
        <p>The AI reindex takes the operators' API token, not a session (decision F7); scripts may run the price job with it too:</p>
        <pre>
          curl -X POST -H "X-API-Token: $API_TOKEN" {location.origin}/api/ai/admin/reindex{'\n'}curl -X POST -H "X-API-Token: $API_TOKEN" {location.origin}
          /api/admin/price/submit-proposal
        </pre>
      </section>
    </>
  );
}

export function AdminPage() {
  return (
    <AdminOnly what="console">
      <Console />
    </AdminOnly>
  );
}
