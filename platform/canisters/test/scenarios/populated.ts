// A small DAO with something in every store the state transfer must keep (issue 47 item 2): members
// (Active and Registered), a ratified price (a proposal with votes, executed), an open proposal with
// a reason and a delegated vote, a campaign with a contribution (escrow), ledger transfers and an
// approval. Made the real way, through the canisters' methods on the embedded platform.
import { BRIDGE, DAY, HOUR, PASSWORD_HASH, ratifyPrice, type Harness } from '../harness.ts';

export const E8S = 100_000_000n;

export interface Populated {
  members: { a: string; b: string; c: string; owner: string };
  openProposal: bigint;
  campaign: string;
}

/** An Active member whose principal is given (one with a real key signs on the replica after the move). */
async function activatePrincipal(h: Harness, principal: string): Promise<void> {
  const created = h.ok(
    await h.bridge.user.create_account({
      principal,
      email_encrypted: 'ct-email-keyed',
      name_encrypted: 'ct-name-keyed',
      dob_encrypted: 'ct-dob-keyed',
      password_hash: PASSWORD_HASH,
      tos_accepted_at: h.now() - 1_000n,
      is_age_verified_18_plus: true,
    }),
  );
  h.ok(await h.bridge.user.verify_email(created.verification_token));
  h.ok(await h.bridge.user.record_kyc(principal, true));
  h.ok(
    await h.bridge.user.upgrade_membership_to_active({
      principal,
      kyc_proof: new Uint8Array([1]),
      payment_proof: new Uint8Array([2]),
    }),
  );
}

/** `keyed`: a member with a real key, funded with 20 DOM, who has not voted on the open proposal. The bridge holds 5 DOM. */
export async function populate(h: Harness, keyed?: string): Promise<Populated> {
  if (keyed !== undefined) {
    await activatePrincipal(h, keyed);
    await h.mint(keyed, 20n * E8S);
  }
  await h.mint(BRIDGE, 5n * E8S);
  const a = await h.activate('a');
  const b = await h.activate('b');
  const c = await h.activate('c');
  const owner = await h.register('owner');
  await ratifyPrice(h, a, 0.5);
  h.ok(await h.as(c).governance.set_delegation({ delegate: b, show_name: true }));
  const openProposal = h.ok(
    await h.bridge.governance.create_proposal({
      title: 'a new price',
      body: 'state transfer',
      category: 'SetDomPrice',
      payload: { SetDomPrice: { price_usd: 0.6 } },
    }),
  );
  h.advance(HOUR);
  await h.tick();
  h.ok(await h.as(a).governance.cast_vote_with_reason(openProposal, 'No', 'too high for now'));
  h.ok(await h.as(b).governance.cast_vote(openProposal, 'Yes'));
  const campaign = h.ok(
    await h.as(owner).campaign.create_campaign({
      title: 'Community garden',
      description: 'Seeds',
      goal: { UsdValue: 1000 },
      deadline: h.now() + 30n * DAY,
    }),
  );
  await h.fund(a, 100n * E8S);
  h.ok(await h.as(a).campaign.contribute(campaign, { Dom: 10n * E8S }));
  await h.mint(b, 50n * E8S);
  h.ok(await h.as(b).ledger.icrc1_transfer({ to: { owner: c }, amount: 7n * E8S, memo: new Uint8Array([1, 2, 3]) }));
  h.ok(await h.as(b).ledger.icrc2_approve({ spender: { owner: owner }, amount: 3n * E8S }));
  return { members: { a, b, c, owner }, openProposal, campaign };
}
