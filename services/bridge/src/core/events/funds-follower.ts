// Follows the campaign and treasury canisters into the bridge's event log (decision N22).
// Neither canister keeps an event log, so the follower compares their state with what it already
// published for this canister set (decision V40): a campaign is looked at until its CampaignSettled
// event is stored (a finished campaign costs one set lookup per pass), refunds are read only for a
// Failed or Cancelled campaign still refunding, and payouts are read newest first until a page holds
// nothing new.
import { sql } from 'kysely';
import type { CanisterClients } from '@domdao/canisters';
import type { Db } from '../db/schema.ts';
import type { EventLog } from './bus.ts';
import { Poller } from './poller.ts';

const PAGE = 100;
const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();

export interface FundsFollowerOptions {
  db: Db;
  events: EventLog;
  campaign: Pick<CanisterClients['campaign'], 'list_campaigns' | 'list_contributions'>;
  treasury: Pick<CanisterClients['treasury'], 'list_payouts'>;
  pollMs: number;
  log?: { warn(obj: object, msg: string): void };
  /** Told of each successful pass (decision B69). */
  onPass?: () => void;
}

export class FundsFollower {
  readonly #o: FundsFollowerOptions;
  readonly #poll: Poller;

  constructor(o: FundsFollowerOptions) {
    this.#o = o;
    this.#poll = new Poller({
      pass: async () => (await this.#campaigns()) + (await this.#payouts()),
      pollMs: o.pollMs,
      events: o.events,
      log: o.log,
      onPass: o.onPass,
      failure: {
        event: 'events.funds_follow_failed',
        message: 'reading the campaign and treasury canisters failed; retrying',
      },
    });
  }

  /** One pass over both canisters; returns how many events were new here. */
  follow(): Promise<number> {
    return this.#poll.run();
  }

  /** Copies what the canisters hold now, even if a pass under way read them before the call; returns how many were new. */
  catchUp(): Promise<number> {
    return this.#poll.catchUp();
  }

  async #published(source: string, notLike?: string): Promise<Set<string>> {
    let q = this.#o.db
      .selectFrom('bridge_events')
      .select('source_id')
      .where('canister_set', '=', this.#o.events.canisterSet)
      .where('source', '=', source);
    if (notLike) q = q.where('source_id', 'not like', notLike);
    return new Set((await q.execute()).map((r) => r.source_id));
  }

  async #campaigns(): Promise<number> {
    const { events, campaign } = this.#o;
    // Markers only (created, goal, settled): refunds are many and are looked up per campaign.
    const seen = await this.#published('campaign', 'refund:%');
    let copied = 0;
    const publish = async (type: Parameters<EventLog['publish']>[0], data: unknown, sourceId: string, at: Date) => {
      if (await events.publish(type, data as never, { source: 'campaign', sourceId, occurredAt: at })) copied += 1;
    };
    let from: string | undefined;
    for (;;) {
      const page = await campaign.list_campaigns(from, PAGE);
      for (const c of page) {
        if (seen.has(`settled:${c.id}`)) continue;
        if (!seen.has(`created:${c.id}`)) {
          await publish(
            'CampaignCreated',
            {
              campaign_id: c.id,
              title: c.title,
              owner: c.owner,
              beneficiary: c.beneficiary,
              deadline: iso(c.deadline),
            },
            `created:${c.id}`,
            new Date(Number(c.created_at / 1_000_000n)),
          );
        }
        if (c.status === 'Open' && c.progress.pct_complete >= 100 && !seen.has(`goal:${c.id}`)) {
          await publish('CampaignGoalReached', { campaign_id: c.id, title: c.title }, `goal:${c.id}`, new Date());
        }
        if ((c.status === 'Failed' || c.status === 'Cancelled') && c.refunds > 0n)
          copied += await this.#refunds(c.id, c.title, c.status);
        // Settled last: its marker ends the campaign's following, so every refund is stored before it.
        if (c.settled) {
          const released = c.released && {
            amount_e8s: String(c.released.amount_e8s),
            block_index: String(c.released.block_index),
            at: iso(c.released.at),
          };
          await publish(
            'CampaignSettled',
            {
              campaign_id: c.id,
              title: c.title,
              status: c.status as 'Succeeded' | 'Failed' | 'Cancelled',
              beneficiary: c.beneficiary,
              contributions: String(c.contributions),
              ...(released && { released }),
            },
            `settled:${c.id}`,
            released ? new Date(released.at) : new Date(),
          );
        }
      }
      if (page.length < PAGE || this.#poll.closed) return copied;
      const last = BigInt(page[page.length - 1]!.id);
      if (last <= 1n) return copied;
      from = String(last - 1n);
    }
  }

  async #refunds(campaignId: string, title: string, status: 'Failed' | 'Cancelled'): Promise<number> {
    const { rows } = await sql<{
      n: string;
    }>`select count(*)::text as n from bridge_events where canister_set = ${this.#o.events.canisterSet} and source = 'campaign' and source_id like ${`refund:${campaignId}:%`}`.execute(
      this.#o.db,
    );
    let copied = 0;
    let after: bigint | undefined;
    let refunded = 0;
    for (;;) {
      const page = await this.#o.campaign.list_contributions(campaignId, after, PAGE);
      for (const k of page) {
        if (!k.refund) continue;
        refunded += 1;
        if (refunded <= Number(rows[0]?.n ?? 0)) continue; // refunds are stored in contribution order
        const data = {
          campaign_id: campaignId,
          title,
          status,
          seq: String(k.seq),
          contributor: k.contributor,
          contributed_e8s: String(k.amount_e8s),
          contribution_block_index: String(k.block_index),
          amount_e8s: String(k.refund.amount_e8s),
          block_index: String(k.refund.block_index),
          at: iso(k.refund.at),
        };
        if (
          await this.#o.events.publish('ContributionRefunded', data, {
            source: 'campaign',
            sourceId: `refund:${campaignId}:${k.seq}`,
            occurredAt: new Date(data.at),
          })
        )
          copied += 1;
      }
      if (page.length < PAGE || this.#poll.closed) return copied;
      after = page[page.length - 1]!.seq;
    }
  }

  async #payouts(): Promise<number> {
    const { events, treasury } = this.#o;
    const seen = await this.#published('treasury');
    let copied = 0;
    let from: bigint | undefined;
    for (;;) {
      const page = await treasury.list_payouts(from, PAGE);
      let fresh = 0;
      for (const p of page) {
        if (seen.has(`payout:${p.proposal_id}`)) continue;
        fresh += 1;
        const data = {
          proposal_id: String(p.proposal_id),
          recipient: p.recipient,
          amount_e8s: String(p.amount_e8s),
          ...(p.usd_value !== undefined && { usd_value: p.usd_value }),
          ...(p.memo !== undefined && { memo: p.memo }),
          block_index: String(p.block_index),
          paid_at: iso(p.paid_at),
        };
        if (
          await events.publish('TreasuryPayoutPaid', data, {
            source: 'treasury',
            sourceId: `payout:${p.proposal_id}`,
            occurredAt: new Date(data.paid_at),
          })
        )
          copied += 1;
      }
      if (page.length < PAGE || fresh === 0 || this.#poll.closed) return copied;
      const last = page[page.length - 1]!.proposal_id;
      if (last <= 0n) return copied;
      from = last - 1n;
    }
  }

  start(): void {
    this.#poll.start();
  }

  close(): Promise<void> {
    return this.#poll.close();
  }
}
