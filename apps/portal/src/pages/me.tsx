import { useState } from 'preact/hooks';
import { api, ApiError, dom, useApi, when, handler, type Answer } from '../api.ts';
import { useSession } from '../session.tsx';
import { DisplayNameCard, WalletCard } from './profile.tsx';

/** Decision F12: the types of the bridge's answers come from the OpenAPI document. */
type Prefs = Answer<'getMyNotificationPreferences'>;

const STATUS_HELP: Record<string, string> = {
  Registered:
    'You can read governance and support campaigns. To vote and propose, become Active: an administrator approves your identity check (KYC), then you pay the annual membership.',
  Active: 'You can vote, propose and support campaigns.',
  Expired: 'Your membership has expired: pay the annual membership again to vote.',
  Revoked: 'Your membership was revoked by a governance decision.',
};

export function MePage() {
  const { session, signInUrl } = useSession();
  if (session === undefined) return <p aria-busy="true">Loading…</p>;
  if (!session)
    return (
      <section class="card">
        <h1>My membership</h1>
        <p>
          <a href={signInUrl()}>Sign in</a> to see your membership.
        </p>
      </section>
    );
  return <Me status={session.membership_status} email={session.email} />;
}

type Upgrade = Answer<'getMembershipUpgrade'>;

/** Spec 2 rule 6: Registered (or Expired), 18+, KYC approved, then the payment. */
function BecomeActive({ onPaid }: { onPaid(): void }) {
  const u = useApi<Upgrade>('/api/me/membership-upgrade');
  const [msg, setMsg] = useState('');
  if (!u.data) return <p aria-busy="true">…</p>;
  const d = u.data;
  const price = `${(Number(d.price_minor) / 100).toFixed(2)} ${d.currency}`;
  return (
    <section class="card" aria-labelledby="upgrade-h">
      <h2 id="upgrade-h">Become Active</h2>
      <ol>
        <li>Age 18 or over: {d.adult ? 'yes' : 'not yet (the upgrade opens at 18)'}</li>
        <li>
          Identity check (KYC):{' '}
          {d.kyc_status === 'approved' ? 'approved' : d.kyc_status === 'rejected' ? 'rejected: contact support' : 'waiting for an administrator'}
        </li>
        <li>Annual membership: {price}</li>
      </ol>
      {d.adult && d.kyc_status === 'approved' ? (
        d.simulated_checkout ? (
          <>
            <p class="note">Development server: no real card is charged. The button sends a signed test payment to this server's payment webhook.</p>
            <button
              type="button"
              onClick={handler(async () => {
                setMsg('');
                try {
                  const r = await api<Answer<'simulateCheckout'>>('/api/dev/checkout', { method: 'POST', body: {} });
                  setMsg(
                    r.webhook.status === 'applied'
                      ? 'Payment received: your membership is Active.'
                      : `Payment held: ${r.webhook.reason ?? r.webhook.status ?? 'see support'}.`,
                  );
                  onPaid();
                } catch (err) {
                  setMsg(err instanceof ApiError ? err.message : String(err));
                }
              })}
            >
              Pay {price} (simulated checkout)
            </button>
          </>
        ) : (
          <p>Pay {price} with the payment link your DAO sends you; your membership becomes Active when the payment arrives.</p>
        )
      ) : null}
      <p role="status">{msg}</p>
    </section>
  );
}

function Sessions() {
  const list = useApi<Answer<'listMySessions'>>('/api/me/sessions');
  return (
    <section class="card" aria-labelledby="sessions-h">
      <h2 id="sessions-h">Sessions</h2>
      {list.data ? (
        <ul>
          {list.data.sessions.map((x, i) => (
            <li key={i}>
              Signed in {when(x.created_at)}, last active {when(x.last_seen_at)}, ends {when(x.expires_at)}
            </li>
          ))}
        </ul>
      ) : (
        <p aria-busy="true">…</p>
      )}
      <button
        type="button"
        class="secondary"
        onClick={handler(async () => {
          await api('/api/me/sessions', { method: 'DELETE' }).catch(() => undefined);
          localStorage.removeItem('user_data');
          window.location.assign('/');
        })}
      >
        Sign out everywhere
      </button>
    </section>
  );
}

