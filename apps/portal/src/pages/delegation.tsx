// Liquid democracy (decisions F18–F19 on the bridge's V26–V27): choose a delegate for every category or
// for one, see and take back what is delegated, and, as a delegate, how many members you vote for.
// Delegates are chosen by principal: members have no searchable display names on this branch yet.
import { useState } from 'preact/hooks';
import { PROPOSAL_CATEGORIES } from '@domdao/canister-kit/rules';
import { api, ApiError, handler, useApi, when, type Answer } from '../api.ts';
import { isActive, useSession } from '../session.tsx';

// The categories have one source (decision S17).
const CATEGORIES = PROPOSAL_CATEGORIES;

type Mine = Answer<'getDelegation'>;
type Delegators = Answer<'listDelegators'>;

export function DelegationPage() {
  const { session, signInUrl } = useSession();
  const mine = useApi<Mine>(session ? '/api/governance/delegation' : null);
  const delegators = useApi<Delegators>(session ? '/api/governance/delegation/delegators?limit=100' : null);
  const [delegate, setDelegate] = useState('');
  const [category, setCategory] = useState('');
  const [showName, setShowName] = useState(false);
  const [msg, setMsg] = useState('');
  if (!session)
    return (
      <p>
        <a href={signInUrl()}>Sign in</a> to delegate your vote.
      </p>
    );
  const reload = () => {
    mine.reload();
    delegators.reload();
  };
  const run = (action: () => Promise<unknown>, done: string) =>
    handler(async () => {
      setMsg('');
      try {
        await action();
        setMsg(done);
        reload();
      } catch (err) {
        setMsg(err instanceof ApiError ? err.message : String(err));
      }
    });
  return (
    <article>
      <h1>Delegate your vote</h1>
      <p class="muted">
        A delegate votes for you on proposals whose voting opens after you choose them. Your own vote always replaces theirs until voting closes.
      </p>
      <section class="card" aria-label="My delegations">
        <h2>My delegations</h2>
        {mine.data?.delegations.length ? (
          <ul>
            {mine.data.delegations.map((d) => (
              <li key={d.category ?? 'All'}>
                {d.category ?? 'All categories'}: <code>{d.delegate}</code> <span class="muted">since {when(d.since)}</span>{' '}
                <button
                  type="button"
                  class="secondary"
                  onClick={run(
                    () => api(`/api/governance/delegation${d.category ? `?category=${d.category}` : ''}`, { method: 'DELETE' }),
                    'Delegation taken back.',
                  )}
                >
                  Take back
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <p>You vote for yourself on every category.</p>
        )}
      </section>
      {isActive(session) ? (
        <section class="card" aria-label="Choose a delegate">
          <h2>Choose a delegate</h2>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              run(
                () =>
                  api('/api/governance/delegation', {
                    method: 'PUT',
                    body: { delegate: delegate.trim(), show_name: showName, ...(category && { category }) },
                  }),
                'Delegation saved.',
              )(e);
            }}
          >
            <label>
              Delegate (their member principal, shown on their Me page)
              <input name="delegate" required value={delegate} onInput={(e) => setDelegate(e.currentTarget.value)} placeholder="aaaaa-bbbbb-…" />
            </label>
            <label>
              For
              <select name="category" value={category} onChange={(e) => setCategory(e.currentTarget.value)}>
                <option value="">All categories</option>
                {CATEGORIES.map((c) => (
                  <option key={c} value={c}>
                    {c} only
                  </option>
                ))}
              </select>
            </label>
            <label>
              <input type="checkbox" name="show_name" checked={showName} onChange={(e) => setShowName(e.currentTarget.checked)} /> Let my delegate see that it
              is me
            </label>
            <button type="submit">Delegate</button>
          </form>
        </section>
      ) : (
        <p class="note">Only Active members delegate.</p>
      )}
      <p role="status">{msg}</p>
      <section class="card" aria-label="Members who delegate to me">
        <h2>Members who delegate to you</h2>
        <p>
          You vote for <strong>{delegators.data?.total ?? '…'}</strong> delegation(s) when you vote yourself.
        </p>
        {delegators.data?.items.length ? (
          <ul>
            {delegators.data.items.map((i) => (
              <li key={i.key}>
                {i.member ? <code>{i.member}</code> : <span class="muted">a member who keeps their name private</span>} · {i.category ?? 'all categories'}
              </li>
            ))}
          </ul>
        ) : null}
        <p class="muted">
          Your principal, for members who want to choose you: <code>{mine.data?.principal ?? '…'}</code>
        </p>
      </section>
    </article>
  );
}
