// The emails a member's own changes owe them (decisions N13–N18), built from the
// bridge's member events: `welcome` after the first verification, `membership-confirm` and
// `payment-receipt` when a first payment makes the membership Active, `renewal-receipt` when a
// payment renews it. Keys are per event, so a redelivered event sends nothing twice.
import type { SendRequest } from '@domdao/notification-client';
import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/schema.ts';
import type { BridgeEvent } from '../../core/events/bus.ts';
import type { Delivery } from '../../core/email/deliveries.ts';
import type { MemberEmailsOptions } from './options.ts';
import { domAmount } from '../../core/email/format.ts';
import { appLinks } from '../../core/http/app-links.ts';

const day = (iso: string) => iso.slice(0, 10);
const noMs = (iso: string) => iso.replace(/\.\d{3}Z$/, 'Z');

/** Formats minor units as the receipt shows them: 2500 USD → "25.00" (two decimals for the currencies the bridge accepts). */
export function amountDisplay(minor: string): string {
  const n = BigInt(minor);
  return `${n / 100n}.${String(n % 100n).padStart(2, '0')}`;
}

export async function recipient(
  o: MemberEmailsOptions,
  userId: string,
  db: Kysely<Database> = o.db,
): Promise<{ email: string; name: string } | undefined> {
  const u = await db
    .selectFrom('users')
    .select(['email_encrypted', 'name_encrypted'])
    .where('id', '=', userId)
    .executeTakeFirst();
  if (!u) return undefined;
  const [email, name] = await Promise.all([
    o.openField('email', u.email_encrypted),
    o.openField('name', u.name_encrypted),
  ]);
  return { email: email.trim(), name };
}

/** The member behind a principal (a contributor, a beneficiary, a payout's recipient), if any. */
async function memberByPrincipal(db: Kysely<Database>, principal: string): Promise<string | undefined> {
  return (
    await db
      .selectFrom('users')
      .select('id')
      .where('principal', '=', principal)
      .where('email_verified_at', 'is not', null)
      .executeTakeFirst()
  )?.id;
}

