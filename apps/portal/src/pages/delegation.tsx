// Liquid democracy (decisions F18, F19, F38 on the bridge's V26–V27, V31): choose a delegate by name
// (GET /api/members, decision F22) for every category or for one, see and take back what is delegated,
// see how your delegates voted for you on the latest proposals (with the way to vote yourself while
// voting is open), and, as a delegate, how many delegations you vote for and who, where they allowed it.
import { useEffect, useState } from 'preact/hooks';
import { PROPOSAL_CATEGORIES } from '@domdao/canister-kit/rules';
import { api, ApiError, handler, useApi, when, type Answer } from '../api.ts';
import { isActive, useSession } from '../session.tsx';
import { MemberPicker, type Member } from './payload-forms.tsx';
import { statusLabel } from './at-a-glance.tsx';

// The categories have one source (decision S17).
const CATEGORIES = PROPOSAL_CATEGORIES;
/** The latest proposals whose ballots the page shows (one my-vote read each). */
const RECENT = 10;

type Mine = Answer<'getDelegation'>;
type Delegators = Answer<'listDelegators'>;
type Proposal = Answer<'listProposals'>['items'][number];
type Ballot = Answer<'getMyVote'>;

/** The member's ballots cast by a delegate on the latest proposals that opened (decision F38). */
function DelegateVotes({ version }: { version: number }) {
  const [rows, setRows] = useState<Array<{ p: Proposal; b: Ballot }> | undefined>();
  const [msg, setMsg] = useState('');
  useEffect(() => {
    let live = true;
    (async () => {
      const { items } = await api<Answer<'listProposals'>>(`/api/governance/proposals?limit=${RECENT}`);
      const opened = items.filter((p) => p.status !== 'Created');
      const ballots = await Promise.all(opened.map((p) => api<Ballot>(`/api/governance/proposals/${p.id}/my-vote`)));
      if (live) setRows(opened.map((p, i) => ({ p, b: ballots[i]! })).filter((r) => r.b.cast === 'delegate'));
    })().catch((err: unknown) => live && setMsg(err instanceof ApiError ? err.message : String(err)));
    return () => {
      live = false;
    };
  }, [version]);
  return (
    <section class="card" aria-labelledby="by-delegates-h">
      <h2 id="by-delegates-h">How your delegates voted for you</h2>
      {msg ? (
        <p class="error">{msg}</p>
      ) : !rows ? (
        <p aria-busy="true">Loading…</p>
      ) : rows.length ? (
        <ul class="plain">
          {rows.map(({ p, b }) => (
            <li key={p.id} data-testid="delegate-vote">
              <a href={`/proposals/${p.id}`}>
                #{p.id} <bdi>{p.title}</bdi>
              </a>
              : <strong>{b.vote}</strong>, voted by your delegate{' '}
              <strong>
                <bdi>{b.delegate_name ?? 'a member'}</bdi>
              </strong>{' '}
              {p.status === 'Open' && !b.final ? (
                <span class="muted">· voting open until {when(p.voting_closes)}: open the proposal to vote yourself instead</span>
              ) : (
                <span class="muted">· {statusLabel(p.status)}</span>
              )}
            </li>
          ))}
        </ul>
      ) : (
        <p>No delegate has voted for you on the {RECENT} latest proposals.</p>
      )}
    </section>
  );
}

