// The journeys as scenarios, each run on both hosts (decision W3): the embedded
// platform (the cores in-process) and the test replica executing the built wasm. Each host supplies
// the clients, its clock and timers, and a "restart" in the middle: reopening from disk (embedded) or
// upgrading every canister (wasm). The same assertions hold on both.
import assert from 'node:assert/strict';
import type { CanisterClients, CanisterIds } from '../../src/api.ts';
import { principalFromSeed } from '../../src/principals.ts';

export const NS_PER_SECOND = 1_000_000_000n;
export const HOUR = 3600n * NS_PER_SECOND;
export const DAY = 24n * HOUR;
const PASSWORD_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaGhhc2hoYXNo';

export interface JourneyHost {
  ids: CanisterIds;
  admin: string;
  bridge: string;
  as(principal: string): CanisterClients;
  now(): bigint;
  advance(ns: bigint): void;
  /** Runs the canisters' timers that are due. */
  tick(): Promise<void>;
  /** The middle of the journey: a restart from disk, or an upgrade of every canister. */
  restart(): Promise<void>;
}

function ok<T>(r: { Ok: T } | { Err: unknown }): T {
  if ('Err' in r)
    throw new Error(
      `expected Ok, got ${JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`,
    );
  return r.Ok;
}

/** A member made the real way: account, verification (a Registered membership minted), KYC and payment (Active). */
export async function activeMember(host: JourneyHost, label: string): Promise<string> {
  const bridge = host.as(host.bridge);
  const principal = principalFromSeed(`journey-${label}`);
  const created = ok(
    await bridge.user.create_account({
      principal,
      email_encrypted: `ct-email-${label}`,
      name_encrypted: `ct-name-${label}`,
      dob_encrypted: `ct-dob-${label}`,
      password_hash: PASSWORD_HASH,
      tos_accepted_at: host.now() - 1_000n,
      is_age_verified_18_plus: true,
    }),
  );
  ok(await bridge.user.verify_email(created.verification_token));
  assert.equal(
    (await bridge.membership.get_membership_status(principal))?.status,
    'Registered',
    'verification minted a Registered membership',
  );
  ok(await bridge.user.record_kyc(principal, true));
  ok(
    await bridge.user.upgrade_membership_to_active({
      principal,
      kyc_proof: new Uint8Array([1]),
      payment_proof: new Uint8Array([2]),
    }),
  );
  assert.equal((await bridge.membership.get_membership_status(principal))?.status, 'Active');
  return principal;
}

/**
 * Accounts → verified (Registered, minted by the membership canister) → KYC and payment (Active);
 * DOM minted by governance; a SetDomPrice proposal created, opened by time, voted, carried across
 * the restart, tallied and executed by the governance timer; the ratified price readable.
 */
