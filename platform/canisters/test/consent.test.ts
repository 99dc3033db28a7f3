// test-lane: wasm (decision R17: one file on the built wasm at a time)
// ICRC-21 consent messages (decisions L36–L39 on the ledger, G24–G26 on governance), the same cases on
// both hosts: the embedded cores and the built wasm on the test replica, each reached through its
// clients with the call's argument Candid-encoded as a signer sends it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IDL } from '@icp-sdk/core/candid';
import { toCandid } from '@domdao/canister-kit/candid';
import { accountText, type ConsentResponse } from '@domdao/canister-kit';
import { principalCodec } from '../src/ic/index.ts';
import { EMBEDDED_CANISTER_IDS, principalFromSeed } from '../src/principals.ts';
import { METHOD_TABLES } from '../src/tables.ts';
import type { CanisterClients, CanisterName } from '../src/api.ts';
import { ADMIN, BRIDGE, harness } from './harness.ts';
import { INSTRUCTION_LIMITS } from '@domdao/replica/host';
import { deployWasm } from '@domdao/replica';

const ALICE = principalFromSeed('consent-alice');
const BOB = principalFromSeed('consent-bob');
const ANONYMOUS = '2vxsx-fae';
const E8S = 100_000_000n;
const T0 = BigInt(Date.parse('2026-03-10T12:00:00Z')) * 1_000_000n;
const SUB = Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 7 : 0));
const TITLE = 'Fund the `garden` \u202Eproject';

/** The call's argument as a signer encodes it with the canister's own types. */
function arg(canister: CanisterName, method: string, ...args: unknown[]): Uint8Array {
  const spec = METHOD_TABLES[canister][method]!;
  return new Uint8Array(
    IDL.encode(
      spec.args,
      spec.args.map((t, i) => toCandid(t, args[i], principalCodec)),
    ),
  );
}

type Prefs = { language?: string; utc_offset_minutes?: number; device?: 'GenericDisplay' | 'FieldsDisplay' };
const request = (method: string, bytes: Uint8Array, p: Prefs = {}) => ({
  method,
  arg: bytes,
  user_preferences: {
    metadata: {
      language: p.language ?? 'en',
      ...(p.utc_offset_minutes !== undefined && { utc_offset_minutes: p.utc_offset_minutes }),
    },
    ...(p.device && { device_spec: p.device }),
  },
});

const generic = (r: ConsentResponse) => {
  assert.ok(
    'Ok' in r && 'GenericDisplayMessage' in r.Ok.consent_message,
    JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)),
  );
  return r.Ok.consent_message.GenericDisplayMessage;
};
const fields = (r: ConsentResponse) => {
  assert.ok(
    'Ok' in r && 'FieldsDisplayMessage' in r.Ok.consent_message,
    JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)),
  );
  return r.Ok.consent_message.FieldsDisplayMessage;
};
/** The description of a refusal of `kind`. */
const refusal = (r: ConsentResponse, kind: 'UnsupportedCanisterCall' | 'ConsentMessageUnavailable') => {
  assert.ok(
    'Err' in r && kind in r.Err,
    `${kind} expected: ${JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`,
  );
  return (r.Err as Record<string, { description: string }>)[kind]!.description;
};

interface Host {
  as(principal: string): CanisterClients;
  close(): void;
  /** Instructions of each consent message so far (the wasm replica counts them). */
  consentInstructions?(): bigint[];
}

const HOSTS: Array<[string, () => Promise<Host>]> = [
  [
    'embedded',
    async () => {
      const h = await harness();
      return { as: (p) => h.as(p), close: () => h.platform.close() };
    },
  ],
  [
    'built wasm',
    async () => {
      const d = await deployWasm({
        admins: [ADMIN],
        registrars: [BRIDGE],
        controller: principalFromSeed('controller'),
      });
      return {
        as: (p) => d.as(p),
        close: () => undefined,
        consentInstructions: () =>
          d.replica.counts
            .filter((c) => c.method === 'icrc21_canister_call_consent_message')
            .map((c) => c.instructions),
      };
    },
  ],
];

