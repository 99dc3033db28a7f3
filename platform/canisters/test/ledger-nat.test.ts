// test-lane: wasm (decision R17: one file on the built wasm at a time)
// Decision L24: a negative `nat` never moves tokens, on either host. On the IC Candid decoding rejects
// it before the ledger runs (shown here with raw Candid on the built wasm: a client's encoder would not
// even send it); embedded, no decoding runs, so the ledger core itself rejects the call.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IDL } from '@icp-sdk/core/candid';
import { Principal } from '@icp-sdk/core/principal';
import { principalFromSeed } from '../src/principals.ts';
import { harness, ADMIN, BRIDGE } from './harness.ts';
import { deployWasm } from '@domdao/replica';
import { WasmReplica } from '@domdao/replica/host';

const ALICE = principalFromSeed('nat-alice');
const BOB = principalFromSeed('nat-bob');
const E8S = 100_000_000n;

type Ledger = {
  icrc1_balance_of(a: { owner: string }): Promise<bigint>;
  icrc1_total_supply(): Promise<bigint>;
  icrc2_allowance(a: { account: { owner: string }; spender: { owner: string } }): Promise<{ allowance: bigint }>;
};
const state = async (l: Ledger) => [
  await l.icrc1_balance_of({ owner: ALICE }),
  await l.icrc1_balance_of({ owner: BOB }),
  await l.icrc1_total_supply(),
  (await l.icrc2_allowance({ account: { owner: ALICE }, spender: { owner: BOB } })).allowance,
];

describe('a negative nat moves nothing on either host (decision L24)', () => {
  it('embedded: icrc1_transfer of -5, icrc2_approve of -100 and icrc2_transfer_from of -1 are rejected calls; balances, supply and allowance unchanged', async () => {
    const h = await harness();
    try {
      await h.mint(ALICE, 10n * E8S);
      const before = await state(h.admin.ledger);
      await assert.rejects(
        h.as(ALICE).ledger.icrc1_transfer({ to: { owner: BOB }, amount: -5n }),
        /InvalidArgument: amount must be a nat/,
      );
      await assert.rejects(
        h.as(ALICE).ledger.icrc2_approve({ spender: { owner: BOB }, amount: -100n }),
        /InvalidArgument: amount must be a nat/,
      );
      await assert.rejects(
        h.as(BOB).ledger.icrc2_transfer_from({ from: { owner: ALICE }, to: { owner: BOB }, amount: -1n }),
        /InvalidArgument: amount must be a nat/,
      );
      assert.deepEqual(await state(h.admin.ledger), before);
    } finally {
      h.platform.close();
    }
  });

  it('built wasm: the same calls with an int where the ledger takes a nat are rejected by Candid decoding; balances, supply and allowance unchanged', async () => {
    const replica = new WasmReplica();
    const d = await deployWasm(
      { admins: [ADMIN], registrars: [BRIDGE], controller: principalFromSeed('controller') },
      replica,
    );
    assert.deepEqual(await d.as(d.ids.governance).ledger.icrc1_transfer({ to: { owner: ALICE }, amount: 10n * E8S }), {
      Ok: 0n,
    });
    const ledger = d.as(ADMIN).ledger;
    const before = await state(ledger);
    const Account = IDL.Record({ owner: IDL.Principal, subaccount: IDL.Opt(IDL.Vec(IDL.Nat8)) });
    const account = (p: string) => ({ owner: Principal.fromText(p), subaccount: [] });
    const raw = (type: IDL.Type, value: unknown) => new Uint8Array(IDL.encode([type], [value]));
    // A Candid client cannot even encode a negative nat.
    assert.throws(() => raw(IDL.Record({ to: Account, amount: IDL.Nat }), { to: account(BOB), amount: -5n }));
    const calls: Array<[string, string, Uint8Array]> = [
      [ALICE, 'icrc1_transfer', raw(IDL.Record({ to: Account, amount: IDL.Int }), { to: account(BOB), amount: -5n })],
      [
        ALICE,
        'icrc2_approve',
        raw(IDL.Record({ spender: Account, amount: IDL.Int }), { spender: account(BOB), amount: -100n }),
      ],
      [
        BOB,
        'icrc2_transfer_from',
        raw(IDL.Record({ from: Account, to: Account, amount: IDL.Int }), {
          from: account(ALICE),
          to: account(BOB),
          amount: -1n,
        }),
      ],
    ];
    for (const [caller, method, arg] of calls) {
      const r = await replica.update(caller, d.ids.ledger, method, arg);
      assert.ok('rejectCode' in r && r.rejectCode === 5, `${method}: ${JSON.stringify(r)}`);
    }
    assert.deepEqual(await state(ledger), before);
  });
});
