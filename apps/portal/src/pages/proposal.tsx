// A proposal: its Markdown body rendered and sanitised (a body is untrusted input), the AI summary,
// the tally against quorum and threshold with the time left, my vote, and voting for Active members
// (spec 2 rule 5: Registered members see governance read-only).
import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useState } from 'preact/hooks';
import { api, ApiError, useApi, when, handler, type Answer } from '../api.ts';
import { isActive, useSession } from '../session.tsx';
import type { Proposal } from './govern.tsx';

type Settings = Answer<'getGovernanceSettings'>;

// Decision F6: a body is Markdown only; raw HTML in it is shown as text (never parsed), and what
// Markdown makes is sanitised too (links: no javascript: and the like).
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
marked.use({ renderer: { html: (token) => escapeHtml(token.text) } });

export function renderMarkdown(md: string): string {
  return DOMPurify.sanitize(marked.parse(md, { async: false, gfm: true }), { USE_PROFILES: { html: true }, FORBID_TAGS: ['style', 'form', 'input', 'img'] });
}

function timeLeft(iso: string): string {
  const ms = Date.parse(iso) - Date.now();
  if (ms <= 0) return 'closing now';
  const h = Math.floor(ms / 3_600_000);
  return h >= 48 ? `${Math.floor(h / 24)} days left` : h >= 1 ? `${h} h left` : `${Math.max(1, Math.floor(ms / 60_000))} min left`;
}

export function ProposalPage({ id }: { id: string }) {
  const { session, signInUrl } = useSession();
  const p = useApi<Proposal>(`/api/governance/proposals/${encodeURIComponent(id)}`);
  const settings = useApi<Settings>('/api/governance/settings');
  const mine = useApi<Answer<'getMyVote'>>(session ? `/api/governance/proposals/${encodeURIComponent(id)}/my-vote` : null);
  const receipts = useApi<Answer<'listMyVoteReceipts'>>(session && mine.data?.vote ? '/api/governance/my-receipts?take=100' : null);
  const receipt = receipts.data?.items.find((r) => r.proposal_id === id);
  // The summary helper only when the bridge has an inference server (as the drafting helper and search).
  const ai = useApi<Answer<'getAiHealth'>>(session ? '/api/ai/health' : null);
  const [summary, setSummary] = useState<string>('');
  const [msg, setMsg] = useState('');
  // Decision G23: only members Active when voting opened vote; the canister says so when one was not.
  const [lateMember, setLateMember] = useState(false);
  if (p.error) return <p class="error">{p.error.status === 404 ? 'No such proposal.' : p.error.message}</p>;
  if (!p.data) return <p aria-busy="true">Loading…</p>;
  const pr = p.data;
  const rule = settings.data?.rules.find((r) => r.category === pr.category);
  const t = pr.tally;
  const cast = t ? Number(t.yes_votes) + Number(t.no_votes) + Number(t.abstentions) : 0;
  const yesPct = t ? (Number(t.yes_votes) / Math.max(1, Number(t.yes_votes) + Number(t.no_votes))) * 100 : 0;
  const vote = async (v: 'Yes' | 'No' | 'Abstain') => {
    setMsg('');
    try {
      await api('/api/governance/vote', { method: 'POST', body: { proposal_id: pr.id, vote: v } });
      setMsg(`Your vote “${v}” is recorded.`);
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
        <h1>{pr.title}</h1>
        <span class={`badge s-${pr.status.toLowerCase()}`}>{pr.status}</span>
      </div>
      <p class="muted">
        {pr.category} · proposed by <code>{pr.proposed_by}</code> · voting {when(pr.voting_opens)} – {when(pr.voting_closes)}
        {pr.status === 'Open' ? ` (${timeLeft(pr.voting_closes)})` : ''}
      </p>
      <section class="card" aria-label="Tally">
        <h2>Tally</h2>
        {t ? (
          <>
            <p>
              Yes {t.yes_votes} · No {t.no_votes} · Abstain {t.abstentions} · {cast} of {t.total_eligible} members voted
            </p>
            <p class="muted">
              Quorum {t.quorum_met ? 'met' : 'not met yet'} · threshold {t.threshold_met ? 'met' : 'not met yet'}
            </p>
            <div class="bar" role="img" aria-label={`${yesPct.toFixed(0)} % yes of yes and no`}>
              <div
                class="fill"
                ref={(el) => {
                  el?.style.setProperty('width', `${yesPct}%`);
                }}
              />
            </div>
          </>
        ) : (
          <p>No votes yet.</p>
        )}
        {rule ? (
          <p class="muted">
            Needs a quorum of {rule.quorum_bps / 100} % of members and {rule.threshold_bps / 100} % yes.
          </p>
        ) : null}
        {session ? <p>Your vote: {mine.data ? (mine.data.vote ?? 'not cast') : '…'}</p> : null}
        {receipt ? (
          <p class="muted">
            Vote-pass receipt: token #{receipt.token_id}
            {receipt.minted_at ? `, minted ${when(receipt.minted_at)}` : ''} (ICRC-7; burned when the proposal is finalised)
          </p>
        ) : null}
        {pr.status === 'Open' && lateMember ? (
          <p class="note" role="status">
            You became a voting member after voting opened on this proposal, so you cannot vote on it. You can vote on proposals that open from now on.
          </p>
        ) : pr.status === 'Open' && isActive(session) && !mine.data?.vote ? (
          <div class="actions">
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
                  const r = await api<Answer<'executeProposal'>>('/api/governance/execute', { method: 'POST', body: { proposal_id: pr.id } });
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
      <section class="card prose" aria-label="Proposal text">
        <div dangerouslySetInnerHTML={{ __html: renderMarkdown(pr.body) }} />
      </section>
    </article>
  );
}
