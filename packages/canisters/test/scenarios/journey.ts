// The membership and governance journey as one scenario, run on both hosts (issue 15): the embedded
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
  if ('Err' in r) throw new Error(`expected Ok, got ${JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`);
  return r.Ok;
}

/**
 * Accounts → verified (Registered, minted by the membership canister) → KYC and payment (Active);
 * DOM minted by governance; a SetDomPrice proposal created, opened by time, voted, carried across
 * the restart, tallied and executed by the governance timer; the ratified price readable.
 */
export async function membershipAndGovernanceJourney(host: JourneyHost): Promise<void> {
  const bridge = () => host.as(host.bridge);
  const members: string[] = [];
  for (const label of ['ada', 'grace', 'edsger']) {
    const principal = principalFromSeed(`journey-${label}`);
    const created = ok(
      await bridge().user.create_account({
        principal,
        email_encrypted: `ct-email-${label}`,
        name_encrypted: `ct-name-${label}`,
        dob_encrypted: `ct-dob-${label}`,
        password_hash: PASSWORD_HASH,
        tos_accepted_at: host.now() - 1_000n,
        is_age_verified_18_plus: true,
      }),
    );
    ok(await bridge().user.verify_email(created.verification_token));
    assert.equal((await bridge().membership.get_membership_status(principal))?.status, 'Registered', 'verification minted a Registered membership');
    ok(await bridge().user.record_kyc(principal, true));
    ok(await bridge().user.upgrade_membership_to_active({ principal, kyc_proof: new Uint8Array([1]), payment_proof: new Uint8Array([2]) }));
    assert.equal((await bridge().membership.get_membership_status(principal))?.status, 'Active');
    members.push(principal);
  }
  assert.equal(await bridge().membership.count_active_members(), 3n);

  // The DOM ledger: governance is the minting account (decision L6).
  const block = ok(await host.as(host.ids.governance).ledger.icrc1_transfer({ to: { owner: members[0]! }, amount: 250_000_000n }));
  assert.equal(typeof block, 'bigint');
  assert.equal(await host.as(members[0]!).ledger.icrc1_balance_of({ owner: members[0]! }), 250_000_000n);

  const id = ok(await bridge().governance.create_proposal({ title: 'Price', body: 'Ratify 0.05 USD', category: 'SetDomPrice', payload: { SetDomPrice: { price_usd: 0.05 } } }));
  assert.equal((await bridge().governance.get_proposal(id))?.status, 'Created');
  host.advance(HOUR);
  await host.tick();
  assert.equal((await bridge().governance.get_proposal(id))?.status, 'Open', 'the governance timer opened the vote');
  ok(await host.as(members[0]!).governance.cast_vote(id, 'Yes'));
  ok(await host.as(members[1]!).governance.cast_vote(id, 'Yes'));
  const again = await host.as(members[1]!).governance.cast_vote(id, 'No');
  assert.ok('Err' in again, 'a second vote is refused');

  await host.restart();

  const tally = await bridge().governance.get_tally(id);
  assert.equal(tally?.yes_votes, 2n, 'votes kept across the restart');
  ok(await host.as(members[2]!).governance.cast_vote(id, 'No'));
  // Decision V25: the votes a page at a time (admin only).
  const admin = host.as(host.admin).governance;
  const first = await admin.list_votes_page(id, undefined, 2);
  const rest = await admin.list_votes_page(id, first.at(-1)!.voter, 2);
  assert.deepEqual([...first, ...rest].map((v) => v.voter), (await admin.list_votes(id)).map((v) => v.voter));
  assert.equal(rest.length, 1);
  host.advance(3n * DAY);
  await host.tick();
  assert.equal((await bridge().governance.get_proposal(id))?.status, 'Executed', 'tallied, approved and executed by the timer re-armed after the restart');
  const price = await bridge().governance.get_dom_price();
  assert.equal(price?.price_usd, 0.05);
  assert.equal(price?.proposal_id, id);
  assert.equal(await host.as(members[0]!).ledger.icrc1_balance_of({ owner: members[0]! }), 250_000_000n, 'ledger balances kept across the restart');
}
