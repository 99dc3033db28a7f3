// Governance at a glance (decision F25): friendly status names, "voting opens in 42 min" and "ends in 3
// days" from a clock that ticks on the page (no request), a bar per choice and quorum progress.
import type { Answer } from '../api.ts';

/** The rules in force, as the bridge answers them. */
export type Settings = Answer<'getGovernanceSettings'>;

/** A proposal as the bridge lists it (decision F12: from the OpenAPI document). */
export type Proposal = Answer<'listProposals'>['items'][number];

/** What each canister status means to a member (the canister's own name stays in the title attribute). */
export const STATUS_LABELS: Record<string, string> = {
  Created: 'Voting soon',
  Open: 'Voting open',
  Tallied: 'Counting',
  Approved: 'Passed',
  Rejected: 'Not passed',
  Executed: 'Executed',
  Expired: 'Expired',
};
export const statusLabel = (s: string) => STATUS_LABELS[s] ?? s;

export function StatusBadge({ status }: { status: string }) {
  return (
    <span class={`badge s-${status.toLowerCase()}`} title={`status: ${status}`}>
      {statusLabel(status)}
    </span>
  );
}

/** "42 min", "5 h", "3 days": the distance between two instants in a unit a person uses (minutes and hours rounded down, days to the nearest). */
export function span(ms: number): string {
  const m = Math.floor(Math.abs(ms) / 60_000);
  if (m < 1) return 'less than a minute';
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h${m % 60 && h < 6 ? ` ${m % 60} min` : ''}`;
  return `${Math.round(h / 24)} days`;
}

/** The proposal's moment in words: "Voting opens in 42 min", "Ends in 3 days", "Ended 2 days ago". */
export function phase(p: Pick<Proposal, 'status' | 'voting_opens' | 'voting_closes'>, now: number): string {
  const opens = Date.parse(p.voting_opens) - now;
  const closes = Date.parse(p.voting_closes) - now;
  if (p.status === 'Created') return opens > 0 ? `Voting opens in ${span(opens)}` : 'Voting opens now';
  if (p.status === 'Open') return closes > 0 ? `Ends in ${span(closes)}` : 'Voting is closing';
  return closes > 0 ? `Ended early` : `Ended ${span(closes)} ago`;
}

/** A bar drawn by CSS, its width set through the CSSOM (decision F2's `style-src 'self'` allows that); read aloud by its label. */
function Bar({ pct, label, kind, marker }: { pct: number; label: string; kind?: string; marker?: number }) {
  return (
    <div class={`bar ${kind ?? ''}`} role="img" aria-label={label}>
      <div
        class="fill"
        ref={(el) => {
          el?.style.setProperty('width', `${Math.max(0, Math.min(100, pct))}%`);
        }}
      />
      {marker !== undefined ? (
        <div
          class="marker"
          ref={(el) => {
            el?.style.setProperty('left', `${Math.max(0, Math.min(100, marker))}%`);
          }}
        />
      ) : null}
    </div>
  );
}

const pctOf = (n: number, d: number) => (d > 0 ? (n / d) * 100 : 0);
const fmt = (x: number) => `${x.toFixed(x > 0 && x < 10 ? 1 : 0)} %`;

/** Yes, No and Abstain with a bar each, and turnout against the quorum (abstentions count as turnout). */
export function Tally({
  p,
  quorumBps,
  thresholdBps,
  compact,
}: {
  p: Proposal;
  quorumBps?: number | undefined;
  thresholdBps?: number | undefined;
  compact?: boolean;
}) {
  const t = p.tally;
  const yes = Number(t?.yes_votes ?? 0);
  const no = Number(t?.no_votes ?? 0);
  const abstain = Number(t?.abstentions ?? 0);
  const eligible = Number(t?.total_eligible ?? 0);
  const cast = yes + no + abstain;
  const quorum = quorumBps !== undefined ? quorumBps / 100 : undefined;
  // Members, not percent: "1 needed" is what a member can act on; a part of a member rounds up.
  const needed = quorum !== undefined ? Math.ceil((eligible * quorum) / 100) : undefined;
  const turnout = pctOf(cast, eligible);
  const choices: Array<[string, number, string]> = [
    ['Yes', yes, 'yes'],
    ['No', no, 'no'],
    ['Abstain', abstain, 'abstain'],
  ];
  // Decision F59: a list row takes no quorum: the rules in force today need not be the ones the proposal
  // is decided by (an amendment leaves created proposals their own, G12), and the API does not publish
  // those. The tally's own verdict is the canister's, counted under the proposal's rules.
  if (compact) {
    const verdict = t
      ? t.quorum_met
        ? ' · quorum met'
        : p.status === 'Open'
          ? ' · quorum not met yet'
          : ' · quorum not met'
      : '';
    return (
      <div class="glance">
        <span class="muted">
          Yes {yes} · No {no} · Abstain {abstain} · turnout {fmt(turnout)}
          {verdict}
        </span>
        <Bar pct={turnout} kind="quorum" label={`Turnout ${fmt(turnout)}${verdict ? `,${verdict.slice(2)}` : ''}`} />
      </div>
    );
  }
  return (
    <div class="tally">
      {choices.map(([label, n, kind]) => (
        <div key={label} class="choice">
          <div class="row">
            <strong>{label}</strong>
            <span>
              {n} {n === 1 ? 'vote' : 'votes'} · {fmt(pctOf(n, cast))}
            </span>
          </div>
          <Bar pct={pctOf(n, cast)} kind={kind} label={`${label}: ${n} of ${cast} votes`} />
        </div>
      ))}
      <div class="choice">
        <div class="row">
          <strong>Quorum</strong>
          <span>
            {cast} of {eligible} members voted ({fmt(turnout)})
            {needed !== undefined
              ? ` · ${needed} needed${t?.quorum_met ? ': met' : ''}`
              : t
                ? ` · quorum ${t.quorum_met ? 'met' : 'not met'}`
                : ''}
          </span>
        </div>
        <Bar
          pct={turnout}
          marker={quorum}
          kind="quorum"
          label={`Turnout ${fmt(turnout)}${quorum !== undefined ? ` against a quorum of ${quorum} %` : ''}`}
        />
      </div>
      {thresholdBps === undefined && t ? (
        <p class="muted">
          Counted under the rules fixed for this proposal: quorum {t.quorum_met ? 'met' : 'not met'}, Yes needed{' '}
          {t.threshold_met ? 'met' : 'not met'}.
        </p>
      ) : null}
      {thresholdBps !== undefined ? (
        <p class="muted">
          Passes with a quorum of {quorum} % of members and at least {thresholdBps / 100} % yes among yes and no
          {yes + no > 0 ? ` (now ${fmt(pctOf(yes, yes + no))} yes)` : ''}.
        </p>
      ) : null}
    </div>
  );
}
