// Where feed items come from (decision N7): the governance events the follower copies in (proposal created, voting
// open, result, carried out, expired, ratified price), the campaign and treasury events (decision N22: a new campaign,
// its goal reached, its outcome, a member's refund, a payout) and the bridge's own member events. One durable
// subscriber; each item is keyed on the event id, so a redelivery adds nothing, and it is written in the subscriber's
// transaction (exactly once with the cursor move).
import { categoryLabel } from '@domdao/proposal-text';
import type { Transaction } from 'kysely';
import type { Database } from '../../core/db/schema.ts';
import type { BridgeEvent, EventType } from '../../core/events/bus.ts';
import type { InboxOptions } from './options.ts';
import { addActivity, type NewActivity } from './activity.ts';
import { domAmount } from '../../core/email/format.ts';
import { appLinks } from '../../core/http/app-links.ts';
import { withPayloadSummary } from './proposal-summary.ts';

const TYPES = [
  'ProposalCreated',
  'ProposalOpened',
  'ProposalApproved',
  'ProposalRejected',
  'ProposalExecuted',
  'ProposalExpired',
  'PriceUpdated',
  'MembershipActivated',
  'MembershipExpiring',
  'VoteClosingSoon',
  'CampaignCreated',
  'CampaignGoalReached',
  'CampaignSettled',
  'ContributionRefunded',
  'TreasuryPayoutPaid',
] as const satisfies readonly EventType[];

const day = (iso: string) => new Date(iso).toISOString().slice(0, 10);
const nsToIso = (ns: string) => new Date(Number(BigInt(ns) / 1_000_000n)).toISOString();
const nsToDate = (ns: bigint) => new Date(Number(ns / 1_000_000n));

export const proposalLink = (o: Pick<InboxOptions, 'linkBase'>, id: string): string =>
  appLinks.proposal(o.linkBase, id);

const campaignLink = (o: Pick<InboxOptions, 'linkBase'>, id: string) => appLinks.campaign(o.linkBase, id);

/** e8s as DOM for a feed line: 1250000000 → "12.5 DOM". */
const dom = (e8s: string): string => `${domAmount(e8s)} DOM`;

/** A principal's verified member, for items addressed to one user. */
export type MemberOf = (principal: string) => Promise<string | undefined>;

