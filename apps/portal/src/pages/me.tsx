// /me, the member's own page: membership (status, paid term, latest payment, decision F50) and the way
// to Active (spec 2 rule 6), balance and name, email preferences, contributions, activity (F49) and
// sessions (F9). Every card reads the bridge's record, so a reload shows what the member did.
import { useState } from 'preact/hooks';
import { api, ApiError, dom, useApi, handler, type Answer, type Loaded } from '../api.ts';
import { useSession } from '../session.tsx';
import { absoluteTime, relativeTime } from '@domdao/proposal-text';
import { localTime, useNow, When } from '../time.tsx';
import { ActivityCard } from '../components/activity.tsx';
import { DisplayNameCard, WalletCard } from '../components/profile.tsx';

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
type Membership = Answer<'getMyMembership'>;

const money = (minor: string, currency: string) => `${(Number(minor) / 100).toFixed(2)} ${currency}`;
/** "29 November 2026": the day in the reader's zone (F63). */
const day = (iso: string) => new Date(iso).toLocaleDateString('en-GB', { dateStyle: 'long' });

const PAID: Record<NonNullable<Membership['payment']>['state'], string> = {
  applied: 'Thank you: it paid your membership.',
  processing: 'Your membership is being activated.',
  held: 'An administrator checks it before it changes your membership; they will contact you.',
};

/**
 * Decision F50: the membership's status, the end of its paid term and the latest payment, read from the
 * bridge (GET /api/me/membership), so the confirmation of a payment is still there after a reload.
 */
function MembershipCard({ m, status, email }: { m: Loaded<Membership>; status: string | undefined; email: string }) {
  const d = m.data;
  const now = d?.status ?? status;
  const clock = useNow();
  return (
    <section class="card" aria-labelledby="membership-h">
      <h2 id="membership-h">Membership</h2>
      <p class="big">{now ?? 'None yet'}</p>
      {d?.active_until && (now === 'Active' || now === 'Expired') ? (
        <p data-testid="active-until">
          {/* Decision F57: in the reader's zone, with how far off it is, as every other time in the app. */}
          {now === 'Active' ? 'Active until ' : 'Ended '}
          <strong>
            <time dateTime={d.active_until}>{absoluteTime(Date.parse(d.active_until))}</time>
          </strong>{' '}
          ({relativeTime(Date.parse(d.active_until), clock)}).
        </p>
      ) : null}
      <p>{STATUS_HELP[now ?? ''] ?? 'Your membership appears once your email address is confirmed.'}</p>
      {d?.payment ? (
        <p data-testid="payment" class="note">
          Payment of {money(d.payment.amount_minor, d.payment.currency)} received on {day(d.payment.received_at)}.{' '}
          {PAID[d.payment.state]}
        </p>
      ) : null}
      {m.error ? <p class="error">{m.error.message}</p> : null}
      <p class="muted">Signed in as {email}</p>
    </section>
  );
}

/** Spec 2 rule 6: Registered (or Expired), 18+, KYC approved, then the payment. */
function BecomeActive({ onPaid }: { onPaid(): void }) {
  const u = useApi<Upgrade>('/api/me/membership-upgrade');
  const [msg, setMsg] = useState('');
  if (!u.data) return <p aria-busy="true">…</p>;
  const d = u.data;
  const price = money(d.price_minor, d.currency);
  return (
    <section class="card" aria-labelledby="upgrade-h">
      <h2 id="upgrade-h">Become Active</h2>
      <ol>
        <li>Age 18 or over: {d.adult ? 'yes' : 'not yet (the upgrade opens at 18)'}</li>
        <li>
          Identity check (KYC):{' '}
          {d.kyc_status === 'approved'
            ? 'approved'
            : d.kyc_status === 'rejected'
              ? 'rejected: contact support'
              : 'waiting for an administrator'}
        </li>
        <li>Annual membership: {price}</li>
      </ol>
      {d.adult && d.kyc_status === 'approved' ? (
        d.simulated_checkout ? (
          <>
            <p class="note">
              Development server: no card is charged. The button makes a test payment that takes the same steps as a
              real one.
            </p>
            <button
              type="button"
              onClick={handler(async () => {
                setMsg('');
                try {
                  // What became of it is shown in the Membership card, read from the bridge (decision F50).
                  await api<Answer<'simulateCheckout'>>('/api/dev/checkout', { method: 'POST', body: {} });
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
          <p>
            Pay {price} with the payment link your DAO sends you; your membership becomes Active when the payment
            arrives.
          </p>
        )
      ) : null}
      <p role="status">{msg}</p>
    </section>
  );
}

function Sessions() {
  const list = useApi<Answer<'listMySessions'>>('/api/me/sessions');
  const now = useNow();
  return (
    <section class="card" aria-labelledby="sessions-h">
      <h2 id="sessions-h">Sessions</h2>
      {list.data ? (
        <ul>
          {list.data.sessions.map((x, i) => (
            <li key={i}>
              {/* Decision F57: relative and in the reader's zone, not raw UTC. */}
              Signed in <When iso={x.created_at} now={now} />, last active <When iso={x.last_seen_at} now={now} />, ends{' '}
              <When iso={x.expires_at} now={now} />
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
          // Decision F9: every session ends on the bridge, this one too; whatever it answers, this browser
          // forgets the member and loads / again, where the session is read afresh.
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
  const membership = useApi<Membership>('/api/me/membership');
  const prefs = useApi<Prefs>('/api/me/notification-preferences');
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
        <MembershipCard m={membership} status={status} email={email} />
        <WalletCard />
      </div>
      <DisplayNameCard />
      {status === 'Registered' || status === 'Expired' ? (
        <BecomeActive
          onPaid={() => {
            membership.reload();
            // The session carries the membership status that voting and proposing check (isActive).
            void refresh();
          }}
        />
      ) : null}
      <section class="card">
        <h2>Email</h2>
        {prefs.data ? (
          // Each control saves as it changes: no Save button to forget.
          <form class="filters" onSubmit={(e) => e.preventDefault()}>
            <label>
              Activity digest email
              <select
                value={prefs.data.digest_frequency}
                onChange={(e) => void save({ digest_frequency: e.currentTarget.value as Prefs['digest_frequency'] })}
              >
                <option value="none">No digest</option>
                <option value="daily">Daily</option>
                <option value="weekly">Weekly</option>
              </select>
            </label>
            <label class="check">
              <input
                type="checkbox"
                checked={prefs.data.vote_reminders}
                onChange={(e) => void save({ vote_reminders: e.currentTarget.checked })}
              />{' '}
              Remind me before a vote closes
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
                <a href={`/campaigns/${c.campaign_id}`}>Campaign #{c.campaign_id}</a>: {dom(c.amount_e8s)} DOM,{' '}
                {localTime(c.at)}
              </li>
            ))}
          </ul>
        ) : (
          <p>{mine.data ? 'None yet.' : '…'}</p>
        )}
        {mine.data?.refunds.length ? <p class="muted">{mine.data.refunds.length} refunded.</p> : null}
      </section>
      <Sessions />
      <ActivityCard />
    </>
  );
}
