// The admin console (decisions F7, F28, F33–F35): users (find by email or name, roles, sessions, KYC
// approval and rejection with a reason), the price-proposal job run from a button with its outcome,
// the scheduled jobs' runs grouped by job with streaks of skipped runs folded, escrowed payments, mint
// failures, failed emails, the governance event log ten lines a page, newest first (decision F53).
// Usable at 375 px: cards, stacked table rows.
// The server checks the admin role on every call (403 otherwise); hiding the page is convenience.
import { useState } from 'preact/hooks';
import { api, ApiError, useApi, usd, utcTime, type Answer } from '../api.ts';
import { AdminOnly } from '../session.tsx';
import { JobRuns, reason, Status } from '../components/admin-jobs.tsx';

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
          setQuery(
            !f
              ? 'limit=20'
              : f.includes('@')
                ? `email=${encodeURIComponent(f)}`
                : `name=${encodeURIComponent(f)}&limit=50`,
          );
        }}
      >
        <label class="grow">
          Find by email or name
          <input
            id="find-user"
            value={find}
            onInput={(e) => setFind(e.currentTarget.value)}
            placeholder="member@example.org or Grace"
          />
        </label>
        <button type="submit">Find</button>
      </form>
      <p role="status">{msg}</p>
      <ul class="list">
        {(users.data?.users ?? []).map((u) => (
          <li key={u.user_id} class="item user">
            <strong>
              <bdi>{u.display_name}</bdi>
            </strong>
            <span class="email">{u.email ?? '(address unreadable)'}</span>
            {u.registration_name !== null && u.registration_name !== u.display_name ? (
              // Decision F48: the name given at registration, which the search also finds (admins only).
              <span class="muted">
                Registered as <bdi>{u.registration_name}</bdi>
              </span>
            ) : null}
            <span class="muted">
              {u.roles.join(', ')} · KYC {u.kyc_status} · membership {u.membership_status ?? 'none'} · since{' '}
              {utcTime(u.created_at)}
            </span>
            {u.kyc_status === 'rejected' && u.kyc_reference?.startsWith(REJECTED) ? (
              <span class="why">Rejected because: {u.kyc_reference.slice(REJECTED.length)}</span>
            ) : null}
            <div class="actions">
              {u.kyc_status !== 'approved' ? (
                <button
                  type="button"
                  class="small"
                  onClick={() =>
                    void act('KYC approved.', () =>
                      api(`/api/admin/users/${u.user_id}/kyc`, { method: 'POST', body: { approved: true } }),
                    )
                  }
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
                onClick={() =>
                  void act('Sessions ended.', () => api(`/api/admin/users/${u.user_id}/sessions`, { method: 'DELETE' }))
                }
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
        Runs the price-proposal job now. It stops when the price is stale or a price proposal is still pending; a change
        smaller than the usual minimum does not stop it.
      </p>
      <button type="button" onClick={() => void run()} disabled={busy} aria-busy={busy}>
        {busy ? 'Running…' : 'Run the price job now'}
      </button>
      <div class="outcome" role="status">
        {outcome ? (
          <p class={outcome.status === 'failed' || outcome.status === 'not run' ? 'bad' : ''}>
            <Status status={outcome.status.replace(' ', '-')} /> {outcome.code ? <code>{outcome.code}</code> : null}{' '}
            {outcome.message}{' '}
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

/** Decision F53: the event log's page (newest first); a phone shows ten lines, not a column of cards. */
const EVENTS_PAGE = 10;
/** "ProposalCreated" → "Proposal created". */
const words = (type: string) =>
  type.replace(/(?<=[a-z0-9])(?=[A-Z])/g, ' ').replace(/ (\w)/g, (_m, c: string) => ` ${c.toLowerCase()}`);

/** The governance event log, newest first, a page at a time with Older and Newer (decision F53). */
function EventLog() {
  // The cursors of the pages opened so far: the last is the page shown ('' is the newest).
  const [pages, setPages] = useState<string[]>(['']);
  const before = pages[pages.length - 1]!;
  const d = useApi<Answer<'listGovernanceEvents'>>(
    `/api/governance/admin/events?order=newest&limit=${EVENTS_PAGE}${before ? `&before_seq=${before}` : ''}`,
  );
  const next = d.data?.next_before_seq;
  return (
    <section class="card" aria-labelledby="h-events">
      <h2 id="h-events">Governance event log</h2>
      {d.error ? <p class="error">{d.error.message}</p> : null}
      {d.data && d.data.items.length === 0 ? <p>No governance event yet.</p> : null}
      {d.data?.items.length ? (
        <ol class="events" data-testid="events">
          {d.data.items.map((e) => {
            const proposal = e.data.proposal_id === undefined ? undefined : String(e.data.proposal_id);
            return (
              <li key={e.seq}>
                <span class="muted">#{e.seq}</span> <strong title={e.type}>{words(e.type)}</strong>
                {proposal ? (
                  <>
                    {' '}
                    · <a href={`/proposals/${proposal}`}>proposal #{proposal}</a>
                  </>
                ) : null}{' '}
                <time class="muted" dateTime={e.occurred_at}>
                  {utcTime(e.occurred_at)}
                </time>
              </li>
            );
          })}
        </ol>
      ) : null}
      {pages.length > 1 || next ? (
        <p class="actions">
          {pages.length > 1 ? (
            <button type="button" class="secondary small" onClick={() => setPages(pages.slice(0, -1))}>
              Newer events
            </button>
          ) : null}
          {next ? (
            <button type="button" class="secondary small" onClick={() => setPages([...pages, next])}>
              Older events
            </button>
          ) : null}
        </p>
      ) : null}
    </section>
  );
}

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
          ['When', (p) => utcTime(p.created_at)],
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
          ['When', (n) => utcTime(n.at)],
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
          ['Updated', (e) => utcTime(e.updated_at)],
          ['Template', (e) => e.template],
          ['Attempts', (e) => String(e.attempts)],
          ['Why', (e) => e.last_error ?? ''],
        ]}
        empty="Every email went out."
      />
      <EventLog />
      <section class="card" aria-labelledby="ops-h">
        <h2 id="ops-h">Operator commands</h2>
        <p>
          Rebuilding the AI search index takes the operators' API token, not a signed-in session; scripts may run the
          price job with it too:
        </p>
        <pre>
          curl -X POST -H "X-API-Token: $API_TOKEN" {location.origin}/api/ai/admin/reindex{'\n'}curl -X POST -H
          "X-API-Token: $API_TOKEN" {location.origin}
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