export async function membershipAndGovernanceJourney(host: JourneyHost): Promise<void> {
  const bridge = () => host.as(host.bridge);
  const members: string[] = [];
  for (const label of ['ada', 'grace', 'edsger']) members.push(await activeMember(host, label));
  assert.equal(await bridge().membership.count_active_members(), 3n);

  // The DOM ledger: governance is the minting account (decision L6).
  const block = ok(
    await host.as(host.ids.governance).ledger.icrc1_transfer({ to: { owner: members[0]! }, amount: 250_000_000n }),
  );
  assert.equal(typeof block, 'bigint');
  assert.equal(await host.as(members[0]!).ledger.icrc1_balance_of({ owner: members[0]! }), 250_000_000n);

  const id = ok(
    await bridge().governance.create_proposal({
      title: 'Price',
      body: 'Ratify 0.05 USD',
      category: 'SetDomPrice',
      payload: { SetDomPrice: { price_usd: 0.05 } },
    }),
  );
  assert.equal((await bridge().governance.get_proposal(id))?.status, 'Created');
  const amend = ok(
    await bridge().governance.create_proposal({
      title: 'Higher general quorum',
      body: 'Quorum 25 %, two hours to read',
      category: 'ConstitutionalAmendment',
      payload: {
        ConstitutionalAmendment: {
          category_rules: [{ category: 'General', quorum_bps: 2500 }],
          voting_delay: 2n * HOUR,
        },
      },
    }),
  );
  host.advance(HOUR);
  await host.tick();
  assert.equal((await bridge().governance.get_proposal(id))?.status, 'Open', 'the governance timer opened the vote');
  ok(await host.as(members[0]!).governance.cast_vote(id, 'Yes'));
  ok(await host.as(members[1]!).governance.cast_vote(id, 'Yes'));
  const again = await host.as(members[1]!).governance.cast_vote(id, 'No');
  assert.ok('Err' in again, 'a second vote is refused');
  // Decision G52: an amendment, voted before the restart and executed after it.
  for (const m of members) ok(await host.as(m).governance.cast_vote(amend, 'Yes'));

  await host.restart();

  const tally = await bridge().governance.get_tally(id);
  assert.equal(tally?.yes_votes, 2n, 'votes kept across the restart');
  ok(await host.as(members[2]!).governance.cast_vote(id, 'No'));
  // Decision V25: the votes a page at a time (admin only).
  const admin = host.as(host.admin).governance;
  const first = await admin.list_votes_page(id, undefined, 2);
  const rest = await admin.list_votes_page(id, first.at(-1)!.voter, 2);
  assert.deepEqual(
    [...first, ...rest].map((v) => v.voter),
    (await admin.list_votes(id)).map((v) => v.voter),
  );
  assert.equal(rest.length, 1);
  host.advance(3n * DAY);
  await host.tick();
  assert.equal(
    (await bridge().governance.get_proposal(id))?.status,
    'Executed',
    'tallied, approved and executed by the timer re-armed after the restart',
  );
  assert.equal(
    (await bridge().governance.get_proposal(id))?.rules_before,
    undefined,
    'decision G52: only an amendment keeps the rules it replaced',
  );
  host.advance(11n * DAY); // the amendment's 14-day window
  await host.tick();
  if ((await bridge().governance.get_proposal(amend))?.status !== 'Executed') await host.tick();
  const amended = (await bridge().governance.get_proposal(amend))!;
  assert.equal(amended.status, 'Executed');
  // Decision G52: the stored rules just before it applied, on the proposal after a restart (upgrade on the wasm).
  assert.deepEqual(
    amended.rules_before?.rules.find((r) => r.category === 'General'),
    {
      category: 'General',
      quorum_bps: 1000,
      threshold_bps: 5100,
      voting_window: 7n * DAY,
    },
  );
  assert.equal(amended.rules_before?.voting_delay, HOUR);
  assert.equal(amended.rules_before?.execution_window, 7n * DAY);
  assert.equal(amended.rules_before?.rules.length, 6, 'every category, as get_settings answers');
  assert.equal(
    (await bridge().governance.get_settings()).rules.find((r) => r.category === 'General')?.quorum_bps,
    2500,
    'and the rules now are the amended ones',
  );
  const price = await bridge().governance.get_dom_price();
  assert.equal(price?.price_usd, 0.05);
  assert.equal(price?.proposal_id, id);
  assert.equal(
    await host.as(members[0]!).ledger.icrc1_balance_of({ owner: members[0]! }),
    250_000_000n,
    'ledger balances kept across the restart',
  );
}

const E8S = 100_000_000n;

/**
 * The money flows: a price ratified by a SetDomPrice proposal; a campaign with a USD goal; a contribution in USD pulled
 * from the member's ICRC-2 approval and valued at the ratified tick;
 * the restart; a second price executed by a member, in the campaign's progress at once (decision G50); a TreasuryPayout
 * proposal voted, executed by the timer through the treasury and the ledger, the recipient paid once.
 */
