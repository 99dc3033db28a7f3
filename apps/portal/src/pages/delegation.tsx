// Liquid democracy (decisions F18, F19, F38 on the bridge's V26–V27, V31): choose a delegate by name
// (GET /api/members, decision F22) or from the members who offer to be delegates, reading their statement
// and how many members they vote for (decision F54 on B108), for every category or for one; see and take
// back what is delegated; see how your delegates voted for you on the latest proposals in one request
// (decision F53), with the way to vote yourself while voting is open; and, as a delegate, how many
// delegations you vote for and who, where they allowed it, and your own statement.
import { categoryLabel } from '@domdao/proposal-text';
import { useState } from 'preact/hooks';
import { PROPOSAL_CATEGORIES } from '@domdao/canister-kit/rules';
import { api, ApiError, handler, useApi, type Answer } from '../api.ts';
import { localTime } from '../time.tsx';
import { isActive, useSession } from '../session.tsx';
import { MemberPicker, type Member } from '../components/payload-forms.tsx';
import { statusLabel } from '../components/at-a-glance.tsx';

// The categories have one source (decision S17).
const CATEGORIES = PROPOSAL_CATEGORIES;
/** The latest proposals whose ballots the page shows, all read in one request (decision F53). */
const RECENT = 10;
/** Decision B108: a statement's length, as the bridge counts it (characters, after trimming). */
const STATEMENT_MAX = 500;

type Mine = Answer<'getDelegation'>;
type Delegators = Answer<'listDelegators'>;
type Ballots = Answer<'listMyRecentBallots'>;
type Profile = Answer<'getDelegate'>;

