// A campaign's page (spec 1 campaigns): its progress, contributing in DOM or in USD at the ratified
// price, and the contributions with their refunds. Names are isolated in <bdi> (decision F42); a
// contribution without a member behind it is "the platform's" (decision F51).
import { useState } from 'preact/hooks';
import { api, ApiError, dom, toE8s, useApi, handler, type Answer } from '../api.ts';
import { localTime } from '../time.tsx';
import { useSession } from '../session.tsx';
import { type Campaign, Progress } from '../components/campaign-progress.tsx';

export function CampaignPage({ id }: { id: string }) {
  const { session, signInUrl } = useSession();
  const c = useApi<Campaign>(`/api/campaigns/${encodeURIComponent(id)}`);
  const k = useApi<Answer<'listCampaignContributions'>>(
    `/api/campaigns/${encodeURIComponent(id)}/contributions?limit=100`,
  );
  const [amount, setAmount] = useState('');
  const [unit, setUnit] = useState<'dom' | 'usd'>('dom');
  const [msg, setMsg] = useState('');
  if (c.error) return <p class="error">{c.error.status === 404 ? 'No such campaign.' : c.error.message}</p>;
  if (!c.data) return <p aria-busy="true">Loading…</p>;
  const cp = c.data;
  return (
    <article>
      <p class="muted">
        <a href="/campaigns">Campaigns</a> › #{cp.id}
      </p>
      <div class="row">
        <h1 dir="auto">{cp.title}</h1>
        <span class={`badge s-${cp.status.toLowerCase()}`}>{cp.status}</span>
      </div>
      <p class="muted">
        Started by <bdi>{cp.owner_name ?? 'the platform'}</bdi>
      </p>
      <p dir="auto">{cp.description}</p>
      <section class="card">
        <Progress c={cp} />
        <p class="muted">
          Open until {localTime(cp.deadline)} · {cp.contributions}{' '}
          {String(cp.contributions) === '1' ? 'contribution' : 'contributions'}
        </p>
        {cp.status === 'Open' ? (
          session ? (
            <form
              class="filters"
              onSubmit={handler(async (e) => {
                e.preventDefault();
                setMsg('');
                const a =
                  unit === 'dom'
                    ? toE8s(amount) && { dom_e8s: toE8s(amount)! }
                    : Number(amount) > 0 && { usd: Number(amount) };
                if (!a) return setMsg('Enter an amount above 0.');
                try {
                  const r = await api<Answer<'contributeToCampaign'>>(
                    `/api/campaigns/${encodeURIComponent(cp.id)}/contributions`,
                    {
                      method: 'POST',
                      body: { amount: a },
                      // The canister's operation id: the bridge answers a repeat of the same key with the first result.
                      headers: { 'idempotency-key': `web-${crypto.randomUUID()}` },
                    },
                  );
                  setMsg(`Thank you: ${dom(r.amount_e8s)} DOM contributed.`);
                  setAmount('');
                  // The progress and the list both changed: read them again rather than guess the canister's numbers.
                  c.reload();
                  k.reload();
                } catch (err) {
                  // A USD amount needs a ratified price to convert at; before the first, DOM is the only way to give.
                  setMsg(
                    err instanceof ApiError
                      ? `${err.code === 'PriceUnavailable' ? 'No ratified price: contribute in DOM.' : err.message}`
                      : String(err),
                  );
                }
              })}
            >
              <label>
                Amount
                <input inputMode="decimal" required value={amount} onInput={(e) => setAmount(e.currentTarget.value)} />
              </label>
              <label>
                In
                <select value={unit} onChange={(e) => setUnit(e.currentTarget.value as 'dom' | 'usd')}>
                  <option value="dom">DOM</option>
                  <option value="usd">USD</option>
                </select>
              </label>
              <button type="submit">Contribute</button>
            </form>
          ) : (
            <p>
              <a href={signInUrl()}>Sign in</a> to contribute.
            </p>
          )
        ) : null}
        <p role="status">{msg}</p>
      </section>
      <section class="card">
        <h2>Contributions</h2>
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Amount</th>
              <th scope="col">Refund</th>
            </tr>
          </thead>
          <tbody>
            {(k.data?.items ?? []).map((x) => (
              <tr key={x.seq}>
                <td>{localTime(x.at)}</td>
                <td>
                  <bdi>{x.contributor_name ?? 'the platform'}</bdi>
                </td>
                <td>{dom(x.amount_e8s)} DOM</td>
                <td>{x.refund ? `${dom(x.refund.amount_e8s)} DOM` : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </article>
  );
}
