// Decision F43: an activity item about a proposal says what the proposal does, in the sentence its list
// row shows (core/email/proposal-summary.ts), before the item's own words. One place, around the
// producers (activity-producers.ts words the event itself).
import type { Transaction } from 'kysely';
import type { Database } from '../../core/db/schema.ts';
import type { BridgeEvent } from '../../core/events/bus.ts';
import { proposalSummary } from '../../core/email/proposal-summary.ts';
import type { NewActivity } from './activity.ts';
import type { InboxOptions } from './options.ts';

const ABOUT_A_PROPOSAL = new Set([
  'ProposalCreated',
  'ProposalOpened',
  'ProposalApproved',
  'ProposalRejected',
  'ProposalExecuted',
  'ProposalExpired',
  'VoteClosingSoon',
]);
/** A digest item's body is at most 500 characters (spec 3's digest template): the summary leaves room for the item's own words. */
const SUMMARY_MAX = 300;

export async function withPayloadSummary(
  o: Pick<InboxOptions, 'governance'>,
  trx: Transaction<Database>,
  e: BridgeEvent,
  item: NewActivity,
): Promise<NewActivity> {
  if (!ABOUT_A_PROPOSAL.has(e.type)) return item;
  const id = (e.data as { proposal_id?: string }).proposal_id;
  const p = id === undefined ? undefined : await o.governance.get_proposal(BigInt(id)).catch(() => undefined);
  if (!p) return item;
  let summary = await proposalSummary(trx, o.governance, p);
  if (summary.length > SUMMARY_MAX) summary = `${summary.slice(0, SUMMARY_MAX - 1)}…`;
  return { ...item, body: item.body ? `${summary} ${item.body}` : summary };
}
