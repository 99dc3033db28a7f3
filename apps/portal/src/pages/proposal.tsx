// A proposal: its Markdown body rendered and sanitised (a body is untrusted input), the AI summary,
// the tally against quorum and threshold with the time left, my vote, and voting for Active members
// (spec 2 rule 5: Registered members see governance read-only).
import { absoluteTime, categoryLabel } from '@domdao/proposal-text';
import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useState } from 'preact/hooks';
import { api, ApiError, useApi, useLive, handler, type Answer } from '../api.ts';
import { isActive, useSession } from '../session.tsx';
import { phase, StatusBadge, Tally, type Settings } from '../components/at-a-glance.tsx';
import { useNow } from '../time.tsx';
import { BallotLine, TurnoutLine, VoteReasons } from '../components/proposal-delegation.tsx';
import { ProposalTimeline, VotesList } from '../components/proposal-timeline.tsx';
import { PayloadCard } from '../components/proposal-payload.tsx';

// Decision F6: a body is Markdown only; raw HTML in it is shown as text (never parsed), and what
// Markdown makes is sanitised too (links: no javascript: and the like).
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
marked.use({ renderer: { html: (token) => escapeHtml(token.text) } });

export function renderMarkdown(md: string): string {
  return DOMPurify.sanitize(marked.parse(md, { async: false, gfm: true }), {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'img'],
  });
}

