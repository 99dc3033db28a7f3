// Decision V9: each governance canister error variant as an HTTP status, the variant's name as the error code.
// ExecutionFailed is 409 (the canister uses it for "not Approved" too). A new variant the table does not know is a 502
// (the canister answered something the bridge cannot place), never a silent 500.
import { CANISTER_REFUSALS, type CanisterRefusal } from '../../core/http/error-codes.ts';
import { HttpError } from '../../core/http/errors.ts';

/** The canister's variants the bridge answers with; each one's status is the registry's (decision B125). */
const GOVERNANCE_VARIANTS = [
  'InvalidPayload',
  'NotAuthorized',
  'NotAMember',
  'ProposalNotFound',
  'ProposalNotOpen',
  'AlreadyVoted',
  'VotingWindowClosed',
  'QuorumNotMet',
  'PriceStale',
  // The canister's refusal to execute in the proposal's state, or the action failing: not now, retry later.
  'ExecutionFailed',
  'MembershipUnavailable',
  // Decision G23: Active now, but not when the proposal's vote opened; a decision, not an outage.
  'NotActiveWhenVotingOpened',
  // Decisions V26, V28: delegation and reasons.
  'SelfDelegation',
  'DelegateNotAMember',
  'NotDelegating',
  'ReasonTooLong',
] as const satisfies readonly CanisterRefusal[];

export const GOVERNANCE_ERROR_STATUS: Record<string, number> = Object.fromEntries(
  GOVERNANCE_VARIANTS.map((v) => [v, CANISTER_REFUSALS[v].status[0]]),
);

const MESSAGES: Record<string, string> = {
  InvalidPayload: 'the proposal payload is invalid for its category',
  NotAuthorized: 'you are not allowed to do this',
  NotAMember: 'an active membership is required',
  ProposalNotFound: 'no such proposal',
  ProposalNotOpen: 'the proposal is not open for this',
  AlreadyVoted: 'you have already voted on this proposal',
  VotingWindowClosed: 'the voting window has closed',
  QuorumNotMet: 'the proposal did not reach quorum',
  PriceStale: 'the ratified price is stale',
  ExecutionFailed: 'execution failed',
  MembershipUnavailable: 'membership cannot be checked right now; try again',
  NotActiveWhenVotingOpened:
    'your membership became Active after voting opened on this proposal, so you cannot vote on it; you can vote on proposals that open from now on',
  SelfDelegation: 'you cannot delegate to yourself',
  DelegateNotAMember: 'the delegate must be an Active member',
  NotDelegating: 'you have no delegation for that category',
  ReasonTooLong: 'the reason is too long',
};

/** A variant's detail as the message's tail: its text, or the instant a G23 refusal names (nanoseconds) in ISO 8601. */
function detailOf(detail: unknown): string {
  if (typeof detail === 'string') return detail ? `: ${detail}` : '';
  const max = (detail as { max?: unknown } | null)?.max;
  if (typeof max === 'number') return ` (at most ${max} characters)`;
  const at = (detail as { opened_at?: unknown } | null)?.opened_at;
  return typeof at === 'bigint' ? ` (voting opened at ${new Date(Number(at / 1_000_000n)).toISOString()})` : '';
}

export function governanceHttpError(err: Record<string, unknown>): HttpError {
  const variant = Object.keys(err)[0] ?? 'Unknown';
  const detail = err[variant];
  const status = GOVERNANCE_ERROR_STATUS[variant] ?? 502;
  const message = `${MESSAGES[variant] ?? `the governance canister answered ${variant}`}${detailOf(detail)}`;
  return HttpError.passThrough(status, variant, message, status === 503 ? { 'retry-after': '5' } : {});
}
