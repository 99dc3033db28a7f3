// Campaigns, contributions, donations and payouts as JSON for front ends (decision L21): e8s amounts
// and nat64 ids as decimal strings (never a float), ns times as ISO-8601, the DOM and USD views of
// CampaignProgress with spec 1's field names.
import type { CanisterClients } from '@domdao/canisters';

type Campaign = NonNullable<Awaited<ReturnType<CanisterClients['campaign']['get_campaign']>>>;
type Contribution = Awaited<ReturnType<CanisterClients['campaign']['list_contributions']>>[number];
type Donation = Awaited<ReturnType<CanisterClients['campaign']['list_donations']>>[number];
type Payout = Awaited<ReturnType<CanisterClients['treasury']['list_payouts']>>[number];
type Account = { owner: string; subaccount?: Uint8Array };

export const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

export function accountView(a: Account) {
  return { owner: a.owner, subaccount: a.subaccount ? hex(a.subaccount) : null };
}

const settled = (s: { block_index: bigint; amount_e8s: bigint; at: bigint } | undefined) =>
  s ? { block_index: s.block_index.toString(), amount_e8s: s.amount_e8s.toString(), at: iso(s.at) } : null;

/** `names` (here and below): principal → display name (decision F22); a principal without one → null. */
type Names = ReadonlyMap<string, string>;
const none: Names = new Map();

export function campaignView(c: Campaign, names: Names = none) {
  const p = c.progress;
  return {
    id: c.id,
    title: c.title,
    description: c.description,
    owner: c.owner,
    owner_name: names.get(c.owner) ?? null,
    beneficiary: c.beneficiary,
    beneficiary_name: names.get(c.beneficiary) ?? null,
    goal: 'DomTokens' in c.goal ? { dom_e8s: c.goal.DomTokens.toString() } : { usd: c.goal.UsdValue },
    deadline: iso(c.deadline),
    created_at: iso(c.created_at),
    status: c.status,
    contributions: c.contributions.toString(),
    progress: {
      goal_dom: p.goal_dom.toString(),
      raised_dom: p.raised_dom.toString(),
      raised_usd: p.raised_usd ?? null,
      goal_usd: p.goal_usd ?? null,
      pct_complete: p.pct_complete,
      price_tick_id: p.price_tick_id === undefined ? null : p.price_tick_id.toString(),
    },
    escrow: accountView(c.escrow),
    released: settled(c.released),
    refunds: c.refunds.toString(),
    settled: c.settled,
  };
}

export function contributionView(c: Contribution, names: Names = none) {
  return {
    campaign_id: c.campaign_id,
    seq: c.seq.toString(),
    contributor: c.contributor,
    contributor_name: names.get(c.contributor) ?? null,
    amount_e8s: c.amount_e8s.toString(),
    usd_value: c.usd_value ?? null,
    price_tick_id: c.price_tick_id === undefined ? null : c.price_tick_id.toString(),
    at: iso(c.at),
    block_index: c.block_index.toString(),
    refund: settled(c.refund),
  };
}

export function donationView(d: Donation, names: Names = none) {
  return {
    id: d.id.toString(),
    donor: d.donor,
    donor_name: names.get(d.donor) ?? null,
    amount_e8s: d.amount_e8s.toString(),
    usd_value: d.usd_value ?? null,
    price_tick_id: d.price_tick_id === undefined ? null : d.price_tick_id.toString(),
    at: iso(d.at),
    block_index: d.block_index.toString(),
  };
}

export function payoutView(p: Payout, names: Names = none) {
  return {
    proposal_id: p.proposal_id.toString(),
    recipient: p.recipient,
    recipient_name: names.get(p.recipient) ?? null,
    amount_e8s: p.amount_e8s.toString(),
    usd_value: p.usd_value ?? null,
    price_tick_id: p.price_tick_id === undefined ? null : p.price_tick_id.toString(),
    memo: p.memo ?? null,
    paid_at: iso(p.paid_at),
    block_index: p.block_index.toString(),
  };
}
