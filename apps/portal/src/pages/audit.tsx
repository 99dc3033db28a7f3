// The Audit page of the admin console (decision F16): the bridge's append-only audit log
// (GET /api/admin/audit, decisions B61–B67) as a table, filtered by event, actor and time range,
// paged by cursor. The filters live in the URL's query so a view can be shared between admins.
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { useApi, type Answer } from '../api.ts';
import { AdminOnly } from '../session.tsx';

/** The events GET /api/admin/audit knows (services/bridge/src/core/audit/events.ts). */
const EVENTS = [
  'auth.login_succeeded',
  'auth.login_failed',
  'auth.login_locked_out',
  'auth.csrf_refused',
  'admin.access_denied',
  'member.rate_limited',
  'registration.created',
  'registration.refused',
  'verification.completed',
  'verification.refused',
  'verification.password_refused',
  'recovery.limited',
  'password_reset.requested',
  'password_reset.completed',
  'sessions.ended',
  'roles.granted',
  'roles.revoked',
  'roles.bootstrap_admin_granted',
  'kyc.approved',
  'kyc.rejected',
  'membership.upgraded',
  'escrow.resolved',
  'price.proposal_triggered',
  'ai.reindex_triggered',
  'inbox.unsubscribed',
  'secret.rotation_noticed',
  'members.display_name_refused',
  'members.display_name_reset',
  'canister_set.refused',
];

/** `datetime-local` text (the browser's local time) as UTC ISO-8601, or undefined. */
const toIso = (local: string) => (local ? new Date(local).toISOString() : undefined);
/** UTC ISO-8601 as `datetime-local` text in the browser's local time. */
function toLocal(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}
// A uuid is cut to its first 8 characters to keep the table narrow; the whole id is in the title or the filter.
const short = (id: string | null) => (id && /^[0-9a-f-]{36}$/.test(id) ? id.slice(0, 8) : (id ?? '—'));
const details = (d: Record<string, unknown>) =>
  Object.entries(d)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join(', ');

function AuditLog() {
  const { query, url, route } = useLocation();
  const path = url.split('?')[0]!;
  const [event, setEvent] = useState(query.event ?? '');
  const [actor, setActor] = useState(query.actor ?? '');
  // The form starts from the URL's filters; the query is the state (go() writes it), the fields only edit it.
  const [from, setFrom] = useState(toLocal(query.from));
  const [to, setTo] = useState(toLocal(query.to));
  const filters = new URLSearchParams();
  for (const k of ['event', 'actor', 'from', 'to', 'cursor'] as const) if (query[k]) filters.set(k, query[k]);
  filters.set('limit', '50');
  const page = useApi<Answer<'listAuditEvents'>>(`/api/admin/audit?${filters.toString()}`);
  const go = (q: Record<string, string | undefined>) => {
    const s = new URLSearchParams(Object.entries(q).filter((e): e is [string, string] => !!e[1]));
    // A new URL, not new state: the browser's Back returns to the previous view, and the link can be shared.
    route(s.size > 0 ? `${path}?${s.toString()}` : path);
  };
  const current = { event: query.event, actor: query.actor, from: query.from, to: query.to };
  return (
    <section class="card" aria-labelledby="audit-h">
      <h2 id="audit-h">Security events</h2>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          go({ event, actor: actor.trim(), from: toIso(from), to: toIso(to) });
        }}
      >
        <label>
          Event
          <select name="event" value={event} onChange={(e) => setEvent(e.currentTarget.value)}>
            <option value="">any</option>
            {EVENTS.map((ev) => (
              <option key={ev} value={ev}>
                {ev}
              </option>
            ))}
          </select>
        </label>
        <label class="grow">
          Actor
          <input
            name="actor"
            value={actor}
            onInput={(e) => setActor(e.currentTarget.value)}
            placeholder="user id, anonymous, api-token, system"
          />
        </label>
        <label>
          From
          <input name="from" type="datetime-local" value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
        </label>
        <label>
          To
          <input name="to" type="datetime-local" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
        </label>
        <button type="submit">Filter</button>
      </form>
      {page.error ? (
        <p class="note" role="alert">
          {page.error.message}
        </p>
      ) : null}
      {page.data && page.data.items.length === 0 ? <p class="muted">No event matches.</p> : null}
      {/* Decision F35: the wide table scrolls inside its own box, reachable by keyboard, so the page fits 375 px. */}
      <div class="scroll" tabIndex={0} role="region" aria-label="Security events">
        <table class="audit">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Event</th>
              <th scope="col">Outcome</th>
              <th scope="col">Actor</th>
              <th scope="col">Subject</th>
              <th scope="col">Client</th>
              <th scope="col">Request</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {(page.data?.items ?? []).map((r) => (
              <tr key={r.id} data-event={r.event}>
                <td>
                  {/* UTC as the log records it, to the second (the page says "Times are UTC"). */}
                  <time dateTime={r.at}>{r.at.slice(0, 19).replace('T', ' ')}</time>
                </td>
                <td>
                  <code>{r.event}</code>
                </td>
                <td class={`outcome-${r.outcome}`}>{r.outcome}</td>
                <td>
                  <button
                    type="button"
                    class="link"
                    title={`only ${r.actor}`}
                    onClick={() => go({ ...current, actor: r.actor })}
                  >
                    {short(r.actor)}
                  </button>
                </td>
                <td>{short(r.subject)}</td>
                <td>{r.client}</td>
                <td>
                  <code title={r.request_id ?? ''}>{short(r.request_id)}</code>
                </td>
                <td class="detail">{details(r.detail)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p class="actions">
        {/* Paged by cursor (decision F16): "Newest" drops it, "Older" follows the answer's next_cursor. */}
        {query.cursor ? (
          <button type="button" class="small" onClick={() => go(current)}>
            Newest
          </button>
        ) : null}
        {page.data?.next_cursor ? (
          <button type="button" class="small" onClick={() => go({ ...current, cursor: page.data!.next_cursor! })}>
            Older
          </button>
        ) : null}
      </p>
    </section>
  );
}

export function AuditPage() {
  return (
    <AdminOnly what="page">
      <h1>Audit log</h1>
      <p class="muted">
        Sign-ins, refusals and admin actions, newest first. No email, name, birth date, password, token or session id is
        kept here. Times are UTC.
      </p>
      <AuditLog />
    </AdminOnly>
  );
}
