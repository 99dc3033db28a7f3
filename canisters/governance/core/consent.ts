// ICRC-21 consent messages of the governance canister (decisions G24–G26): what cast_vote and
// create_proposal would do, read from the call's own Candid argument, so a wallet shows a member what
// they sign. A vote names the proposal by id and by its title (a proposal's title never changes); a
// proposal shows its category, title, the start of its body, what its payload would do if approved,
// and the rules its vote would run under. Titles, bodies, memos and URLs come from proposers, so they
// are shown inert (format.ts): no control or direction characters, in code spans nothing can close.
import {
  decodeArgs,
  duration,
  renderConsent,
  unavailable,
  unsupported,
  type CallContext,
  type ConsentDraft,
  type ConsentLine,
  type ConsentRequest,
  type ConsentResponse,
  type Shown,
} from '@domdao/canister-kit';
import type { Idl } from '@domdao/canister-kit/candid';
import { governanceMethods } from '../candid.ts';
import { payloadKind } from './actions/registry.ts';
import { statusAt } from './lifecycle.ts';
import { createArgsProblem } from './payloads.ts';
import type { GovernanceState } from './state.ts';
import type { CreateProposalArgs, GovernanceConfig, GovernanceStores, ProposalPayload, Vote } from './types.ts';

const ANONYMOUS = '2vxsx-fae';
/** DOM as the ledger declares it (decision L3): a treasury payout in e8s is shown with these. */
const DOM = { decimals: 8, symbol: 'DOM' } as const;
/** The start of a proposal's body a message shows (the whole body can be 50 000 characters). */
export const CONSENT_BODY_CHARS = 160;

const VOTE_MEANING: Record<Vote, string> = {
  Yes: 'For the proposal.',
  No: 'Against the proposal.',
  Abstain: 'Neither for nor against: counts toward the quorum only.',
};

const percent = (bps: number) => `${bps / 100} %`;

function payloadLines(p: ProposalPayload): ConsentLine[] {
  const kind = payloadKind(p);
  if ('SetDomPrice' in p) {
    const s = p.SetDomPrice;
    return [
      { label: 'Action', value: { text: 'Set the ratified DOM/USD price.' } },
      { label: 'Price', value: { code: `${s.price_usd} USD per DOM` } },
      s.effective_at !== undefined
        ? { label: 'Effective at', value: { time: s.effective_at } }
        : { label: 'Effective at', value: { text: 'When the proposal executes.' } },
      ...(s.expires_at !== undefined ? [{ label: 'Price expires', value: { time: s.expires_at } }] : []),
      ...(s.source_url !== undefined ? [{ label: 'Source', value: { code: s.source_url, max: 300 } }] : []),
    ];
  }
  if ('TreasuryPayout' in p) {
    const t = p.TreasuryPayout;
    const amount: Shown = 'DomE8s' in t.amount ? { token: t.amount.DomE8s, ...DOM } : { code: `${t.amount.Usd} USD` };
    return [
      { label: 'Action', value: { text: 'Pay DOM from the treasury.' } },
      { label: 'Recipient', value: { code: t.recipient } },
      {
        label: 'Amount',
        value: amount,
        note: 'DomE8s' in t.amount ? undefined : 'Paid in DOM at the ratified price when the proposal executes.',
      },
      ...(t.memo !== undefined ? [{ label: 'Memo', value: { code: t.memo, max: 256 } }] : []),
    ];
  }
  if ('MembershipPolicy' in p) {
    const m = p.MembershipPolicy;
    const list = (label: string, principals: string[]): ConsentLine[] =>
      principals.length
        ? [{ label: `${label} (${principals.length})`, value: { code: principals.join(', '), max: 8000 } }]
        : [];
    return [
      { label: 'Action', value: { text: 'Change the membership policy.' } },
      ...list('Make admins', m.add_admins),
      ...list('Remove as admins', m.remove_admins),
      ...list('Revoke memberships of', m.revoke),
    ];
  }
  if ('ConstitutionalAmendment' in p) {
    const a = p.ConstitutionalAmendment;
    return [
      {
        label: 'Action',
        value: { text: 'Amend the constitution: the rules below apply to proposals created after it executes.' },
      },
      ...a.category_rules.map((r): ConsentLine => ({
        label: `${r.category} rules`,
        value: {
          text:
            [
              r.quorum_bps !== undefined && `quorum ${percent(r.quorum_bps)}`,
              r.threshold_bps !== undefined && `threshold ${percent(r.threshold_bps)}`,
              r.voting_window !== undefined && `voting window ${duration(r.voting_window)}`,
            ]
              .filter(Boolean)
              .join(', ') || 'unchanged',
        },
      })),
      ...(a.voting_delay !== undefined ? [{ label: 'New voting delay', value: { duration: a.voting_delay } }] : []),
      ...(a.execution_window !== undefined
        ? [{ label: 'New execution window', value: { duration: a.execution_window } }]
        : []),
    ];
  }
  throw new Error(`no consent text for payload ${kind}`);
}

