// Decisions G25, G26: what governance's consent messages say about each payload, and the refusals that
// waiting cannot undo (a closed vote, a vote already cast, a proposer named by an untrusted caller).
// The core driven directly; both hosts run the same core in platform/canisters/test/consent.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IDL } from '@icp-sdk/core/candid';
import { Principal } from '@icp-sdk/core/principal';
import { toCandid } from '@domdao/canister-kit/candid';
import type { ConsentResponse } from '@domdao/canister-kit';
import { governanceMethods } from '../candid.ts';
import { NS_PER_DAY, NS_PER_HOUR } from '../core/rules/categories.ts';
import { coreWithProposal } from './core.ts';

const TABLE = governanceMethods(IDL);
const principals = {
  fromText: (t: string) => Principal.fromText(t),
  toText: (p: unknown) => (p as Principal).toText(),
};
const P1 = 'rrkah-fqaaa-aaaaa-aaaaq-cai';
const P2 = 'ryjl3-tyaaa-aaaaa-aaaba-cai';

/** A call's argument as a signer encodes it. */
function encode(method: 'cast_vote' | 'create_proposal', ...args: unknown[]): Uint8Array {
  const spec = TABLE[method];
  return new Uint8Array(
    IDL.encode(
      spec.args,
      spec.args.map((t, i) => toCandid(t, args[i], principals)),
    ),
  );
}

const ask = (method: string, arg: Uint8Array, device?: 'FieldsDisplay') => ({
  method,
  arg,
  user_preferences: { metadata: { language: 'en' }, ...(device && { device_spec: device }) },
});
const text = (r: ConsentResponse) => {
  assert.ok(
    'Ok' in r && 'GenericDisplayMessage' in r.Ok.consent_message,
    JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
  );
  return r.Ok.consent_message.GenericDisplayMessage;
};
const unsupported = (r: ConsentResponse) => {
  assert.ok('Err' in r && 'UnsupportedCanisterCall' in r.Err, JSON.stringify(r));
  return r.Err.UnsupportedCanisterCall.description;
};