export function ProposalPage({ id }: { id: string }) {
  const { session, signInUrl } = useSession();
  const p = useApi<Answer<'getProposal'>>(`/api/governance/proposals/${encodeURIComponent(id)}`);
  const settings = useApi<Settings>('/api/governance/settings');
  const mine = useApi<Answer<'getMyVote'>>(
    session ? `/api/governance/proposals/${encodeURIComponent(id)}/my-vote` : null,
  );
  // A receipt exists only for a direct vote (a delegate's vote for the member has none): asked only then.
  const receipts = useApi<Answer<'listMyVoteReceipts'>>(
    session && mine.data?.cast === 'direct' ? '/api/governance/my-receipts?take=100' : null,
  );
  const receipt = receipts.data?.items.find((r) => r.proposal_id === id);
  // The summary helper only when the bridge has an inference server (as the drafting helper and search).
  const ai = useApi<Answer<'getAiHealth'>>(session ? '/api/ai/health' : null);
  const [summary, setSummary] = useState<string>('');
  const [msg, setMsg] = useState('');
  const [reason, setReason] = useState('');
  // Decision G23: only members Active when voting opened vote; the canister says so when one was not.
  const [lateMember, setLateMember] = useState(false);
  // Bumped by a vote or a live event: the votes list and the reasons take it in their key and read again.
  const [version, setVersion] = useState(0);
  const now = useNow();
  // Decision V32: the tally, the member's ballot and the votes follow what happens, without a reload.
  useLive(id, () => {
    p.reload();
    mine.reload();
    setVersion((n) => n + 1);
  });
  if (p.error) return <p class="error">{p.error.status === 404 ? 'No such proposal.' : p.error.message}</p>;
  if (!p.data) return <p aria-busy="true">Loading…</p>;
  const pr = p.data;
  // Decision F59: today's rules are shown as this proposal's only while it is being decided; a settled one
  // gives the canister's verdict, counted under the rules fixed for it (an amendment may have changed today's).
  const rule =
    pr.status === 'Created' || pr.status === 'Open'
      ? settings.data?.rules.find((r) => r.category === pr.category)
      : undefined;
  const t = pr.tally;
  const vote = async (v: 'Yes' | 'No' | 'Abstain') => {
    setMsg('');
    try {
      await api('/api/governance/vote', {
        method: 'POST',
        body: { proposal_id: pr.id, vote: v, ...(reason.trim() && { reason: reason.trim() }) },
      });
      setMsg(`Your vote “${v}” is recorded.`);
      setVersion((n) => n + 1);
      mine.reload();
      p.reload();
      receipts.reload();
    } catch (err) {
      if (err instanceof ApiError && err.code === 'NotActiveWhenVotingOpened') setLateMember(true);
      else setMsg(err instanceof ApiError ? err.message : String(err));
    }
  };
  return (
    <article>
      <p class="muted">
        <a href="/govern">Governance</a> › #{pr.id}
      </p>
      <div class="row">
        <h1 dir="auto">{pr.title}</h1>
        <StatusBadge status={pr.status} />
      </div>
      <p class="when">{phase(pr, now)}</p>
      <p class="muted">
        {categoryLabel(pr.category)} · proposed by{' '}
        <bdi title={pr.proposed_by}>{pr.proposed_by_name ?? 'the platform'}</bdi> · voting{' '}
        {/* Decision F60: in the reader's own time zone, named, as /me and activity word a moment. */}
        <time dateTime={pr.voting_opens}>{absoluteTime(Date.parse(pr.voting_opens))}</time> –{' '}
        <time dateTime={pr.voting_closes}>{absoluteTime(Date.parse(pr.voting_closes))}</time>
      </p>
      {/* The proposal first, as Snapshot and Tally show it: read it, then vote (decision F39). */}
      {session && ai.data?.status === 'ok' ? (
        <section class="card">
          <h2>Summary</h2>
          {summary ? (
            <p>{summary}</p>
          ) : (
            <button
              type="button"
              class="secondary"
              onClick={handler(async () => {
                try {
                  setSummary(
                    (
                      await api<Answer<'summarizeProposal'>>('/api/ai/summarize', {
                        method: 'POST',
                        body: { proposal_id: pr.id, title: pr.title, body: pr.body },
                      })
                    ).summary,
                  );
                } catch (err) {
                  setSummary(err instanceof ApiError ? `No summary: ${err.message}` : 'No summary.');
                }
              })}
            >
              Summarise with AI
            </button>
          )}
        </section>
      ) : null}
      {/* Decision F43: what a vote decides, in words, before the reasons for it (as Tally decodes its calls). */}
      <PayloadCard p={pr} rules={settings.data} />
      <section class="card prose" aria-label="Proposal text">
        <div dir="auto" dangerouslySetInnerHTML={{ __html: renderMarkdown(pr.body) }} />
      </section>
      <section class="card" aria-label="Tally">
        <h2>Tally</h2>
        {t ? (
          <>
            <Tally p={pr} quorumBps={rule?.quorum_bps} thresholdBps={rule?.threshold_bps} />
            <TurnoutLine turnout={pr.turnout} />
          </>
        ) : (
          <p>{pr.status === 'Created' ? 'Voting has not opened yet.' : 'No votes yet.'}</p>
        )}
        {session ? <BallotLine ballot={mine.data} open={pr.status === 'Open'} /> : null}
        {receipt ? (
          <p class="muted">
            Your vote receipt #{receipt.token_id}
            {receipt.minted_at ? `, issued ${absoluteTime(Date.parse(receipt.minted_at))}` : ''}: proof that you voted,
            withdrawn once the proposal is settled.
          </p>
        ) : null}
        {pr.status === 'Open' && lateMember ? (
          <p class="note" role="status">
            You became a voting member after voting opened on this proposal, so you cannot vote on it. You can vote on
            proposals that open from now on.
          </p>
        ) : pr.status === 'Open' && isActive(session) && mine.data?.cast !== 'direct' ? (
          <div class="actions">
            <label>
              Reason (optional, shown without your name; at most 1,000 characters)
              <textarea
                name="reason"
                maxLength={1000}
                rows={2}
                value={reason}
                onInput={(e) => setReason(e.currentTarget.value)}
              />
            </label>
            <button type="button" onClick={() => void vote('Yes')}>
              Vote yes
            </button>
            <button type="button" class="secondary" onClick={() => void vote('No')}>
              Vote no
            </button>
            <button type="button" class="secondary" onClick={() => void vote('Abstain')}>
              Abstain
            </button>
          </div>
        ) : pr.status === 'Open' && session && !isActive(session) ? (
          <p class="note">Only Active members vote; you can follow this proposal read-only.</p>
        ) : pr.status === 'Open' && !session ? (
          <p>
            <a href={signInUrl()}>Sign in</a> to vote.
          </p>
        ) : pr.status === 'Approved' && session ? (
          // Execution is permissionless (decision G6): the canister's scheduler does it within the
          // execution window, and any member may do it at once.
          <div class="actions">
            <p>Approved. It is executed automatically; you can execute it now.</p>
            <button
              type="button"
              onClick={handler(async () => {
                setMsg('');
                try {
                  const r = await api<Answer<'executeProposal'>>('/api/governance/execute', {
                    method: 'POST',
                    body: { proposal_id: pr.id },
                  });
                  setMsg(`Done: the proposal is ${r.status}.`);
                  p.reload();
                } catch (err) {
                  setMsg(err instanceof ApiError ? err.message : String(err));
                }
              })}
            >
              Execute now
            </button>
          </div>
        ) : null}
        <p role="status">{msg}</p>
      </section>
      <ProposalTimeline id={pr.id} status={pr.status} now={now} />
      {/* A new vote (or the status moving) reads the votes and reasons again. */}
      <VotesList key={`votes-${pr.status}-${version}`} id={pr.id} status={pr.status} session={session} />
      <VoteReasons key={`reasons-${version}`} id={pr.id} />
    </article>
  );
}