export function governanceConsent(stores: GovernanceStores, state: GovernanceState, candid: Idl) {
  let table: ReturnType<typeof governanceMethods> | undefined;
  const methods = () => (table ??= governanceMethods(candid));

  function vote(ctx: CallContext, id: bigint, choice: Vote): ConsentDraft | string {
    const p = stores.proposals.get(id);
    if (!p) return `there is no proposal ${id}`;
    const status = statusAt(p, ctx.now);
    if (status !== 'Created' && status !== 'Open') return `voting on proposal ${id} has closed (it is ${status})`;
    if (ctx.caller !== ANONYMOUS && stores.votes.has(state.voteKey(id, ctx.caller)))
      return `you have already voted on proposal ${id}`;
    return {
      intent: `Vote ${choice} on proposal ${id}`,
      summary:
        'You are casting your vote in DOM DAO governance. A vote is final, and a vote-pass receipt (a soul-bound ICRC-7 token) is minted to you.',
      lines: [
        ...(ctx.caller !== ANONYMOUS ? [{ label: 'Voter', value: { code: ctx.caller } }] : []),
        { label: 'Proposal', value: { text: `#${id}` } },
        { label: 'Title', value: { code: p.title } },
        { label: 'Category', value: { text: p.category } },
        { label: 'Your vote', value: { text: choice }, note: VOTE_MEANING[choice] },
        ...(status === 'Created'
          ? [{ label: 'Voting opens', value: { time: p.voting_opens }, note: 'A vote sent before then is refused.' }]
          : []),
        { label: 'Voting closes', value: { time: p.voting_closes } },
      ],
    };
  }

  function proposal(ctx: CallContext, a: CreateProposalArgs, c: GovernanceConfig): ConsentDraft | string {
    if (a.proposer !== undefined && ctx.caller !== ANONYMOUS && !c.trusted_proposers.includes(ctx.caller))
      return 'only a trusted proposer may name the proposer';
    const problem = createArgsProblem(a, ctx.now, c);
    if (problem !== undefined) return problem;
    const rules = c.rules[a.category];
    const emergency = a.category === 'EmergencyAction';
    return {
      intent: `Submit a ${a.category} proposal`,
      summary:
        a.payload === undefined
          ? 'You are submitting a proposal to DOM DAO governance. It carries no on-chain action: if approved, it stands as the members’ decision.'
          : 'You are submitting a proposal to DOM DAO governance. If members approve it, executing it does what is listed below.',
      lines: [
        ...(a.proposer !== undefined ? [{ label: 'On behalf of', value: { code: a.proposer } }] : []),
        { label: 'Title', value: { code: a.title.trim() } },
        { label: 'Category', value: { text: a.category } },
        {
          label: 'Body',
          value: { code: a.body, max: CONSENT_BODY_CHARS },
          note: `${Array.from(a.body).length} characters of Markdown in all.`,
        },
        ...(a.payload === undefined ? [] : payloadLines(a.payload)),
        emergency
          ? { label: 'Voting opens', value: { text: 'At once (emergency fast track).' } }
          : { label: 'Voting opens after', value: { duration: c.voting_delay } },
        { label: 'Voting period', value: { duration: rules.votingWindowNs } },
        {
          label: 'Needs',
          value: {
            text: `a quorum of ${percent(rules.quorumBps)} of active members and ${percent(rules.thresholdBps)} Yes of Yes and No votes`,
          },
        },
      ],
    };
  }

  return {
    /** ICRC-21 (decision G24): the consent message for a call of cast_vote or create_proposal. */
    icrc21_canister_call_consent_message(ctx: CallContext, request: ConsentRequest): ConsentResponse {
      const { method } = request;
      if (method !== 'cast_vote' && method !== 'create_proposal') {
        return Object.hasOwn(methods(), method)
          ? unavailable(`${method} has no consent message: only cast_vote and create_proposal are signed by members`)
          : unsupported(`the governance canister has no method ${JSON.stringify(method.slice(0, 100))}`);
      }
      const decoded = decodeArgs(candid, methods()[method].args, request.arg);
      if ('problem' in decoded) return unsupported(decoded.problem);
      const draft =
        method === 'cast_vote'
          ? vote(ctx, decoded.args[0] as bigint, decoded.args[1] as Vote)
          : proposal(ctx, decoded.args[0] as CreateProposalArgs, state.config());
      return typeof draft === 'string'
        ? unsupported(`${method} would be refused: ${draft}`)
        : renderConsent(draft, request.user_preferences);
    },
  };
}