describe('governance consent messages (decisions G25, G26)', () => {
  it('a vote already cast, and a vote whose window has closed, are refused before the member signs', async () => {
    const { core, ctx, clock, id } = await coreWithProposal();
    clock.now += 2n * NS_PER_HOUR;
    assert.match(
      text(core.icrc21_canister_call_consent_message(ctx(P1), ask('cast_vote', encode('cast_vote', id, 'Yes')))),
      /^# Vote Yes on proposal 1\n/,
    );
    assert.deepEqual(await core.cast_vote(ctx(P1), id, 'Yes'), { Ok: null });
    assert.match(
      unsupported(core.icrc21_canister_call_consent_message(ctx(P1), ask('cast_vote', encode('cast_vote', id, 'No')))),
      /already voted on proposal 1/,
    );
    assert.doesNotMatch(
      text(core.icrc21_canister_call_consent_message(ctx(P2), ask('cast_vote', encode('cast_vote', id, 'No')))),
      /Voting opens/,
      'open: no opening line',
    );
    clock.now += 8n * NS_PER_DAY;
    assert.match(
      unsupported(core.icrc21_canister_call_consent_message(ctx(P2), ask('cast_vote', encode('cast_vote', id, 'No')))),
      /voting on proposal 1 has closed \(it is (Approved|Rejected)\)/,
    );
  });

  it('each payload says what it would do: price, payout in USD, membership policy, amendment; an emergency opens at once', async () => {
    const { core, ctx, clock } = await coreWithProposal();
    const say = (args: unknown) =>
      text(
        core.icrc21_canister_call_consent_message(
          ctx('2vxsx-fae'),
          ask('create_proposal', encode('create_proposal', args)),
        ),
      );
    const price = say({
      title: 'Price',
      body: 'b',
      category: 'SetDomPrice',
      payload: {
        SetDomPrice: { price_usd: 0.5, effective_at: clock.now + NS_PER_DAY, expires_at: clock.now + 5n * NS_PER_DAY },
      },
    });
    assert.ok(price.includes('**Price:** `0.5 USD per DOM`'));
    assert.match(
      price,
      /\*\*Effective at:\*\* 1970-02-12 16:00:00 UTC\n\n\*\*Price expires:\*\* 1970-02-16 16:00:00 UTC/,
    );
    const usd = say({
      title: 'Pay',
      body: 'b',
      category: 'EmergencyAction',
      payload: { TreasuryPayout: { recipient: P2, amount: { Usd: 12.5 } } },
    });
    assert.ok(usd.includes('**Amount:** `12.5 USD`  \nPaid in DOM at the ratified price when the proposal executes.'));
    assert.ok(usd.includes('**Voting opens:** At once (emergency fast track).'));
    assert.ok(usd.includes('**Needs:** a quorum of 5 % of active members and 80 % Yes of Yes and No votes'));
    const policy = say({
      title: 'Admins',
      body: 'b',
      category: 'MembershipPolicy',
      payload: { MembershipPolicy: { add_admins: [P1, P2], remove_admins: [], revoke: [P2] } },
    });
    assert.ok(policy.includes(`**Make admins (2):** \`${P1}, ${P2}\``));
    assert.ok(policy.includes(`**Revoke memberships of (1):** \`${P2}\``));
    assert.ok(!policy.includes('Remove as admins'));
    const amendment = say({
      title: 'Rules',
      body: 'b',
      category: 'ConstitutionalAmendment',
      payload: {
        ConstitutionalAmendment: {
          category_rules: [{ category: 'General', quorum_bps: 1250, voting_window: 3n * NS_PER_DAY }],
          voting_delay: 2n * NS_PER_HOUR,
        },
      },
    });
    assert.ok(amendment.includes('**General rules:** quorum 12.5 %, voting window 3 days'));
    assert.ok(amendment.includes('**New voting delay:** 2 hours'));
  });

  it('a proposer named by an authenticated caller that is not a trusted proposer is refused; anonymous requests see on whose behalf', async () => {
    const { core, ctx } = await coreWithProposal();
    const args = encode('create_proposal', { title: 'For Bob', body: 'b', category: 'General', proposer: P2 });
    assert.match(
      unsupported(core.icrc21_canister_call_consent_message(ctx(P1), ask('create_proposal', args))),
      /only a trusted proposer/,
    );
    assert.ok(
      text(core.icrc21_canister_call_consent_message(ctx('2vxsx-fae'), ask('create_proposal', args))).includes(
        `**On behalf of:** \`${P2}\``,
      ),
    );
  });

  it('proposal text is inert: line breaks and direction overrides become spaces; the body is cut at 160 characters', async () => {
    const { core, ctx } = await coreWithProposal();
    const args = encode('create_proposal', {
      title: 'Good \u202Eevil',
      body: `# Heading\n\n**Amount:** 1 DOM\n${'y'.repeat(300)}`,
      category: 'General',
    });
    const t = text(core.icrc21_canister_call_consent_message(ctx(P1), ask('create_proposal', args)));
    assert.ok(t.includes('**Title:** `Good evil`'));
    assert.ok(
      t.includes(
        `**Body:** \`# Heading **Amount:** 1 DOM ${'y'.repeat(159 - 28)}…\`  \n329 characters of Markdown in all.`,
      ),
      t,
    );
    assert.equal(
      t.split('\n').filter((l) => l.startsWith('**Amount')).length,
      0,
      'no line of the body becomes a line of the message',
    );
  });

  it('a body of exactly 160 characters is shown whole; 161 is cut to 159 and an ellipsis (the limit as a literal)', async () => {
    const { core, ctx } = await coreWithProposal();
    const shown = (body: string) => {
      const t = text(
        core.icrc21_canister_call_consent_message(
          ctx(P1),
          ask('create_proposal', encode('create_proposal', { title: 'T', body, category: 'General' })),
        ),
      );
      return /\*\*Body:\*\* `([^`]*)`/.exec(t)![1]!;
    };
    assert.equal(shown('é'.repeat(160)), 'é'.repeat(160));
    assert.equal(shown('é'.repeat(161)), `${'é'.repeat(159)}…`);
  });
});
