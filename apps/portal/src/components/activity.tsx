// The member's activity on /me (decisions F49, N27, N29, N30): newest first, each item's time relative
// and in the browser's zone, a voting deadline as "Voting closes in 2 minutes" from the real deadline,
// and "Show older" reading the next page by the feed's cursor until there is none.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, handler, type Answer } from '../api.ts';
import { useNow, When } from '../time.tsx';

type Feed = Answer<'listMyActivity'>;
type Item = Feed['items'][number];

/** Items a page: the feed's default. */
export const ACTIVITY_PAGE = 20;

/** The app's page for a link the bridge wrote for mail (the app's own pages since F10). */
const appPath = (link: string) =>
  new URL(link).pathname
    .replace(/^\/api\/governance\/proposals\//, '/proposals/')
    .replace(/^\/api\/campaigns\//, '/campaigns/');

function Entry({ i, now }: { i: Item; now: number }) {
  // Decision N29: the deadline comes as a time, never inside the text, so it is worded from now as the page ticks.
  const deadline = i.closes_at;
  const closes = deadline === null ? undefined : Date.parse(deadline);
  return (
    <li class="item">
      <strong>
        {/* A mail link opens the app's own page for it (decision F10); titles and bodies are isolated (F42). */}
        {i.deep_link ? (
          <a href={appPath(i.deep_link)}>
            <bdi>{i.title}</bdi>
          </a>
        ) : (
          <bdi>{i.title}</bdi>
        )}
      </strong>
      <span class="muted">
        {i.category} · <When iso={i.created_at} now={now} />
      </span>
      {i.body || closes !== undefined ? (
        <div>
          {i.body ? <span dir="auto">{i.body}</span> : null}
          {deadline !== null && closes !== undefined ? (
            <span data-testid="closes">
              {i.body ? ' ' : ''}Voting {closes > now ? 'closes' : 'closed'} <When iso={deadline} now={now} />.
            </span>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}

export function ActivityCard() {
  // One clock for every item, so "3 hours ago" moves on while /me stays open.
  const now = useNow();
  const [items, setItems] = useState<Item[] | undefined>();
  const [next, setNext] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const load = async (before: string | null) => {
    setBusy(true);
    setError('');
    try {
      // Paged by the feed's cursor, not an offset: items written meanwhile neither repeat nor go missing.
      const page = await api<Feed>(
        `/api/me/activity?limit=${ACTIVITY_PAGE}${before === null ? '' : `&before_id=${before}`}`,
      );
      setItems((shown) => (before === null ? page.items : [...(shown ?? []), ...page.items]));
      setNext(page.next_before_id);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => {
    void load(null);
  }, []);
  return (
    <section class="card" aria-labelledby="activity-h">
      <h2 id="activity-h">Activity</h2>
      {items?.length ? (
        <ul class="list" data-testid="activity">
          {items.map((i) => (
            <Entry key={i.id} i={i} now={now} />
          ))}
        </ul>
      ) : (
        <p aria-busy={items === undefined && !error}>{items ? 'Nothing yet.' : error ? '' : '…'}</p>
      )}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {next !== null ? (
        <button type="button" class="secondary" disabled={busy} onClick={handler(() => load(next))}>
          {busy ? 'Loading…' : 'Show older activity'}
        </button>
      ) : items?.length ? (
        <p class="muted" data-testid="activity-end">
          That is all your activity.
        </p>
      ) : null}
    </section>
  );
}