/** The emails an event owes, or none. `db`: the subscriber's transaction when called from one (PGlite has one connection). */
export async function lifecycleEmails(
  o: MemberEmailsOptions,
  e: BridgeEvent,
  db: Kysely<Database> = o.db,
): Promise<Delivery[]> {
  const domain = o.brandDomain;
  if (e.type === 'MemberVerified') {
    const d = e.data as BridgeEvent<'MemberVerified'>['data'];
    const to = await recipient(o, d.user_id, db);
    if (!to) return [];
    const request: SendRequest<'welcome'> = {
      type: 'welcome',
      to: to.email,
      domain,
      data: { user_name: to.name, dashboard_url: o.dashboardUrl },
    };
    return [{ key: `welcome:${d.user_id}`, userId: d.user_id, eventSeq: e.seq, request }];
  }
  if (e.type === 'MembershipActivated') {
    const d = e.data as BridgeEvent<'MembershipActivated'>['data'];
    const to = await recipient(o, d.user_id, db);
    if (!to) return [];
    const amount = amountDisplay(d.amount_minor);
    if (d.renewal) {
      const request: SendRequest<'renewal-receipt'> = {
        type: 'renewal-receipt',
        to: to.email,
        domain,
        data: {
          member_name: to.name,
          amount,
          currency: d.currency,
          payment_date: noMs(d.activated_at),
          payment_id: d.payment_id,
          expiration_date: day(d.expires_at),
          receipt_number: d.payment_event_id,
          dashboard_url: o.dashboardUrl,
        },
      };
      return [{ key: `renewal-receipt:${d.payment_event_id}`, userId: d.user_id, eventSeq: e.seq, request }];
    }
    const confirm: SendRequest<'membership-confirm'> = {
      type: 'membership-confirm',
      to: to.email,
      domain,
      data: {
        member_name: to.name,
        activated_at: noMs(d.activated_at),
        expires_at: noMs(d.expires_at),
        membership_tier: 'Active',
        dashboard_url: o.dashboardUrl,
        ...(d.token_id && { sbt_token_id: d.token_id }),
      },
    };
    const receipt: SendRequest<'payment-receipt'> = {
      type: 'payment-receipt',
      to: to.email,
      domain,
      data: {
        payment_id: d.payment_id,
        amount_display: amount,
        currency: d.currency,
        type_label: 'Annual membership',
        user_name: to.name,
        payment_date: noMs(d.activated_at),
      },
    };
    // The keys the webhook used before these moved here: a payment confirmed then is not confirmed again.
    return [
      { key: `membership-confirm:${d.payment_event_id}`, userId: d.user_id, eventSeq: e.seq, request: confirm },
      { key: `payment-receipt:${d.payment_event_id}`, userId: d.user_id, eventSeq: e.seq, request: receipt },
    ];
  }
  if (e.type === 'ContributionRefunded') {
    // Decision N22: a campaign refund is the refund-confirmation; the refund's ledger block is its id.
    const d = e.data as BridgeEvent<'ContributionRefunded'>['data'];
    const userId = await memberByPrincipal(db, d.contributor);
    const to = userId && (await recipient(o, userId, db));
    if (!userId || !to) return [];
    const request: SendRequest<'refund-confirmation'> = {
      type: 'refund-confirmation',
      to: to.email,
      domain,
      data: {
        refund_id: `ledger block ${d.block_index}`,
        original_payment_id: `ledger block ${d.contribution_block_index}`,
        amount_display: domAmount(d.amount_e8s),
        currency: 'DOM',
        reason_label:
          d.status === 'Cancelled'
            ? `Campaign “${d.title}” was cancelled`
            : `Campaign “${d.title}” did not reach its goal`,
        user_name: to.name,
        refund_date: noMs(d.at),
        processing_days: 0,
        support_url: appLinks.campaign(o.linkBase, d.campaign_id),
      },
    };
    return [{ key: `refund-confirmation:${d.campaign_id}:${d.seq}`, userId, eventSeq: e.seq, request }];
  }
  if (e.type === 'CampaignSettled' || e.type === 'TreasuryPayoutPaid') {
    // Decision N22: money the DAO sent someone is a treasury milestone for its recipient, when a member.
    const m =
      e.type === 'CampaignSettled'
        ? (() => {
            const d = e.data as BridgeEvent<'CampaignSettled'>['data'];
            return (
              d.released && {
                key: `treasury-milestone:campaign:${d.campaign_id}`,
                principal: d.beneficiary,
                title: `Campaign “${d.title}” funded: its escrow was released to you`,
                e8s: d.released.amount_e8s,
                block: d.released.block_index,
                link: appLinks.campaign(o.linkBase, d.campaign_id),
              }
            );
          })()
        : (() => {
            const d = e.data as BridgeEvent<'TreasuryPayoutPaid'>['data'];
            return {
              key: `treasury-milestone:payout:${d.proposal_id}`,
              principal: d.recipient,
              title: `Treasury payout of proposal ${d.proposal_id}${d.memo ? `: ${d.memo}` : ''}`,
              e8s: d.amount_e8s,
              block: d.block_index,
              link: appLinks.proposal(o.linkBase, d.proposal_id),
            };
          })();
    if (!m) return [];
    const userId = await memberByPrincipal(db, m.principal);
    const to = userId && (await recipient(o, userId, db));
    if (!userId || !to) return [];
    const request: SendRequest<'treasury-milestone'> = {
      type: 'treasury-milestone',
      to: to.email,
      domain,
      data: {
        recipient_name: to.name,
        milestone_title: m.title.slice(0, 200),
        amount: domAmount(m.e8s),
        currency: 'DOM',
        tx_hash: `ledger block ${m.block}`,
        dashboard_url: m.link,
      },
    };
    return [{ key: m.key, userId, eventSeq: e.seq, request }];
  }
  return [];
}
