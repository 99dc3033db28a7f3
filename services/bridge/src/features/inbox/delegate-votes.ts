// Decision N25: a member whose delegate voted gets it in their activity feed (and so in their digest),
// while they can still vote themselves and replace it. The governance canister says whose ballot the
// delegate's vote now is (list_represented, admin only: the bridge is a governance admin, decision V22),
// a page at a time; one item per member, keyed on the vote event, so a redelivery adds nothing.
import type { Transaction } from 'kysely';
import type { Database } from '../../core/db/schema.ts';
import type { BridgeEvent } from '../../core/events/bus.ts';
import { displayNames } from '../../core/identity/display-names.ts';
import { addActivity } from './activity.ts';
import { proposalLink } from './activity-producers.ts';
import type { InboxOptions } from './options.ts';

/** Delegations list_represented scans per call. */
const PAGE = 500;

export function followDelegateVotes(o: InboxOptions): void {
  o.events.subscribe('inbox:delegate-votes', ['MemberVoted'], async (e: BridgeEvent, trx: Transaction<Database>) => {
    const d = e.data as BridgeEvent<'MemberVoted'>['data'];
    const id = BigInt(d.proposal_id);
    const p = await o.governance.get_proposal(id);
    if (!p) return;
    const closes = new Date(Number(p.voting_closes / 1_000_000n));
    // Decision F55: the delegate by the name members know them by, never their principal.
    const name = (await displayNames(trx, [d.voter])).get(d.voter);
    const who = name === undefined ? 'Your delegate' : `Your delegate ${name}`;
    for (let after: string | undefined; ;) {
      const page = await o.governance.list_represented(id, d.voter, after, PAGE);
      for (const member of page.members) {
        const user = await trx
          .selectFrom('users')
          .select('id')
          .where('principal', '=', member)
          .where('email_verified_at', 'is not', null)
          .executeTakeFirst();
        if (!user) continue;
        await addActivity(
          trx,
          `event:${e.id}:${user.id}`,
          {
            category: 'Vote',
            title: `${who} voted ${d.vote}: ${p.title}`,
            body: 'Their vote counts for you unless you vote yourself before voting closes.',
            deep_link: proposalLink(o, d.proposal_id),
            audience: { kind: 'user', user_id: user.id },
            proposal_id: d.proposal_id,
            closes_at: closes,
          },
          new Date(o.now()),
        );
      }
      if (page.next === undefined) return;
      after = page.next;
    }
  });
}
