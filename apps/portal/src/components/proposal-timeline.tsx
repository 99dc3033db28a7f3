// The proposal page's timeline and votes list (decisions F36, F37 on the bridge's V30, V31): what
// happened when, and what is planned, with a countdown to the next step; and who voted how where the
// rules let the member see it (spec 1 Authentication rule 2: admins), by name, directly or by delegate,
// a page at a time; otherwise the page says why there is no list.
import { useEffect, useState } from 'preact/hooks';
import { absoluteTime } from '@domdao/proposal-text';
import { api, ApiError, handler, useApi, usd, type Answer } from '../api.ts';
import { When } from '../time.tsx';
import { isAdmin, type Session } from '../session.tsx';
import { span, statusLabel } from './at-a-glance.tsx';

type Timeline = Answer<'getProposalTimeline'>;
type Step = Timeline['steps'][number];
type Votes = Answer<'listProposalVotes'>;
type Vote = Votes['items'][number];

/** A step in a member's words (decision F36): past steps say what happened, planned ones what will. */
function stepText(s: Step, status: string): string {
  const data = (s.event?.data ?? {}) as Record<string, unknown>;
  switch (s.kind) {
    case 'created':
      return 'Proposed';
    case 'opens':
      return s.done ? 'Voting opened' : 'Voting opens';
    case 'closes':
      return s.done ? 'Voting closed' : 'Voting closes';
    case 'tallied':
      return 'Votes counted';
    case 'approved':
      return `${statusLabel('Approved')}: quorum and threshold met`;
    case 'rejected':
      return `${statusLabel('Rejected')}: quorum or threshold not met`;
    case 'result':
      return 'Passed or not passed';
    case 'execution_failed':
      return `Execution failed${typeof data.attempt === 'number' ? ` (attempt ${data.attempt})` : ''}${typeof data.message === 'string' ? `: ${data.message}` : ''}`;
    case 'executed':
      return 'Executed';
    case 'price_updated':
      return typeof data.price_usd === 'number' ? `DOM price set to ${usd(data.price_usd)}` : 'DOM price set';
    case 'config_changed':
      return 'Governance rules changed';
    case 'expired':
      return 'Expired: not executed within the execution window';
    case 'execution_deadline':
      return status === 'Approved'
        ? 'Executed automatically, at the latest by (else it expires)'
        : 'If passed: executed by (else it expires)';
  }
}

export function ProposalTimeline({ id, status, now }: { id: string; status: string; now: number }) {
  const t = useApi<Timeline>(`/api/governance/proposals/${encodeURIComponent(id)}/timeline`);
  // Read again when the page sees the status move (the close, an execution).
  const { reload } = t;
  const [seen, setSeen] = useState(status);
  useEffect(() => {
    if (status === seen) return;
    setSeen(status);
    reload();
  }, [status, seen, reload]);
  if (t.error) return <p class="error">{t.error.message}</p>;
  if (!t.data) return <p aria-busy="true">Loading the timeline…</p>;
  const failures = Number(t.data.execution_failures);
  const shown = t.data.steps.filter((s) => s.kind === 'execution_failed').length;
  const next = t.data.steps.find((s) => !s.done);
  return (
    <section class="card" aria-labelledby="timeline-h">
      <h2 id="timeline-h">Timeline</h2>
      <ol class="timeline">
        {t.data.steps.map((s, i) => {
          const ahead = Date.parse(s.at) - now;
          return (
            <li
              key={`${s.kind}-${i}`}
              class={s.done ? 'done' : s === next ? 'planned next' : 'planned'}
              data-kind={s.kind}
            >
              <span class="what">{stepText(s, t.data!.status)}</span>
              <span class="at muted">
                {/* Decision F60: local time with its zone; a step done also says how long ago. */}
                {s.done ? <When iso={s.at} now={now} /> : <time dateTime={s.at}>{absoluteTime(Date.parse(s.at))}</time>}
                {s.done ? null : ` · planned${ahead > 0 ? `, in ${span(ahead)}` : ', due now'}`}
              </span>
            </li>
          );
        })}
      </ol>
      {failures > shown ? (
        <p class="muted">
          {failures} failed execution attempts in all; the newest {shown} are shown.
        </p>
      ) : null}
    </section>
  );
}

function VoteRow({ v }: { v: Vote }) {
  return (
    <li>
      <span class="vote-line">
        <strong>
          <bdi>{v.voter_name ?? 'A member'}</bdi>
        </strong>{' '}
        voted <strong>{v.vote}</strong>{' '}
        {v.delegate ? (
          <>
            by delegate <bdi>{v.delegate_name ?? 'a member'}</bdi>
          </>
        ) : (
          'directly'
        )}
      </span>
      {v.reason ? (
        <span class="reason">
          “<bdi>{v.reason}</bdi>”
        </span>
      ) : null}
      <time dateTime={v.voted_at} class="muted">
        {absoluteTime(Date.parse(v.voted_at))}
      </time>
    </li>
  );
}

const PAGE = 50;

/**
 * Who voted how (decision F37): a list for admins (the only members spec 1 lets see votes), paged;
 * for everyone else a sentence saying why there is none, and what they can see instead.
 */
export function VotesList({
  id,
  status,
  session,
}: {
  id: string;
  status: string;
  session: Session | null | undefined;
}) {
  const admin = isAdmin(session);
  const [items, setItems] = useState<Vote[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [msg, setMsg] = useState('');
  const [loaded, setLoaded] = useState(false);
  const load = async (after: string | null) => {
    setMsg('');
    try {
      const r = await api<Votes>(
        `/api/governance/proposals/${encodeURIComponent(id)}/votes?limit=${PAGE}${after ? `&after=${encodeURIComponent(after)}` : ''}`,
      );
      setItems((old) => (after ? [...old, ...r.items] : r.items));
      setNext(r.next_after);
    } catch (err) {
      setMsg(err instanceof ApiError ? err.message : String(err));
    }
    setLoaded(true);
  };
  const open = status !== 'Created';
  // Once the session says admin; the page mounts this list anew (its key) after a vote or when the status moves.
  useEffect(() => {
    if (admin && open) void load(null);
  }, [admin, open]);
  let body;
  if (!open) body = <p>No votes yet: voting has not opened.</p>;
  else if (!admin)
    body = (
      <p class="note">
        Who voted how is shown only to the DAO’s admins (the governance rules keep ballots private). You see your own
        vote above, the counts in the tally and the reasons given, without names.
      </p>
    );
  else if (!loaded) body = <p aria-busy="true">Loading votes…</p>;
  else if (msg) body = <p class="error">{msg}</p>;
  else if (!items.length) body = <p>No votes yet.</p>;
  else
    body = (
      <>
        <p class="muted">
          Shown to you as an admin.{' '}
          {status === 'Open' ? 'Votes through delegates are listed once counted, when voting closes.' : ''}
        </p>
        <ul class="plain votes">
          {items.map((v) => (
            <VoteRow key={v.voter} v={v} />
          ))}
        </ul>
        {next ? (
          <button type="button" class="secondary" onClick={handler(() => load(next))}>
            More votes
          </button>
        ) : null}
      </>
    );
  return (
    <section class="card" aria-labelledby="votes-h">
      <h2 id="votes-h">Votes</h2>
      {body}
    </section>
  );
}
