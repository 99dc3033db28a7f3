import { useApi, usd, type Answer } from '../api.ts';
import { useSession } from '../session.tsx';

export function HomePage() {
  const { session, signInUrl } = useSession();
  const price = useApi<Answer<'getRatifiedPrice'>>('/api/governance/price');
  const open = useApi<Answer<'listProposals'>>('/api/governance/proposals?status=Open&limit=5');
  return (
    <>
      <h1>Home</h1>
      {session === undefined ? (
        <p aria-busy="true">Loading…</p>
      ) : session ? (
        <section class="card">
          <p>
            Signed in as <strong>{session.email}</strong> ({session.roles.join(', ')}).
          </p>
          <p>
            Membership: <strong>{session.membership_status ?? 'none yet'}</strong>. <a href="/me">Your membership</a>
          </p>
        </section>
      ) : (
        <section class="card">
          <p>You are not signed in.</p>
          <p>
            <a class="button" href={signInUrl(`${location.origin}/`)}>
              Sign in
            </a>{' '}
            or <a href="/join">join DOM DAO</a>.
          </p>
        </section>
      )}
      <div class="grid">
        <section class="card">
          <h2>DOM price</h2>
          {price.data ? (
            <p class="big">{usd(price.data.price_usd)}</p>
          ) : price.error?.status === 404 ? (
            <p>No price has been ratified yet.</p>
          ) : (
            <p aria-busy="true">…</p>
          )}
          <a href="/price">Price and history</a>
        </section>
        <section class="card">
          <h2>Open votes</h2>
          {open.data?.items.length ? (
            <ul>
              {open.data.items.map((p) => (
                <li key={p.id}>
                  <a href={`/proposals/${p.id}`}>{p.title}</a>
                </li>
              ))}
            </ul>
          ) : (
            <p>{open.data ? 'No vote is open right now.' : '…'}</p>
          )}
          <a href="/govern">All proposals</a>
        </section>
      </div>
    </>
  );
}