/** The item an event makes, or undefined when the event is not news for members. */
export async function itemFor(
  o: Pick<InboxOptions, 'governance' | 'linkBase'>,
  e: BridgeEvent,
  memberOf: MemberOf = async () => undefined,
): Promise<NewActivity | undefined> {
  const title = async (id: string) => {
    try {
      const p = await o.governance.get_proposal(BigInt(id));
      return p ? { title: p.title, category: p.category, p } : { title: `Proposal ${id}`, category: 'General' };
    } catch {
      return { title: `Proposal ${id}`, category: 'General' };
    }
  };
  switch (e.type) {
    case 'ProposalCreated': {
      const d = e.data as BridgeEvent<'ProposalCreated'>['data'];
      const t = await title(d.proposal_id);
      return {
        category: 'Proposal',
        title: `New proposal: ${t.title}`,
        // Decision N31: the category as members read it, never the variant's name.
        body: `A proposal was submitted (${categoryLabel(d.category)}); voting opens after the review delay.`,
        deep_link: proposalLink(o, d.proposal_id),
        audience: { kind: 'all' },
      };
    }
    case 'ProposalOpened': {
      const d = e.data as BridgeEvent<'ProposalOpened'>['data'];
      const t = await title(d.proposal_id);
      // Only Active members vote (spec 2 rule 5): the news is theirs. The deadline is an instant the
      // reader words (decision N29); the item is news, not a reminder, so it stays after a vote.
      return {
        category: 'Vote',
        title: `Voting is open: ${t.title}`,
        body: 'Active members can vote now.',
        deep_link: proposalLink(o, d.proposal_id),
        audience: { kind: 'active' },
        proposal_id: d.proposal_id,
        ...('p' in t && t.p && { closes_at: nsToDate(t.p.voting_closes) }),
      };
    }
    case 'ProposalApproved':
    case 'ProposalRejected': {
      const d = e.data as BridgeEvent<'ProposalApproved'>['data'];
      const t = await title(d.proposal_id);
      const tally =
        'p' in t && t.p?.tally
          ? ` Yes ${t.p.tally.yes_votes}, no ${t.p.tally.no_votes}, abstain ${t.p.tally.abstentions}.`
          : '';
      const approved = e.type === 'ProposalApproved';
      return {
        category: 'Result',
        title: `${approved ? 'Approved' : 'Rejected'}: ${t.title}`,
        body: `The vote has closed and the proposal was ${approved ? 'approved' : 'rejected'}.${tally}`,
        deep_link: proposalLink(o, d.proposal_id),
        audience: { kind: 'all' },
      };
    }
    case 'ProposalExecuted': {
      const d = e.data as BridgeEvent<'ProposalExecuted'>['data'];
      const t = await title(d.proposal_id);
      return {
        category: 'Result',
        title: `Carried out: ${t.title}`,
        body: 'The approved proposal has been executed.',
        deep_link: proposalLink(o, d.proposal_id),
        audience: { kind: 'all' },
      };
    }
    case 'ProposalExpired': {
      const d = e.data as BridgeEvent<'ProposalExpired'>['data'];
      const t = await title(d.proposal_id);
      return {
        category: 'Result',
        title: `Expired: ${t.title}`,
        body: 'The approved proposal was not executed within its execution window.',
        deep_link: proposalLink(o, d.proposal_id),
        audience: { kind: 'all' },
      };
    }
    case 'PriceUpdated': {
      const d = e.data as BridgeEvent<'PriceUpdated'>['data'];
      const until = d.expires_at ? `, valid until ${day(nsToIso(d.expires_at))}` : '';
      return {
        category: 'Price',
        title: `Ratified DOM price: ${d.price_usd} USD`,
        body: `In force from ${day(nsToIso(d.effective_at))}${until}, by proposal ${d.proposal_id}.`,
        deep_link: proposalLink(o, d.proposal_id),
        audience: { kind: 'all' },
      };
    }
    case 'MembershipActivated': {
      const d = e.data as BridgeEvent<'MembershipActivated'>['data'];
      return {
        category: 'Membership',
        title: d.renewal ? 'Your membership is renewed' : 'Your membership is Active',
        body: `Active until ${day(d.expires_at)}: you can vote and propose.`,
        audience: { kind: 'user', user_id: d.user_id },
      };
    }
    case 'VoteClosingSoon': {
      const d = e.data as BridgeEvent<'VoteClosingSoon'>['data'];
      // Decisions N27–N29: "how soon" is worded from voting_closes when read, never from the window's
      // name; a member whose ballot is in does not see it.
      return {
        category: 'Vote',
        title: `Voting closes soon: ${d.title}`,
        body: 'Vote before it closes.',
        deep_link: proposalLink(o, d.proposal_id),
        audience: { kind: 'active' },
        proposal_id: d.proposal_id,
        closes_at: new Date(d.voting_closes),
        reminder: true,
      };
    }
    case 'MembershipExpiring': {
      const d = e.data as BridgeEvent<'MembershipExpiring'>['data'];
      return {
        category: 'Membership',
        title: `Your membership expires on ${day(d.expires_at)}`,
        body: 'Renew before then to keep voting and proposing.',
        audience: { kind: 'user', user_id: d.user_id },
      };
    }
    case 'CampaignCreated': {
      const d = e.data as BridgeEvent<'CampaignCreated'>['data'];
      return {
        category: 'Campaign',
        title: `New campaign: ${d.title}`,
        body: `Open for contributions until ${day(d.deadline)}.`,
        deep_link: campaignLink(o, d.campaign_id),
        audience: { kind: 'all' },
      };
    }
    case 'CampaignGoalReached': {
      const d = e.data as BridgeEvent<'CampaignGoalReached'>['data'];
      return {
        category: 'Campaign',
        title: `Goal reached: ${d.title}`,
        body: 'The campaign reached its goal; it stays open until its deadline.',
        deep_link: campaignLink(o, d.campaign_id),
        audience: { kind: 'all' },
      };
    }
    case 'CampaignSettled': {
      const d = e.data as BridgeEvent<'CampaignSettled'>['data'];
      const body =
        d.status === 'Succeeded'
          ? `Funded: ${d.released ? `${dom(d.released.amount_e8s)} released to the beneficiary` : 'nothing was raised to release'}.`
          : `${d.status === 'Cancelled' ? 'Cancelled' : 'The goal was not reached'}: every contribution has been refunded.`;
      return {
        category: 'Campaign',
        title: `${d.status === 'Succeeded' ? 'Succeeded' : d.status === 'Cancelled' ? 'Cancelled' : 'Failed'}: ${d.title}`,
        body,
        deep_link: campaignLink(o, d.campaign_id),
        audience: { kind: 'all' },
      };
    }
    case 'ContributionRefunded': {
      const d = e.data as BridgeEvent<'ContributionRefunded'>['data'];
      const userId = await memberOf(d.contributor);
      if (!userId) return undefined;
      return {
        category: 'Refund',
        title: `Refunded: ${dom(d.amount_e8s)} from ${d.title}`,
        body: `Your contribution of ${dom(d.contributed_e8s)} came back, less the ledger fee (ledger block ${d.block_index}).`,
        deep_link: campaignLink(o, d.campaign_id),
        audience: { kind: 'user', user_id: userId },
      };
    }
    case 'TreasuryPayoutPaid': {
      const d = e.data as BridgeEvent<'TreasuryPayoutPaid'>['data'];
      return {
        category: 'Treasury',
        title: `Treasury paid ${dom(d.amount_e8s)}`,
        body: `Proposal ${d.proposal_id} was paid out${d.memo ? `: ${d.memo}` : ''} (ledger block ${d.block_index}).`,
        deep_link: proposalLink(o, d.proposal_id),
        audience: { kind: 'all' },
      };
    }
    default:
      return undefined;
  }
}

export function followActivity(o: InboxOptions): void {
  o.events.subscribe('inbox:activity', TYPES, async (e, trx: Transaction<Database>) => {
    const memberOf: MemberOf = async (principal) =>
      (
        await trx
          .selectFrom('users')
          .select('id')
          .where('principal', '=', principal)
          .where('email_verified_at', 'is not', null)
          .executeTakeFirst()
      )?.id;
    const item = await itemFor(o, e, memberOf);
    if (item) await addActivity(trx, `event:${e.id}`, await withPayloadSummary(o, trx, e, item), new Date(o.now()));
  });
}
