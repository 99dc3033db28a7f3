// The proposals (spec 1 governance): filtered by status and category, searched by meaning when the
// bridge's AI is up (decisions A13–A16; else by words in the titles and texts), each row at a
// glance (decision F25) with what it does in words (F43); Active members propose from here.
import { categoryLabel } from '@domdao/proposal-text';
import { useState } from 'preact/hooks';
import { api, ApiError, useApi, useLive, handler, type Answer } from '../api.ts';
import { isActive, useSession } from '../session.tsx';
import { CATEGORIES, ProposeForm } from '../components/propose.tsx';
import { phase, StatusBadge, statusLabel, Tally, type Proposal, type Settings } from '../components/at-a-glance.tsx';
import { localTime, useNow } from '../time.tsx';
import { PayloadLine } from '../components/proposal-payload.tsx';

const STATUSES = ['', 'Created', 'Open', 'Tallied', 'Approved', 'Rejected', 'Executed', 'Expired'];
const CATEGORY_FILTER = ['', ...CATEGORIES];

export function GovernPage() {
  const { session } = useSession();
  const [status, setStatus] = useState('');
  const [category, setCategory] = useState('');
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<{ ids: string[]; how: string } | null>(null);
  const [note, setNote] = useState('');
  const [proposing, setProposing] = useState(false);
  const qs = new URLSearchParams({ limit: '100', ...(status && { status }), ...(category && { category }) });
  const list = useApi<Answer<'listProposals'>>(`/api/governance/proposals?${qs}`);
  const ai = useApi<Answer<'getAiHealth'>>('/api/ai/health');
  const settings = useApi<Settings>('/api/governance/settings');
  const now = useNow();
  // Decision V32: rows follow new votes and status changes as they happen.
  useLive(undefined, list.reload);
  // The AI search is a member's call (counted against their AI limit) and needs the inference server up.
  const semantic = !!session && ai.data?.status === 'ok';
  let items = list.data?.items ?? [];
  // A search keeps its ranking (best first) and shows only the proposals the list holds.
  if (found) items = found.ids.map((id) => items.find((p) => p.id === id)).filter((p): p is Proposal => !!p);
  return (
    <>
      <div class="row">
        <h1>Governance</h1>
        {isActive(session) && !proposing ? (
          <button type="button" onClick={() => setProposing(true)}>
            New proposal
          </button>
        ) : null}
      </div>
      {proposing ? <ProposeForm onCreated={(id) => (window.location.href = `/proposals/${id}`)} /> : null}
      {session && !isActive(session) ? (
        <p class="note">You can read every proposal; voting and proposing need an Active membership.</p>
      ) : null}
      <form
        class="filters"
        role="search"
        onSubmit={handler(async (e) => {
          e.preventDefault();
          setNote('');
          const q = query.trim();
          if (!q) return setFound(null);
          if (semantic) {
            try {
              const r = await api<Answer<'searchProposals'>>('/api/ai/search', {
                method: 'POST',
                body: { query: q, limit: 20, threshold: 0.5 },
              });
              return setFound({ ids: r.results.map((x) => x.proposal_id), how: 'semantic' });
            } catch (err) {
              // A failed semantic search falls back to the text match below rather than show nothing.
              setNote(
                `Semantic search is unavailable (${err instanceof ApiError ? err.code : 'error'}); showing title matches.`,
              );
            }
          }
          // Every word in the title or text, over the proposals already listed: no request, no index.
          const words = q.toLowerCase().split(/\s+/);
          setFound({
            ids: (list.data?.items ?? [])
              .filter((p) => words.every((w) => `${p.title} ${p.body}`.toLowerCase().includes(w)))
              .map((p) => p.id),
            how: 'text',
          });
        })}
      >
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s ? statusLabel(s) : 'Any'}
              </option>
            ))}
          </select>
        </label>
        <label>
          Category
          <select value={category} onChange={(e) => setCategory(e.currentTarget.value)}>
            {CATEGORY_FILTER.map((s) => (
              <option key={s} value={s}>
                {s ? categoryLabel(s) : 'Any'}
              </option>
            ))}
          </select>
        </label>
        <label class="grow">
          Search {semantic ? '(by meaning)' : '(titles and text)'}
          <input
            type="search"
            value={query}
            onInput={(e) => setQuery(e.currentTarget.value)}
            placeholder="e.g. garden repairs"
          />
        </label>
        <button type="submit">Search</button>
      </form>
      <p role="status">{note}</p>
      {list.error ? <p class="error">{list.error.message}</p> : null}
      {list.loading && !list.data ? <p aria-busy="true">Loading proposals…</p> : null}
      <ul class="list">
        {items.map((p) => (
          <li key={p.id} class="item">
            <a href={`/proposals/${p.id}`}>
              <strong>
                <bdi>{p.title}</bdi>
              </strong>
            </a>
            <StatusBadge status={p.status} />
            <span class="when" title={`voting ${localTime(p.voting_opens)} – ${localTime(p.voting_closes)}`}>
              {phase(p, now)}
            </span>
            <span class="muted">
              #{p.id} · {categoryLabel(p.category)} · by <bdi>{p.proposed_by_name ?? 'the platform'}</bdi>
            </span>
            <PayloadLine p={p} rules={settings.data} />
            {p.status !== 'Created' ? <Tally p={p} compact /> : null}
          </li>
        ))}
      </ul>
      {list.data && items.length === 0 ? <p>No proposal matches.</p> : null}
    </>
  );
}