export async function moneyJourney(host: JourneyHost): Promise<void> {
  const bridge = () => host.as(host.bridge);
  const voter = await activeMember(host, 'money-voter');
  const owner = await activeMember(host, 'money-owner');
  const decide = async (args: Parameters<CanisterClients['governance']['create_proposal']>[0], days: bigint) => {
    const id = ok(await bridge().governance.create_proposal(args));
    host.advance(HOUR);
    await host.tick();
    ok(await host.as(voter).governance.cast_vote(id, 'Yes'));
    ok(await host.as(owner).governance.cast_vote(id, 'Yes'));
    host.advance(days * DAY);
    await host.tick();
    assert.equal(
      (await bridge().governance.get_proposal(id))?.status,
      'Executed',
      `${args.category} executed by the timer`,
    );
    return id;
  };
  const priceProposal = await decide(
    { title: 'Price', body: 'Ratify 0.5 USD', category: 'SetDomPrice', payload: { SetDomPrice: { price_usd: 0.5 } } },
    3n,
  );
  const tick = await bridge().governance.get_dom_price();
  assert.equal(tick?.proposal_id, priceProposal);

  // The member holds 1,000 DOM and lets the campaign canister pull up to that (ICRC-2).
  const minter = () => host.as(host.ids.governance).ledger;
  ok(await minter().icrc1_transfer({ to: { owner: voter }, amount: 1_000n * E8S }));
  ok(await host.as(voter).ledger.icrc2_approve({ spender: { owner: host.ids.campaign }, amount: 1_000n * E8S }));
  const campaign = ok(
    await host.as(owner).campaign.create_campaign({
      title: 'Community garden',
      description: 'Seeds',
      goal: { UsdValue: 1000 },
      deadline: host.now() + 30n * DAY,
    }),
  );
  const c = ok(await host.as(voter).campaign.contribute(campaign, { Usd: 250 }));
  assert.equal(c.amount_e8s, 500n * E8S, '250 USD at 0.5 USD per DOM');
  assert.equal(c.usd_value, 250);
  const fee = await host.as(voter).ledger.icrc1_fee();
  assert.equal(
    await host.as(voter).ledger.icrc1_balance_of({ owner: voter }),
    500n * E8S - 2n * fee,
    'pulled by transfer_from; the approval and the transfer each paid the fee',
  );

  await host.restart();

  const progress = (await bridge().campaign.get_campaign(campaign))!.progress;
  assert.equal(progress.raised_dom, 500n * E8S, 'the contribution is kept across the restart');
  assert.equal(progress.goal_dom, 2_000n * E8S);

  // Decision G50: a second price executed by a member (no timer runs): the campaign values progress at it in that step.
  const second = ok(
    await bridge().governance.create_proposal({
      title: 'Price',
      body: 'Ratify 2 USD',
      category: 'SetDomPrice',
      payload: { SetDomPrice: { price_usd: 2 } },
    }),
  );
  host.advance(HOUR);
  await host.tick();
  ok(await host.as(voter).governance.cast_vote(second, 'Yes'));
  ok(await host.as(owner).governance.cast_vote(second, 'Yes'));
  host.advance(3n * DAY);
  ok(await host.as(voter).governance.execute_proposal(second));
  const repriced = (await bridge().campaign.get_campaign(campaign))!.progress;
  assert.deepEqual(
    [repriced.price_tick_id, repriced.goal_dom, repriced.raised_usd],
    [second, 500n * E8S, 1000],
    'valued at the new price at once',
  );

  ok(await minter().icrc1_transfer({ to: { owner: host.ids.treasury }, amount: 100n * E8S }));
  const payout = await decide(
    {
      title: 'Pay the gardener',
      body: 'Ten DOM',
      category: 'TreasuryPayout',
      payload: { TreasuryPayout: { recipient: owner, amount: { DomE8s: 10n * E8S }, memo: 'seeds' } },
    },
    5n,
  );
  assert.equal(await host.as(owner).ledger.icrc1_balance_of({ owner }), 10n * E8S, 'the recipient was paid');
  const record = await bridge().treasury.get_payout(payout);
  assert.equal(record?.amount_e8s, 10n * E8S);
  assert.equal(
    await bridge().treasury.get_balance(),
    90n * E8S - fee,
    'the treasury paid the amount and the fee, once',
  );
}