export function DelegationPage() {
  const { session, signInUrl } = useSession();
  const mine = useApi<Mine>(session ? '/api/governance/delegation' : null);
  const delegators = useApi<Delegators>(session ? '/api/governance/delegation/delegators?limit=100' : null);
  const profile = useApi<Answer<'getMyProfile'>>(session ? '/api/me/profile' : null);
  const [delegate, setDelegate] = useState<Member | null>(null);
  const [category, setCategory] = useState('');
  const [showName, setShowName] = useState(false);
  const [msg, setMsg] = useState('');
  const [version, setVersion] = useState(0);
  if (!session)
    return (
      <p>
        <a href={signInUrl()}>Sign in</a> to delegate your vote.
      </p>
    );
  const run = (action: () => Promise<unknown>, done: string) =>
    handler(async () => {
      setMsg('');
      try {
        await action();
        setMsg(done);
        setDelegate(null);
        mine.reload();
        delegators.reload();
        setVersion((n) => n + 1);
      } catch (err) {
        setMsg(err instanceof ApiError ? err.message : String(err));
      }
    });
  const total = Number(delegators.data?.total ?? 0);
  return (
    <article>
      <h1>Delegate your vote</h1>
      <p class="muted">
        A delegate votes for you on proposals whose voting opens after you choose them. Your own vote always replaces theirs until voting closes.
      </p>
      <section class="card" aria-labelledby="mine-h">
        <h2 id="mine-h">My delegations</h2>
        {mine.data?.delegations.length ? (
          <ul class="plain">
            {mine.data.delegations.map((d) => (
              <li key={d.category ?? 'All'} data-testid="delegation">
                {d.category ?? 'All categories'}:{' '}
                <strong title={d.delegate}>
                  <bdi>{d.delegate_name ?? 'a member without a name'}</bdi>
                </strong>{' '}
                <span class="muted">since {when(d.since)}</span>{' '}
                <button
                  type="button"
                  class="secondary small"
                  aria-label={`Take back the delegation for ${d.category ?? 'all categories'}`}
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
        ) : mine.data ? (
          <p>You vote for yourself on every category.</p>
        ) : (
          <p aria-busy="true">Loading…</p>
        )}
      </section>
      <DelegateVotes version={version} />
      {isActive(session) ? (
        <section class="card" aria-labelledby="choose-h">
          <h2 id="choose-h">Choose a delegate</h2>
          <form
            id="delegate-form"
            onSubmit={(e) => {
              e.preventDefault();
              if (!delegate) return setMsg('Choose a delegate first: search members by name.');
              run(
                () =>
                  api('/api/governance/delegation', {
                    method: 'PUT',
                    body: { delegate: delegate.principal, show_name: showName, ...(category && { category }) },
                  }),
                `You delegate to ${delegate.display_name}${category ? ` for ${category}` : ''}.`,
              )(e);
            }}
          >
            {delegate ? (
              <p id="delegate-chosen">
                Delegate:{' '}
                <strong>
                  <bdi>{delegate.display_name}</bdi>
                </strong>{' '}
                <button type="button" class="link" onClick={() => setDelegate(null)}>
                  Choose someone else
                </button>
              </p>
            ) : (
              <MemberPicker id="delegate" label="Delegate (search members by name)" onPick={setDelegate} />
            )}
            <label for="delegate-category">For</label>
            <select id="delegate-category" name="category" value={category} onChange={(e) => setCategory(e.currentTarget.value)}>
              <option value="">All categories</option>
              {CATEGORIES.map((c) => (
                <option key={c} value={c}>
                  {c} only
                </option>
              ))}
            </select>
            <label class="check">
              <input type="checkbox" name="show_name" checked={showName} onChange={(e) => setShowName(e.currentTarget.checked)} /> Let my delegate see that it
              is me
            </label>
            <button type="submit" disabled={!delegate}>
              Delegate
            </button>
          </form>
        </section>
      ) : (
        <p class="note">Only Active members delegate.</p>
      )}
      <p role="status">{msg}</p>
      <section class="card" aria-labelledby="delegators-h">
        <h2 id="delegators-h">Members who delegate to you</h2>
        <p data-testid="delegators">
          {delegators.data ? (
            total ? (
              <>
                When you vote, you vote for <strong>{total}</strong> {total === 1 ? 'delegation' : 'delegations'} too (a member who delegates several categories
                to you counts once for each).
              </>
            ) : (
              'No one delegates to you yet.'
            )
          ) : (
            '…'
          )}
        </p>
        {delegators.data?.items.length ? (
          <ul class="plain">
            {delegators.data.items.map((i) => (
              <li key={i.key}>
                {i.member ? (
                  <strong>
                    <bdi>{i.member_name ?? 'a member without a name'}</bdi>
                  </strong>
                ) : (
                  <span class="muted">a member who keeps their name private</span>
                )}{' '}
                · {i.category ?? 'all categories'}
              </li>
            ))}
          </ul>
        ) : null}
        <p class="muted">
          Members find you by your name:{' '}
          <strong>
            <bdi>{profile.data?.display_name ?? '…'}</bdi>
          </strong>{' '}
          (<a href="/me">change it on Me</a>).
        </p>
      </section>
    </article>
  );
}
