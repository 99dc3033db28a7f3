// The home page: who is signed in and their membership, the ratified DOM price, and the votes open
// or about to open, each at a glance (decision F25) with what it does in words (F43). Everyone may read
// it; signing in and joining start here.
import { useApi, usd, type Answer } from '../api.ts';
import { phase, StatusBadge } from '../components/at-a-glance.tsx';
import { useNow } from '../time.tsx';
import { useSession } from '../session.tsx';
import { PayloadLine } from '../components/proposal-payload.tsx';

export function HomePage() {
  const { session, signInUrl } = useSession();
  // The newest ratified price from the history: before the first there is none, and no request answers 404.
  const prices = useApi<Answer<'listRatifiedPrices'>>('/api/governance/price/history?limit=1');
  const price = prices.data?.items[0];
  const open = useApi<Answer<'listProposals'>>('/api/governance/proposals?status=Open&limit=5');
  const soon = useApi<Answer<'listProposals'>>('/api/governance/proposals?status=Created&limit=5');
  const now = useNow();
  // Open first, then those about to open: what a member can act on now comes first.
  const votes = [...(open.data?.items ?? []), ...(soon.data?.items ?? [])];
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
          {price ? (
            <p class="big">{usd(price.price_usd)}</p>
          ) : prices.data ? (
            <p>No price has been ratified yet.</p>
          ) : (
            <p aria-busy="true">…</p>
          )}
          <a href="/price">Price and history</a>
        </section>
        <section class="card">
          <h2>Votes open and coming</h2>
          {votes.length ? (
            <ul class="plain">
              {votes.map((p) => (
                <li key={p.id}>
                  <a href={`/proposals/${p.id}`}>
                    <bdi>{p.title}</bdi>
                  </a>{' '}
                  <StatusBadge status={p.status} /> <span class="muted">{phase(p, now)}</span>
                  {/* No settings request here: the rules in force only add an amendment's "before" (decision F44). */}
                  <PayloadLine p={p} rules={undefined} />
                </li>
              ))}
            </ul>
          ) : (
            <p>{open.data && soon.data ? 'No vote is open or about to open.' : '…'}</p>
          )}
          <a href="/govern">All proposals</a>
        </section>
      </div>
    </>
  );
}
