// The campaigns (spec 1): every campaign with its progress, and for a signed-in member the form that
// starts one. A goal is in DOM or in USD; a USD goal is measured at the ratified price (campaign-progress).
import { useState } from 'preact/hooks';
import { api, ApiError, toE8s, useApi, handler, type Answer } from '../api.ts';
import { localTime } from '../time.tsx';
import { useSession } from '../session.tsx';
import { Progress } from '../components/campaign-progress.tsx';

export function CampaignsPage() {
  const { session } = useSession();
  const list = useApi<Answer<'listCampaigns'>>('/api/campaigns?limit=100');
  return (
    <>
      <h1>Campaigns</h1>
      {list.error ? <p class="error">{list.error.message}</p> : null}
      <ul class="list">
        {(list.data?.items ?? []).map((c) => (
          <li key={c.id} class="item">
            <a href={`/campaigns/${c.id}`}>
              <strong>
                <bdi>{c.title}</bdi>
              </strong>
            </a>
            <span class={`badge s-${c.status.toLowerCase()}`}>{c.status}</span>
            <span class="muted">
              by <bdi>{c.owner_name ?? 'the platform'}</bdi> · until {localTime(c.deadline)}
            </span>
            <Progress c={c} />
          </li>
        ))}
      </ul>
      {list.data && list.data.items.length === 0 ? <p>No campaign yet.</p> : null}
      {session ? <CreateCampaign onCreated={(id) => (window.location.href = `/campaigns/${id}`)} /> : null}
    </>
  );
}

function CreateCampaign({ onCreated }: { onCreated(id: string): void }) {
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [unit, setUnit] = useState<'usd' | 'dom'>('usd');
  const [goal, setGoal] = useState('');
  const [days, setDays] = useState('30');
  const [error, setError] = useState('');
  return (
    <form
      class="card"
      onSubmit={handler(async (e) => {
        e.preventDefault();
        setError('');
        const g = unit === 'usd' ? Number(goal) > 0 && { usd: Number(goal) } : toE8s(goal) && { dom_e8s: toE8s(goal)! };
        if (!g) return setError('Enter a goal above 0.');
        // The canister takes a deadline instant; people think in days open, counted from now.
        const deadline = new Date(Date.now() + Number(days) * 86_400_000).toISOString();
        try {
          onCreated(
            (
              await api<Answer<'createCampaign'>>('/api/campaigns', {
                method: 'POST',
                body: { title, description, goal: g, deadline },
              })
            ).id,
          );
        } catch (err) {
          setError(err instanceof ApiError ? err.message : String(err));
        }
      })}
    >
      <h2>Start a campaign</h2>
      <label for="c-title">Title</label>
      <input id="c-title" required maxLength={200} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
      <label for="c-desc">Description</label>
      <textarea
        id="c-desc"
        rows={3}
        maxLength={20000}
        value={description}
        onInput={(e) => setDescription(e.currentTarget.value)}
      />
      <div class="filters">
        <label>
          Goal
          <input inputMode="decimal" required value={goal} onInput={(e) => setGoal(e.currentTarget.value)} />
        </label>
        <label>
          In
          <select value={unit} onChange={(e) => setUnit(e.currentTarget.value as 'usd' | 'dom')}>
            <option value="usd">USD (at the ratified price)</option>
            <option value="dom">DOM</option>
          </select>
        </label>
        <label>
          Days open
          <input type="number" min={1} max={365} value={days} onInput={(e) => setDays(e.currentTarget.value)} />
        </label>
      </div>
      <p class="error" role="alert">
        {error}
      </p>
      <button type="submit">Create campaign</button>
    </form>
  );
}