function Me({ status, email }: { status: string | undefined; email: string }) {
  const { refresh } = useSession();
  const prefs = useApi<Prefs>('/api/me/notification-preferences');
  const feed = useApi<Answer<'listMyActivity'>>('/api/me/activity?limit=20');
  const mine = useApi<Answer<'listMyContributions'>>('/api/me/contributions?limit=20');
  const [msg, setMsg] = useState('');
  const save = async (change: Partial<Prefs>) => {
    setMsg('');
    try {
      await api('/api/me/notification-preferences', { method: 'PUT', body: change });
      prefs.reload();
      setMsg('Saved.');
    } catch (err) {
      setMsg(err instanceof ApiError ? err.message : String(err));
    }
  };
  return (
    <>
      <h1>My membership</h1>
      <div class="grid">
        <section class="card">
          <h2>Membership</h2>
          <p class="big">{status ?? 'None yet'}</p>
          <p>{STATUS_HELP[status ?? ''] ?? 'Your membership appears once your email address is confirmed.'}</p>
          <p class="muted">Signed in as {email}</p>
        </section>
        <WalletCard />
      </div>
      <DisplayNameCard />
      {status === 'Registered' || status === 'Expired' ? <BecomeActive onPaid={() => void refresh()} /> : null}
      <section class="card">
        <h2>Email</h2>
        {prefs.data ? (
          <form class="filters" onSubmit={(e) => e.preventDefault()}>
            <label>
              Activity digest email
              <select value={prefs.data.digest_frequency} onChange={(e) => void save({ digest_frequency: e.currentTarget.value as Prefs['digest_frequency'] })}>
                <option value="none">No digest</option>
                <option value="daily">Daily</option>
                <option value="weekly">Weekly</option>
              </select>
            </label>
            <label class="check">
              <input type="checkbox" checked={prefs.data.vote_reminders} onChange={(e) => void save({ vote_reminders: e.currentTarget.checked })} /> Remind me
              before a vote closes
            </label>
          </form>
        ) : (
          <p aria-busy="true">…</p>
        )}
        <p role="status">{msg}</p>
      </section>
      <section class="card">
        <h2>My contributions</h2>
        {mine.data?.items.length ? (
          <ul>
            {mine.data.items.map((c, i) => (
              <li key={i}>
                <a href={`/campaigns/${c.campaign_id}`}>Campaign #{c.campaign_id}</a>: {dom(c.amount_e8s)} DOM, {when(c.at)}
              </li>
            ))}
          </ul>
        ) : (
          <p>{mine.data ? 'None yet.' : '…'}</p>
        )}
        {mine.data?.refunds.length ? <p class="muted">{mine.data.refunds.length} refunded.</p> : null}
      </section>
      <Sessions />
      <section class="card">
        <h2>Activity</h2>
        {feed.data?.items.length ? (
          <ul class="list">
            {feed.data.items.map((i) => (
              <li key={i.id} class="item">
                <strong>
                  {i.deep_link ? (
                    <a
                      href={new URL(i.deep_link).pathname
                        .replace(/^\/api\/governance\/proposals\//, '/proposals/')
                        .replace(/^\/api\/campaigns\//, '/campaigns/')}
                    >
                      <bdi>{i.title}</bdi>
                    </a>
                  ) : (
                    <bdi>{i.title}</bdi>
                  )}
                </strong>
                <span class="muted">
                  {i.category} · {when(i.created_at)}
                </span>
                {i.body ? <span dir="auto">{i.body}</span> : null}
              </li>
            ))}
          </ul>
        ) : (
          <p>{feed.data ? 'Nothing yet.' : '…'}</p>
        )}
      </section>
    </>
  );
}
