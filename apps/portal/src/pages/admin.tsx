// The admin console (decisions F7, F28): users (find by email or name, roles, sessions, KYC approval and rejection), escrowed
// payments, mint failures, failed emails, scheduled jobs and their runs, the governance event log.
// The server checks the admin role on every call (403 otherwise); hiding the page is convenience.
import { useState } from 'preact/hooks';
import { api, ApiError, useApi, when, type Answer } from '../api.ts';
import { isAdmin, useSession } from '../session.tsx';

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
            <span>{u.email ?? '(address unreadable)'}</span>
            <span class="muted">
              {u.roles.join(', ')} · KYC {u.kyc_status} · membership {u.membership_status ?? 'none'} · since {when(u.created_at)}
            </span>
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
                    maxLength={200}
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
                          body: { approved: false, reference: `rejected: ${reasons[u.user_id]!.trim()}` },
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
        <div class="scroll" tabIndex={0} role="region" aria-label={title}>
          <table>
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
                    <td key={h}>{f(r)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

type Payment = Answer<'listPayments'>['payments'][number];
type Note = Answer<'listAdminNotifications'>['notifications'][number];
type Run = Answer<'listJobRuns'>['items'][number];
type Email = Answer<'listMemberEmails'>['items'][number];
type Ev = Answer<'listGovernanceEvents'>['items'][number];

export function AdminPage() {
  const { session, signInUrl } = useSession();
  if (session === undefined) return <p aria-busy="true">Loading…</p>;
  if (!session)
    return (
      <p>
        <a href={signInUrl()}>Sign in</a> as an administrator.
      </p>
    );
  if (!isAdmin(session)) return <p class="note">This console is for administrators.</p>;
  return (
    <>
      <h1>Admin console</h1>
      <Users />
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
      <Listing<Run>
        title="Job runs"
        path="/api/admin/jobs/runs?limit=20"
        pick={(d) => (d as Answer<'listJobRuns'>).items}
        columns={[
          ['Started', (r) => (r.started_at ? when(r.started_at) : '—')],
          ['Job', (r) => r.job],
          ['Trigger', (r) => r.trigger],
          ['Status', (r) => r.status],
          ['Detail', (r) => r.error ?? String((r.detail as { reason?: string } | null)?.reason ?? '')],
        ]}
        empty="No job has run yet."
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
      <section class="card">
        <h2>Operator commands</h2>
        <p>The price-proposal trigger and the AI reindex take the operators' API token, not a session (decision F7):</p>
        <pre>
          curl -X POST -H "X-API-Token: $API_TOKEN" {location.origin}/api/admin/price/submit-proposal{'\n'}curl -X POST -H "X-API-Token: $API_TOKEN"{' '}
          {location.origin}/api/ai/admin/reindex
        </pre>
      </section>
    </>
  );
}