/** The member's ballots cast by a delegate on the latest proposals that opened (decisions F38, F53). */
function DelegateVotes() {
  const ballots = useApi<Ballots>(`/api/governance/my-ballots?limit=${RECENT}`);
  const rows = ballots.data?.items.filter((b) => b.cast === 'delegate');
  return (
    <section class="card" aria-labelledby="by-delegates-h">
      <h2 id="by-delegates-h">How your delegates voted for you</h2>
      {ballots.error ? (
        <p class="error">{ballots.error.message}</p>
      ) : !rows ? (
        <p aria-busy="true">Loading…</p>
      ) : rows.length ? (
        <ul class="plain">
          {rows.map(({ proposal: p, ...b }) => (
            <li key={p.id} data-testid="delegate-vote">
              <a href={`/proposals/${p.id}`}>
                #{p.id} <bdi>{p.title}</bdi>
              </a>
              : <strong>{b.vote}</strong>, voted by your delegate{' '}
              <strong>
                <bdi>{b.delegate_name ?? 'a member'}</bdi>
              </strong>{' '}
              {p.status === 'Open' && !b.final ? (
                <span class="muted">
                  · voting open until {localTime(p.voting_closes)}: open the proposal to vote yourself instead
                </span>
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

/** "Votes for 3 members" (decision B108: each member once, whatever their categories). */
function following(p: Pick<Profile, 'members' | 'delegations'>): string {
  // members is null past 2,000 delegations, where the bridge stops counting members: the delegations stand in.
  if (p.members !== null)
    return p.members === '0'
      ? 'No one delegates to them yet'
      : `Votes for ${p.members} ${p.members === '1' ? 'member' : 'members'}`;
  return `Votes for ${p.delegations ?? '0'} delegations`;
}

/** A delegate's statement and following, as members choosing a delegate read it (decision F54). */
function DelegateProfile({ p }: { p: Profile }) {
  return (
    <>
      <p class="following">
        <strong>
          <bdi>{p.display_name ?? 'A member'}</bdi>
        </strong>{' '}
        {p.statement === null ? (
          <span class="muted">has not written a statement as a delegate.</span>
        ) : (
          <span class="muted">· {following(p)}</span>
        )}
      </p>
      {p.statement !== null ? (
        <p class="statement" dir="auto">
          {p.statement}
        </p>
      ) : null}
    </>
  );
}

/** Decision F54: members who offer to be delegates, each with their statement and following, to choose from. */
function Delegates({ onChoose }: { onChoose(m: Member): void }) {
  const list = useApi<Answer<'listDelegates'>>(`/api/delegates?limit=${RECENT}`);
  if (list.error) return <p class="error">{list.error.message}</p>;
  if (!list.data) return <p aria-busy="true">Loading delegates…</p>;
  if (!list.data.items.length)
    return <p class="muted">No member has written a statement as a delegate yet: search for anyone by name below.</p>;
  return (
    <ul class="plain delegates" aria-label="Members who offer to be delegates">
      {list.data.items.map((p) => (
        <li key={p.principal} class="delegate" data-testid="delegate">
          <DelegateProfile p={p} />
          <button
            type="button"
            class="secondary small"
            aria-label={`Choose ${p.display_name ?? 'this member'} as your delegate`}
            onClick={() => onChoose({ principal: p.principal, display_name: p.display_name ?? 'A member' })}
          >
            Choose
          </button>
        </li>
      ))}
    </ul>
  );
}

/** The chosen delegate's statement and following, read when they are chosen. */
function Chosen({ delegate }: { delegate: Member }) {
  const p = useApi<Profile>(`/api/delegates/${encodeURIComponent(delegate.principal)}`);
  if (!p.data) return p.error ? <p class="error">{p.error.message}</p> : <p aria-busy="true">…</p>;
  return (
    <div class="chosen" data-testid="chosen-profile">
      <DelegateProfile p={p.data} />
    </div>
  );
}

/** Decision F54: the member's own statement as a delegate, written, changed or removed here. */
function MyStatement({ principal, onSaved }: { principal: string; onSaved(): void }) {
  const mine = useApi<Profile>(`/api/delegates/${encodeURIComponent(principal)}`);
  const [text, setText] = useState<string | null>(null);
  const [msg, setMsg] = useState('');
  if (!mine.data) return mine.error ? <p class="error">{mine.error.message}</p> : <p aria-busy="true">…</p>;
  const value = text ?? mine.data.statement ?? '';
  // Counted in characters as the bridge counts them (code points, trimmed), not UTF-16 units.
  const length = [...value.trim()].length;
  const save = async (statement: string | null) => {
    setMsg('');
    try {
      const r = await api<Profile>('/api/me/delegate-statement', { method: 'PUT', body: { statement } });
      setText(null);
      mine.reload();
      onSaved();
      setMsg(
        r.statement === null
          ? 'Statement removed: you are no longer listed as a delegate.'
          : 'Saved: members choosing a delegate now read it.',
      );
    } catch (err) {
      setMsg(err instanceof ApiError ? err.message : String(err));
    }
  };
  return (
    <form
      id="statement-form"
      onSubmit={handler(async (e: Event) => {
        e.preventDefault();
        await save(value);
      })}
    >
      <label for="statement">Your statement as a delegate</label>
      <textarea
        id="statement"
        rows={4}
        value={value}
        aria-describedby="statement-hint"
        onInput={(e) => setText(e.currentTarget.value)}
        // Room past the limit, so pasted text is not cut silently: the count turns red and Save waits.
        maxLength={STATEMENT_MAX * 2}
      />
      <p id="statement-hint" class={`hint${length > STATEMENT_MAX ? ' bad' : ''}`}>
        {length} of {STATEMENT_MAX} characters. Members choosing a delegate read it, with how many members you vote for.
        Leave it empty to stop offering yourself.
      </p>
      <div class="actions">
        <button type="submit" disabled={length > STATEMENT_MAX}>
          Save statement
        </button>
        {mine.data.statement !== null ? (
          <button type="button" class="secondary" onClick={handler(() => save(null))}>
            Remove statement
          </button>
        ) : null}
      </div>
      <p role="status">{msg}</p>
    </form>
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
        A delegate votes for you on proposals whose voting opens after you choose them. Your own vote always replaces
        theirs until voting closes.
      </p>
      <section class="card" aria-labelledby="mine-h">
        <h2 id="mine-h">My delegations</h2>
        {mine.data?.delegations.length ? (
          <ul class="plain">
            {mine.data.delegations.map((d) => (
              <li key={d.category ?? 'All'} data-testid="delegation">
                {d.category ? categoryLabel(d.category) : 'All categories'}:{' '}
                <strong title={d.delegate}>
                  <bdi>{d.delegate_name ?? 'a member without a name'}</bdi>
                </strong>{' '}
                <span class="muted">since {localTime(d.since)}</span>{' '}
                <button
                  type="button"
                  class="secondary small"
                  aria-label={`Take back the delegation for ${d.category ? categoryLabel(d.category) : 'all categories'}`}
                  onClick={run(
                    () =>
                      api(`/api/governance/delegation${d.category ? `?category=${d.category}` : ''}`, {
                        method: 'DELETE',
                      }),
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
      {/* A change of delegation (or of a statement) reads these again. */}
      <DelegateVotes key={`votes-${version}`} />
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
                `You delegate to ${delegate.display_name}${category ? ` for ${categoryLabel(category)}` : ''}.`,
              )(e);
            }}
          >
            {delegate ? (
              <>
                <p id="delegate-chosen">
                  Delegate:{' '}
                  <strong>
                    <bdi>{delegate.display_name}</bdi>
                  </strong>{' '}
                  <button type="button" class="link" onClick={() => setDelegate(null)}>
                    Choose someone else
                  </button>
                </p>
                <Chosen delegate={delegate} />
              </>
            ) : (
              <>
                <Delegates key={`delegates-${version}`} onChoose={setDelegate} />
                <MemberPicker id="delegate" label="Or search any member by name" onPick={setDelegate} />
              </>
            )}
            <label for="delegate-category">For</label>
            <select
              id="delegate-category"
              name="category"
              value={category}
              onChange={(e) => setCategory(e.currentTarget.value)}
            >
              <option value="">All categories</option>
              {CATEGORIES.map((c) => (
                <option key={c} value={c}>
                  {categoryLabel(c)} only
                </option>
              ))}
            </select>
            <label class="check">
              <input
                type="checkbox"
                name="show_name"
                checked={showName}
                onChange={(e) => setShowName(e.currentTarget.checked)}
              />{' '}
              Let my delegate see that it is me
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
                When you vote, you vote for <strong>{total}</strong> {total === 1 ? 'delegation' : 'delegations'} too (a
                member who delegates several categories to you counts once for each).
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
                · {i.category ? categoryLabel(i.category) : 'all categories'}
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
        {profile.data ? (
          <MyStatement principal={profile.data.principal} onSaved={() => setVersion((n) => n + 1)} />
        ) : null}
      </section>
    </article>
  );
}