for (const [name, open] of HOSTS) {
  describe(`ICRC-21 consent messages on the ${name} host`, () => {
    let host: Host;
    let ledgerOf: (p: string) => CanisterClients['ledger'];
    let govOf: (p: string) => CanisterClients['governance'];
    before(async () => {
      host = await open();
      ledgerOf = (p) => host.as(p).ledger;
      govOf = (p) => host.as(p).governance;
      const created = await govOf(BRIDGE).create_proposal({
        title: TITLE,
        body: 'Plant trees.\nThen water them.',
        category: 'General',
      });
      assert.deepEqual(created, { Ok: 1n });
    });
    after(() => host.close());

    it('decision L36: icrc1_transfer as Markdown: sender, amount and fee with 8 decimals and DOM, ICRC-1 textual accounts, memo, creation time', async () => {
      const bytes = arg('ledger', 'icrc1_transfer', {
        to: { owner: BOB, subaccount: SUB },
        amount: 150_000_000n,
        memo: new TextEncoder().encode('rent march'),
        created_at_time: T0,
      });
      const r = await ledgerOf(ALICE).icrc21_canister_call_consent_message(request('icrc1_transfer', bytes));
      assert.ok('Ok' in r);
      assert.deepEqual(r.Ok.metadata, { language: 'en', utc_offset_minutes: 0 });
      assert.equal(
        generic(r),
        [
          '# Send DOM',
          'You are approving a transfer of funds from your account.',
          `**From:** \`${ALICE}\``,
          `**Amount:** \`1.5 DOM\``,
          `**To:** \`${accountText({ owner: BOB, subaccount: SUB })}\``,
          '**Fee:** `0.0001 DOM`  \nCharged for processing the transfer, paid by the sending account on top of the amount.',
          '**Memo:** `rent march`',
          '**Created at:** 2026-03-10 12:00:00 UTC  \nThe ledger accepts this request only within its 24-hour deduplication window after this time, and only once.',
        ].join('\n\n'),
      );
    });

    it('decision L36: icrc1_transfer as fields for an anonymous (cold signer) request: typed TokenAmount values, no sender; a binary memo in hex', async () => {
      const bytes = arg('ledger', 'icrc1_transfer', {
        from_subaccount: SUB,
        to: { owner: BOB },
        amount: 2n ** 64n - 1n,
        memo: Uint8Array.from([0, 1, 0xff]),
      });
      const f = fields(
        await ledgerOf(ANONYMOUS).icrc21_canister_call_consent_message(
          request('icrc1_transfer', bytes, { device: 'FieldsDisplay' }),
        ),
      );
      assert.deepEqual(f, {
        intent: 'Send DOM',
        fields: [
          [
            'From subaccount',
            { Text: { content: '0000000000000000000000000000000000000000000000000000000000000007' } },
          ],
          ['Amount', { TokenAmount: { decimals: 8, amount: 2n ** 64n - 1n, symbol: 'DOM' } }],
          ['To', { Text: { content: BOB } }],
          ['Fee', { TokenAmount: { decimals: 8, amount: 10_000n, symbol: 'DOM' } }],
          ['Memo', { Text: { content: '0x0001ff' } }],
        ],
      });
    });

    it('decision L39: a transfer to the minting account says it burns, with no fee', async () => {
      const bytes = arg('ledger', 'icrc1_transfer', {
        to: { owner: EMBEDDED_CANISTER_IDS.governance },
        amount: 5n * E8S,
      });
      const text = generic(
        await ledgerOf(ALICE).icrc21_canister_call_consent_message(request('icrc1_transfer', bytes)),
      );
      assert.match(text, /^# Burn DOM\n\nYou are burning DOM: sent to the minting account, the tokens are destroyed/);
      assert.match(text, /\*\*Amount:\*\* `5 DOM`/);
      assert.doesNotMatch(text, /Fee/);
    });

    it('decision L38: icrc2_approve: spender, allowance, the expected allowance condition, expiry in the signer’s offset, fee; the metadata names the offset', async () => {
      const bytes = arg('ledger', 'icrc2_approve', {
        spender: { owner: BOB },
        amount: 20n * E8S,
        expected_allowance: 0n,
        expires_at: T0 + 86_400n * 1_000_000_000n,
      });
      const r = await ledgerOf(ALICE).icrc21_canister_call_consent_message(
        request('icrc2_approve', bytes, { language: 'en-GB', utc_offset_minutes: 120 }),
      );
      assert.ok('Ok' in r);
      assert.deepEqual(r.Ok.metadata, { language: 'en-GB', utc_offset_minutes: 120 });
      const text = generic(r);
      assert.match(text, /^# Approve spending\n\n/);
      for (const line of [
        `**From:** \`${ALICE}\``,
        `**Spender:** \`${BOB}\``,
        '**Requested allowance:** `20 DOM`',
        '**Only if the existing allowance is:** `0 DOM`  \nOtherwise the ledger refuses the approval.',
        '**Approval expires:** 2026-03-11 14:00:00 UTC+02:00',
        '**Approval fee:** `0.0001 DOM`',
      ])
        assert.ok(text.includes(line), `has ${line}\n${text}`);
      const f = fields(
        await ledgerOf(ANONYMOUS).icrc21_canister_call_consent_message(
          request('icrc2_approve', bytes, { device: 'FieldsDisplay' }),
        ),
      );
      assert.deepEqual(f.fields[3], [
        'Approval expires',
        { TimestampSeconds: { amount: T0 / 1_000_000_000n + 86_400n } },
      ]);
      assert.equal(f.fields[0]![0], 'Spender', 'no From line for an anonymous request');
    });

    it('decision L38: an approval without conditions replaces any allowance and never expires; an allowance past nat64 is shown as text in fields; 0 revokes', async () => {
      const huge = arg('ledger', 'icrc2_approve', { spender: { owner: BOB }, amount: 2n ** 64n });
      const f = fields(
        await ledgerOf(ALICE).icrc21_canister_call_consent_message(
          request('icrc2_approve', huge, { device: 'FieldsDisplay' }),
        ),
      );
      assert.deepEqual(f.fields[2], ['Requested allowance', { Text: { content: '184467440737.09551616 DOM' } }]);
      assert.deepEqual(f.fields[3], [
        'Existing allowance',
        { Text: { content: 'Replaced by the requested allowance, whatever it is.' } },
      ]);
      assert.deepEqual(f.fields[4], [
        'Approval expires',
        { Text: { content: 'Never: this approval has no expiration.' } },
      ]);
      const r = await ledgerOf(ALICE).icrc21_canister_call_consent_message(request('icrc2_approve', huge));
      assert.ok('Ok' in r);
      assert.equal(r.Ok.metadata.utc_offset_minutes, undefined, 'no time shown: not timezone sensitive');
      const revoke = arg('ledger', 'icrc2_approve', { spender: { owner: BOB }, amount: 0n });
      assert.match(
        generic(await ledgerOf(ALICE).icrc21_canister_call_consent_message(request('icrc2_approve', revoke))),
        /^# Revoke spending approval/,
      );
    });

    it('decision L36: icrc2_transfer_from: the spender (caller), the source, amount, recipient and fee', async () => {
      const bytes = arg('ledger', 'icrc2_transfer_from', {
        from: { owner: ALICE },
        to: { owner: BOB, subaccount: SUB },
        amount: 123_456_789n,
      });
      const text = generic(
        await ledgerOf(BOB).icrc21_canister_call_consent_message(request('icrc2_transfer_from', bytes)),
      );
      assert.match(
        text,
        /^# Spend DOM\n\nYou are transferring funds from an account that approved you as its spender\./,
      );
      for (const line of [
        `**Spender:** \`${BOB}\``,
        `**From:** \`${ALICE}\``,
        '**Amount:** `1.23456789 DOM`',
        `**To:** \`${BOB}-`,
        '**Fee:** `0.0001 DOM`',
      ])
        assert.ok(text.includes(line), `has ${line}\n${text}`);
    });

    it('decision L37: an unsupported language falls back to English and says so in metadata.language', async () => {
      const bytes = arg('ledger', 'icrc1_transfer', { to: { owner: BOB }, amount: 1n });
      for (const [asked, answered] of [
        ['de-CH', 'en'],
        ['fr', 'en'],
        ['', 'en'],
        ['EN-us', 'EN-us'],
      ]) {
        const r = await ledgerOf(ALICE).icrc21_canister_call_consent_message(
          request('icrc1_transfer', bytes, { language: asked }),
        );
        assert.ok('Ok' in r);
        assert.equal(r.Ok.metadata.language, answered, `asked ${asked}`);
        assert.match(generic(r), /^# Send DOM\n\nYou are approving a transfer/);
      }
    });

    it('decision L36: other methods: UnsupportedCanisterCall for one the ledger lacks, ConsentMessageUnavailable for one that moves nothing', async () => {
      const l = ledgerOf(ALICE);
      assert.match(
        refusal(
          await l.icrc21_canister_call_consent_message(request('icrc1_mint', new Uint8Array())),
          'UnsupportedCanisterCall',
        ),
        /no method "icrc1_mint"/,
      );
      const balance = arg('ledger', 'icrc1_balance_of', { owner: ALICE });
      assert.match(
        refusal(
          await l.icrc21_canister_call_consent_message(request('icrc1_balance_of', balance)),
          'ConsentMessageUnavailable',
        ),
        /moves no tokens/,
      );
    });

    it('decision L36: arguments that are not the method’s Candid, and arguments the ledger would refuse, answer UnsupportedCanisterCall; the memo at its 32-byte limit is fine, 33 is not', async () => {
      const l = ledgerOf(ALICE);
      const unsupported = async (method: string, bytes: Uint8Array) =>
        refusal(await l.icrc21_canister_call_consent_message(request(method, bytes)), 'UnsupportedCanisterCall');
      assert.match(await unsupported('icrc1_transfer', Uint8Array.from([1, 2, 3])), /not Candid for this method/);
      assert.match(
        await unsupported('icrc2_approve', new Uint8Array(IDL.encode([IDL.Text], ['20 DOM']))),
        /not Candid for this method/,
      );
      assert.match(await unsupported('icrc1_transfer', new Uint8Array()), /not Candid for this method/);
      const memo = (n: number) =>
        arg('ledger', 'icrc1_transfer', { to: { owner: BOB }, amount: 1n, memo: new Uint8Array(n).fill(0x61) });
      assert.match(
        generic(await l.icrc21_canister_call_consent_message(request('icrc1_transfer', memo(32)))),
        /\*\*Memo:\*\* `a{32}`/,
      );
      assert.match(await unsupported('icrc1_transfer', memo(33)), /the memo is 33 bytes, above the limit of 32/);
      assert.match(
        await unsupported(
          'icrc1_transfer',
          arg('ledger', 'icrc1_transfer', { to: { owner: BOB, subaccount: new Uint8Array(31) }, amount: 1n }),
        ),
        /32 bytes, got 31/,
      );
      assert.match(
        await unsupported(
          'icrc1_transfer',
          arg('ledger', 'icrc1_transfer', { to: { owner: BOB }, amount: 1n, fee: 1n }),
        ),
        /BadFee/,
      );
      assert.match(
        await unsupported(
          'icrc2_approve',
          arg('ledger', 'icrc2_approve', { spender: { owner: BOB }, amount: 1n, expires_at: T0 - 1n }),
        ),
        /already expired/,
      );
      assert.match(
        await unsupported('icrc2_approve', arg('ledger', 'icrc2_approve', { spender: { owner: ALICE }, amount: 1n })),
        /cannot approve itself/,
      );
    });

    it('decision L38: asking for a consent message changes nothing on the ledger', async () => {
      const before = await ledgerOf(ALICE).icrc3_get_blocks([{ start: 0n, length: 10n }]);
      const bytes = arg('ledger', 'icrc1_transfer', { to: { owner: BOB }, amount: 1n });
      await ledgerOf(ALICE).icrc21_canister_call_consent_message(request('icrc1_transfer', bytes));
      assert.deepEqual(await ledgerOf(ALICE).icrc3_get_blocks([{ start: 0n, length: 10n }]), before);
    });

    it('decision G24: cast_vote names the proposal by id and title (shown inert), the choice, and when voting opens and closes', async () => {
      const bytes = arg('governance', 'cast_vote', 1n, 'Abstain');
      const r = await govOf(ALICE).icrc21_canister_call_consent_message(request('cast_vote', bytes));
      assert.equal(
        generic(r),
        [
          '# Vote Abstain on proposal 1',
          'You are casting your vote in DOM DAO governance. A vote is final, and a vote-pass receipt (a soul-bound ICRC-7 token) is minted to you.',
          `**Voter:** \`${ALICE}\``,
          '**Proposal:** #1',
          '**Title:** `` Fund the `garden` project ``',
          '**Category:** General',
          '**Your vote:** Abstain  \nNeither for nor against: counts toward the quorum only.',
          '**Voting opens:** 2026-03-10 13:00:00 UTC  \nA vote sent before then is refused.',
          '**Voting closes:** 2026-03-17 13:00:00 UTC',
        ].join('\n\n'),
      );
      const f = fields(
        await govOf(ANONYMOUS).icrc21_canister_call_consent_message(
          request('cast_vote', arg('governance', 'cast_vote', 1n, 'Yes'), { device: 'FieldsDisplay' }),
        ),
      );
      assert.equal(f.intent, 'Vote Yes on proposal 1');
      assert.deepEqual(f.fields.slice(0, 4), [
        ['Proposal', { Text: { content: '#1' } }],
        ['Title', { Text: { content: 'Fund the `garden` project' } }],
        ['Category', { Text: { content: 'General' } }],
        ['Your vote', { Text: { content: 'Yes' } }],
      ]);
      assert.deepEqual(f.fields.at(-1), [
        'Voting closes',
        { TimestampSeconds: { amount: T0 / 1_000_000_000n + 3600n + 7n * 86_400n } },
      ]);
      const missing = await govOf(ALICE).icrc21_canister_call_consent_message(
        request('cast_vote', arg('governance', 'cast_vote', 99n, 'No')),
      );
      assert.match(refusal(missing, 'UnsupportedCanisterCall'), /no proposal 99/);
    });

    it('decision G25: create_proposal shows the category, title, the start of the body, what the payload does and the rules of its vote', async () => {
      const payout = arg('governance', 'create_proposal', {
        title: 'Pay the gardener',
        body: 'For the spring work.',
        category: 'TreasuryPayout',
        payload: { TreasuryPayout: { recipient: BOB, amount: { DomE8s: 250n * E8S }, memo: 'invoice 12' } },
      });
      const text = generic(await govOf(ALICE).icrc21_canister_call_consent_message(request('create_proposal', payout)));
      assert.match(
        text,
        /^# Submit a TreasuryPayout proposal\n\nYou are submitting a proposal to DOM DAO governance\. If members approve it/,
      );
      for (const line of [
        '**Title:** `Pay the gardener`',
        '**Category:** TreasuryPayout',
        '**Body:** `For the spring work.`  \n20 characters of Markdown in all.',
        '**Action:** Pay DOM from the treasury.',
        `**Recipient:** \`${BOB}\``,
        '**Amount:** `250 DOM`',
        '**Memo:** `invoice 12`',
        '**Voting opens after:** 1 hour',
        '**Voting period:** 5 days',
        '**Needs:** a quorum of 20 % of active members and 60 % Yes of Yes and No votes',
      ])
        assert.ok(text.includes(line), `has ${line}\n${text}`);
      const price = arg('governance', 'create_proposal', {
        title: 'Price',
        body: 'b',
        category: 'SetDomPrice',
        payload: { SetDomPrice: { price_usd: 0.42, source_url: 'https://prices.example.org/dom' } },
      });
      const f = fields(
        await govOf(ANONYMOUS).icrc21_canister_call_consent_message(
          request('create_proposal', price, { device: 'FieldsDisplay' }),
        ),
      );
      assert.deepEqual(
        f.fields.filter(([label]) => ['Price', 'Source', 'Voting period'].includes(label)),
        [
          ['Price', { Text: { content: '0.42 USD per DOM' } }],
          ['Source', { Text: { content: 'https://prices.example.org/dom' } }],
          ['Voting period', { DurationSeconds: { amount: 3n * 86_400n } }],
        ],
      );
      const general = arg('governance', 'create_proposal', {
        title: 'Hello',
        body: 'x'.repeat(500),
        category: 'General',
      });
      const g = generic(await govOf(ALICE).icrc21_canister_call_consent_message(request('create_proposal', general)));
      assert.match(g, /carries no on-chain action/);
      assert.ok(g.includes(`**Body:** \`${'x'.repeat(159)}…\`  \n500 characters of Markdown in all.`));
    });

    it('decision G25: a create_proposal the canister would refuse, other methods and bad arguments answer the standard errors; icrc10 lists ICRC-21', async () => {
      const g = govOf(ALICE);
      const at = (title: string) => arg('governance', 'create_proposal', { title, body: 'b', category: 'General' });
      assert.ok(
        'Ok' in (await g.icrc21_canister_call_consent_message(request('create_proposal', at('t'.repeat(200))))),
        'a title at its 200-character limit',
      );
      assert.match(
        refusal(
          await g.icrc21_canister_call_consent_message(request('create_proposal', at('t'.repeat(201)))),
          'UnsupportedCanisterCall',
        ),
        /title must be 1 to 200/,
      );
      const longest = arg('governance', 'create_proposal', {
        title: 'T'.repeat(200),
        body: 'B'.repeat(50_000),
        category: 'General',
      });
      assert.match(
        generic(await g.icrc21_canister_call_consent_message(request('create_proposal', longest))),
        /\*\*Body:\*\* `B{159}…` {2}\n50000 characters of Markdown in all\./,
        'a title and a body at their limits (200 and 50 000 characters)',
      );
      const tooLong = arg('governance', 'create_proposal', {
        title: 'T',
        body: 'B'.repeat(50_001),
        category: 'General',
      });
      assert.match(
        refusal(
          await g.icrc21_canister_call_consent_message(request('create_proposal', tooLong)),
          'UnsupportedCanisterCall',
        ),
        /body must be 1 to 50000/,
      );
      const noPayload = arg('governance', 'create_proposal', { title: 'x', body: 'b', category: 'TreasuryPayout' });
      assert.match(
        refusal(
          await g.icrc21_canister_call_consent_message(request('create_proposal', noPayload)),
          'UnsupportedCanisterCall',
        ),
        /need a TreasuryPayout payload/,
      );
      assert.match(
        refusal(
          await g.icrc21_canister_call_consent_message(request('cast_vote', Uint8Array.from([0x44, 0x49, 0x44, 0x4c]))),
          'UnsupportedCanisterCall',
        ),
        /not Candid/,
      );
      assert.match(
        refusal(
          await g.icrc21_canister_call_consent_message(request('drop_table', new Uint8Array())),
          'UnsupportedCanisterCall',
        ),
        /no method/,
      );
      assert.match(
        refusal(
          await g.icrc21_canister_call_consent_message(
            request('execute_proposal', arg('governance', 'execute_proposal', 1n)),
          ),
          'ConsentMessageUnavailable',
        ),
        /execute_proposal/,
      );
      assert.deepEqual(
        (await g.icrc10_supported_standards()).map((s) => s.name),
        ['ICRC-7', 'ICRC-10', 'ICRC-21'],
      );
    });

    if (name === 'built wasm')
      it("decision W4: every consent message above ran well within the IC's update limit, under 10 % of it (median and largest printed)", () => {
        const counted = host.consentInstructions!();
        assert.ok(counted.length >= 35, `${counted.length} consent messages counted`);
        const sorted = [...counted].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        const largest = sorted.at(-1)!;
        console.log(
          `consent messages on the wasm: ${counted.length}, median ${sorted[sorted.length >> 1]}, largest ${largest} instructions (limit ${INSTRUCTION_LIMITS.update})`,
        );
        // The largest decodes a 50 000-character body (decoding costs the wasm per byte, decision W6); a canister's
        // first message also builds its method table.
        assert.ok(largest < INSTRUCTION_LIMITS.update / 10n, `${largest} instructions`);
      });
  });
}
