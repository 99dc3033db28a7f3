// Decisions L1–L8: ICRC-1 transfers, mints and burns, ICRC-2 approvals and transfers from, every
// error the standards list, the deduplication window and the ICRC-3 block log, through the ledger
// core's public methods on the embedded host (decisions L1–L8).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Principal } from '@icp-sdk/core/principal';
import { E8S, FEE, LEDGER, ledger, MINTER, NOW0, party, sub } from './harness.ts';
import { ARCHIVE_METHOD, MAX_BLOCKS_PER_REQUEST } from '../core/block-log.ts';
import { PERMITTED_DRIFT, TX_WINDOW } from '../core/ledger.ts';

const ALICE = party(1);
const BOB = party(2);
const CAROL = party(3);
const HOUR = 3_600_000_000_000n;

describe('ICRC-1 (decisions L1–L4)', () => {
  it('metadata, supply, minting account and standards; the initial distribution is minted at init', async () => {
    const l = await ledger([
      [{ owner: ALICE }, 100n * E8S],
      [{ owner: BOB, subaccount: sub(7) }, 5n * E8S],
    ]);
    const q = l.as(CAROL);
    assert.equal(await q.icrc1_name(), 'DOM');
    assert.equal(await q.icrc1_symbol(), 'DOM');
    assert.equal(await q.icrc1_decimals(), 8);
    assert.equal(await q.icrc1_fee(), FEE);
    assert.deepEqual(await q.icrc1_minting_account(), { owner: MINTER });
    assert.deepEqual(await q.icrc1_metadata(), [
      ['icrc1:name', { Text: 'DOM' }],
      ['icrc1:symbol', { Text: 'DOM' }],
      ['icrc1:decimals', { Nat: 8n }],
      ['icrc1:fee', { Nat: FEE }],
      ['icrc1:max_memo_length', { Nat: 32n }],
    ]);
    assert.deepEqual(
      (await q.icrc1_supported_standards()).map((s) => s.name),
      ['ICRC-1', 'ICRC-2', 'ICRC-3', 'ICRC-10', 'ICRC-21'],
    );
    assert.equal(await q.icrc1_total_supply(), 105n * E8S);
    assert.equal(await q.icrc1_balance_of({ owner: ALICE }), 100n * E8S);
    assert.equal(
      await q.icrc1_balance_of({ owner: ALICE, subaccount: new Uint8Array(32) }),
      100n * E8S,
      'the default subaccount is the account',
    );
    assert.equal(await q.icrc1_balance_of({ owner: BOB }), 0n);
    assert.equal(await q.icrc1_balance_of({ owner: BOB, subaccount: sub(7) }), 5n * E8S);
    await assert.rejects(
      q.icrc1_balance_of({ owner: BOB, subaccount: new Uint8Array(3) }),
      /InvalidAccount: a subaccount must be 32 bytes/,
    );
    const log = await q.icrc3_get_blocks([{ start: 0n, length: 10n }]);
    assert.equal(log.log_length, 2n);
    assert.deepEqual(
      log.blocks.map((b) => (b.block as { Map: Array<[string, unknown]> }).Map[0]),
      [
        ['btype', { Text: '1mint' }],
        ['btype', { Text: '1mint' }],
      ],
    );
  });

  it('a transfer moves the amount, burns the fee and returns its block index', async () => {
    const l = await ledger([[{ owner: ALICE }, 10n * E8S]]);
    const r = await l.as(ALICE).icrc1_transfer({ to: { owner: BOB }, amount: 3n * E8S });
    assert.deepEqual(r, { Ok: 1n });
    assert.equal(await l.as(BOB).icrc1_balance_of({ owner: ALICE }), 7n * E8S - FEE);
    assert.equal(await l.as(BOB).icrc1_balance_of({ owner: BOB }), 3n * E8S);
    assert.equal(await l.as(BOB).icrc1_total_supply(), 10n * E8S - FEE, 'fees are burned');
    // From a subaccount, with the fee stated and a memo.
    assert.deepEqual(
      await l.as(BOB).icrc1_transfer({
        to: { owner: ALICE, subaccount: sub(1) },
        amount: E8S,
        fee: FEE,
        memo: new Uint8Array([1, 2]),
      }),
      {
        Ok: 2n,
      },
    );
    const [block] = (await l.as(BOB).icrc3_get_blocks([{ start: 2n, length: 1n }])).blocks;
    const owner = (p: string) => ({ Blob: Principal.fromText(p).toUint8Array() });
    const phash = (block!.block as { Map: Array<[string, { Blob: Uint8Array }]> }).Map[1]![1].Blob;
    assert.equal(phash.length, 32, 'decision L26: the hash of block 1');
    assert.deepEqual(
      block!.block,
      {
        Map: [
          ['btype', { Text: '1xfer' }],
          ['phash', { Blob: phash }],
          ['ts', { Nat: NOW0 }],
          [
            'tx',
            {
              Map: [
                ['amt', { Nat: E8S }],
                ['from', { Array: [owner(BOB)] }],
                ['to', { Array: [owner(ALICE), { Blob: sub(1) }] }],
                ['memo', { Blob: new Uint8Array([1, 2]) }],
                ['fee', { Nat: FEE }],
              ],
            },
          ],
        ],
      },
      'ICRC-3 1xfer schema: the fee stated by the caller is in tx, none at the top',
    );
    const [first] = (await l.as(BOB).icrc3_get_blocks([{ start: 1n, length: 1n }])).blocks;
    assert.deepEqual(
      (first!.block as { Map: Array<[string, unknown]> }).Map[3],
      ['fee', { Nat: FEE }],
      'the fee the ledger chose is at the top',
    );
  });

  it('BadFee, InsufficientFunds, GenericError (memo, subaccount) change nothing', async () => {
    const l = await ledger([[{ owner: ALICE }, E8S]]);
    const a = l.as(ALICE);
    assert.deepEqual(await a.icrc1_transfer({ to: { owner: BOB }, amount: 1n, fee: FEE + 1n }), {
      Err: { BadFee: { expected_fee: FEE } },
    });
    assert.deepEqual(await a.icrc1_transfer({ to: { owner: BOB }, amount: 1n, fee: 0n }), {
      Err: { BadFee: { expected_fee: FEE } },
    });
    assert.deepEqual(await a.icrc1_transfer({ to: { owner: BOB }, amount: E8S - FEE + 1n }), {
      Err: { InsufficientFunds: { balance: E8S } },
    });
    assert.deepEqual(await a.icrc1_transfer({ to: { owner: BOB }, amount: 1n, memo: new Uint8Array(33) }), {
      Err: { GenericError: { error_code: 1n, message: 'the memo is 33 bytes, above the limit of 32' } },
    });
    assert.deepEqual(await a.icrc1_transfer({ to: { owner: BOB, subaccount: new Uint8Array(31) }, amount: 1n }), {
      Err: { GenericError: { error_code: 1n, message: 'a subaccount must be 32 bytes, got 31' } },
    });
    assert.deepEqual(
      await a.icrc1_transfer({ to: { owner: BOB }, amount: E8S - FEE }),
      { Ok: 1n },
      'exactly the balance less the fee',
    );
    assert.equal(await a.icrc1_balance_of({ owner: ALICE }), 0n);
    assert.equal(
      (await a.icrc3_get_blocks([{ start: 0n, length: 100n }])).log_length,
      2n,
      'refused transfers leave no block',
    );
  });

  it('mints come from the minting account without a fee; burns go to it, at least the fee, without one', async () => {
    const l = await ledger();
    const m = l.as(MINTER);
    assert.deepEqual(await m.icrc1_transfer({ to: { owner: ALICE }, amount: 50n, fee: FEE }), {
      Err: { BadFee: { expected_fee: 0n } },
    });
    assert.deepEqual(await m.icrc1_transfer({ to: { owner: ALICE }, amount: 5n * E8S, fee: 0n }), { Ok: 0n });
    assert.deepEqual(await m.icrc1_transfer({ to: { owner: MINTER }, amount: 1n }), {
      Err: { GenericError: { error_code: 2n, message: 'the minting account cannot transfer to itself' } },
    });
    const a = l.as(ALICE);
    assert.deepEqual(await a.icrc1_transfer({ to: { owner: MINTER }, amount: FEE - 1n }), {
      Err: { BadBurn: { min_burn_amount: FEE } },
    });
    assert.deepEqual(await a.icrc1_transfer({ to: { owner: MINTER }, amount: FEE, fee: FEE }), {
      Err: { BadFee: { expected_fee: 0n } },
    });
    assert.deepEqual(await a.icrc1_transfer({ to: { owner: MINTER }, amount: E8S }), { Ok: 1n });
    assert.equal(await a.icrc1_balance_of({ owner: ALICE }), 4n * E8S, 'a burn charges no fee');
    assert.equal(await a.icrc1_total_supply(), 4n * E8S);
    const types = (await a.icrc3_get_blocks([{ start: 0n, length: 2n }])).blocks.map(
      (b) => (b.block as { Map: Array<[string, { Text: string }]> }).Map[0]![1].Text,
    );
    assert.deepEqual(types, ['1mint', '1burn']);
  });

  it('deduplication: TooOld, CreatedInFuture, Duplicate within the window, a new transaction after it', async () => {
    const l = await ledger([[{ owner: ALICE }, 10n * E8S]]);
    const a = l.as(ALICE);
    const args = { to: { owner: BOB }, amount: E8S, memo: new Uint8Array([9]), created_at_time: NOW0 };
    assert.deepEqual(await a.icrc1_transfer({ ...args, created_at_time: NOW0 - TX_WINDOW - PERMITTED_DRIFT - 1n }), {
      Err: { TooOld: null },
    });
    assert.deepEqual(await a.icrc1_transfer({ ...args, created_at_time: NOW0 + PERMITTED_DRIFT + 1n }), {
      Err: { CreatedInFuture: { ledger_time: NOW0 } },
    });
    assert.deepEqual(await a.icrc1_transfer(args), { Ok: 1n });
    l.clock.now += HOUR;
    assert.deepEqual(
      await a.icrc1_transfer(args),
      { Err: { Duplicate: { duplicate_of: 1n } } },
      'the same transaction within the window',
    );
    assert.deepEqual(
      await a.icrc1_transfer({ ...args, memo: new Uint8Array([10]) }),
      { Ok: 2n },
      'another memo is another transaction',
    );
    assert.deepEqual(
      await a.icrc1_transfer({ ...args, fee: FEE }),
      { Ok: 3n },
      'stating the fee makes it another transaction (the standard compares every field)',
    );
    assert.deepEqual(await l.as(BOB).icrc1_transfer(args), { Ok: 4n }, 'another caller is another transaction');
    const noTime = { to: { owner: BOB }, amount: 1n };
    assert.deepEqual(await a.icrc1_transfer(noTime), { Ok: 5n });
    assert.deepEqual(await a.icrc1_transfer(noTime), { Ok: 6n }, 'without created_at_time nothing is deduplicated');
    assert.equal(await a.icrc1_balance_of({ owner: BOB }), 3n * E8S - FEE + 2n, 'the duplicate moved nothing');
    assert.equal(await a.icrc1_balance_of({ owner: ALICE }), 10n * E8S - 3n * (E8S + FEE) - 2n * (1n + FEE));
    l.clock.now = NOW0 + TX_WINDOW + PERMITTED_DRIFT + 1n;
    assert.deepEqual(
      await a.icrc1_transfer(args),
      { Err: { TooOld: null } },
      'past the window the transaction is too old, never a second payment',
    );
    // Past the window the entries are pruned by later updates.
    assert.ok(l.stores.dedup.size >= 1);
    await a.icrc1_transfer({ to: { owner: BOB }, amount: 1n, created_at_time: l.clock.now });
    assert.equal(l.stores.dedup.size, 1, 'only the new entry is left');
    assert.equal(l.stores.dedup_by_time.size, 1);
  });
});

describe('ICRC-2 (decisions L6–L7)', () => {
  it('approve charges the fee and sets the allowance; transfer_from spends amount + fee from both', async () => {
    const l = await ledger([[{ owner: ALICE }, 10n * E8S]]);
    const a = l.as(ALICE);
    assert.deepEqual(await a.icrc2_approve({ spender: { owner: BOB }, amount: 3n * E8S }), { Ok: 1n });
    assert.equal(await a.icrc1_balance_of({ owner: ALICE }), 10n * E8S - FEE);
    assert.deepEqual(await a.icrc2_allowance({ account: { owner: ALICE }, spender: { owner: BOB } }), {
      allowance: 3n * E8S,
    });
    const b = l.as(BOB);
    assert.deepEqual(await b.icrc2_transfer_from({ from: { owner: ALICE }, to: { owner: CAROL }, amount: E8S }), {
      Ok: 2n,
    });
    assert.equal(await b.icrc1_balance_of({ owner: CAROL }), E8S);
    assert.equal(await b.icrc1_balance_of({ owner: ALICE }), 9n * E8S - 2n * FEE);
    assert.deepEqual(await a.icrc2_allowance({ account: { owner: ALICE }, spender: { owner: BOB } }), {
      allowance: 2n * E8S - FEE,
    });
    assert.deepEqual(
      await b.icrc2_transfer_from({ from: { owner: ALICE }, to: { owner: CAROL }, amount: 2n * E8S - FEE }),
      { Err: { InsufficientAllowance: { allowance: 2n * E8S - FEE } } },
      'the fee needs allowance too',
    );
    assert.deepEqual(
      await b.icrc2_transfer_from({ from: { owner: ALICE }, to: { owner: CAROL }, amount: 2n * E8S - 2n * FEE }),
      { Ok: 3n },
    );
    assert.deepEqual(
      await a.icrc2_allowance({ account: { owner: ALICE }, spender: { owner: BOB } }),
      { allowance: 0n },
      'used up',
    );
    assert.deepEqual(
      await l.as(CAROL).icrc2_transfer_from({ from: { owner: ALICE }, to: { owner: CAROL }, amount: 1n }),
      { Err: { InsufficientAllowance: { allowance: 0n } } },
      'no allowance for another spender',
    );
    // A spender with a subaccount is another spender.
    assert.deepEqual(await a.icrc2_approve({ spender: { owner: BOB, subaccount: sub(1) }, amount: E8S }), { Ok: 4n });
    assert.deepEqual(await b.icrc2_transfer_from({ from: { owner: ALICE }, to: { owner: BOB }, amount: 1n }), {
      Err: { InsufficientAllowance: { allowance: 0n } },
    });
    assert.deepEqual(
      await b.icrc2_transfer_from({
        spender_subaccount: sub(1),
        from: { owner: ALICE },
        to: { owner: BOB },
        amount: 1n,
      }),
      { Ok: 5n },
    );
    const btypes = (await a.icrc3_get_blocks([{ start: 0n, length: 10n }])).blocks.map(
      (x) => (x.block as { Map: Array<[string, { Text: string }]> }).Map[0]![1].Text,
    );
    assert.deepEqual(btypes, ['1mint', '2approve', '2xfer', '2xfer', '2approve', '2xfer']);
  });

  it('approve errors: BadFee, InsufficientFunds, Expired, AllowanceChanged, TooOld, CreatedInFuture, Duplicate, GenericError', async () => {
    const l = await ledger([
      [{ owner: ALICE }, E8S],
      [{ owner: CAROL }, FEE - 1n],
    ]);
    const a = l.as(ALICE);
    const spender = { owner: BOB };
    assert.deepEqual(await a.icrc2_approve({ spender, amount: 5n, fee: 1n }), {
      Err: { BadFee: { expected_fee: FEE } },
    });
    assert.deepEqual(await l.as(CAROL).icrc2_approve({ spender, amount: 5n }), {
      Err: { InsufficientFunds: { balance: FEE - 1n } },
    });
    assert.deepEqual(await a.icrc2_approve({ spender, amount: 5n, expires_at: NOW0 }), {
      Err: { Expired: { ledger_time: NOW0 } },
    });
    assert.deepEqual(await a.icrc2_approve({ spender, amount: 5n, expected_allowance: 1n }), {
      Err: { AllowanceChanged: { current_allowance: 0n } },
    });
    assert.deepEqual(await a.icrc2_approve({ spender, amount: 5n, expected_allowance: 0n, created_at_time: NOW0 }), {
      Ok: 2n,
    });
    assert.deepEqual(await a.icrc2_approve({ spender, amount: 5n, expected_allowance: 0n, created_at_time: NOW0 }), {
      Err: { Duplicate: { duplicate_of: 2n } },
    });
    assert.deepEqual(await a.icrc2_approve({ spender, amount: 7n, expected_allowance: 0n }), {
      Err: { AllowanceChanged: { current_allowance: 5n } },
    });
    assert.deepEqual(
      await a.icrc2_approve({ spender, amount: 7n, expected_allowance: 5n }),
      { Ok: 3n },
      'compare-and-set',
    );
    assert.deepEqual(await a.icrc2_approve({ spender, amount: 1n, created_at_time: 1n }), { Err: { TooOld: null } });
    assert.deepEqual(await a.icrc2_approve({ spender, amount: 1n, created_at_time: NOW0 + HOUR }), {
      Err: { CreatedInFuture: { ledger_time: NOW0 } },
    });
    assert.deepEqual(await a.icrc2_approve({ spender: { owner: ALICE }, amount: 1n }), {
      Err: { GenericError: { error_code: 2n, message: 'an account cannot approve itself' } },
    });
    assert.deepEqual(await l.as(MINTER).icrc2_approve({ spender, amount: 1n }), {
      Err: { GenericError: { error_code: 2n, message: 'the minting account cannot approve' } },
    });
    assert.deepEqual(await a.icrc2_allowance({ account: { owner: ALICE }, spender }), { allowance: 7n });
    assert.equal(
      await a.icrc1_balance_of({ owner: ALICE }),
      E8S - 2n * FEE,
      'only the two accepted approvals cost a fee',
    );
  });

  it('an allowance expires at expires_at; a new approve replaces amount and expiry; amount 0 revokes', async () => {
    const l = await ledger([[{ owner: ALICE }, 10n * E8S]]);
    const a = l.as(ALICE);
    const b = l.as(BOB);
    const spender = { owner: BOB };
    assert.deepEqual(await a.icrc2_approve({ spender, amount: E8S, expires_at: NOW0 + HOUR }), { Ok: 1n });
    assert.deepEqual(await a.icrc2_allowance({ account: { owner: ALICE }, spender }), {
      allowance: E8S,
      expires_at: NOW0 + HOUR,
    });
    l.clock.now = NOW0 + HOUR;
    assert.deepEqual(
      await a.icrc2_allowance({ account: { owner: ALICE }, spender }),
      { allowance: 0n },
      'expired at expires_at',
    );
    assert.deepEqual(await b.icrc2_transfer_from({ from: { owner: ALICE }, to: { owner: BOB }, amount: 1n }), {
      Err: { InsufficientAllowance: { allowance: 0n } },
    });
    assert.deepEqual(
      await a.icrc2_approve({ spender, amount: 2n * E8S, expected_allowance: 0n }),
      { Ok: 2n },
      'an expired allowance is 0 for expected_allowance',
    );
    assert.deepEqual(
      await a.icrc2_allowance({ account: { owner: ALICE }, spender }),
      { allowance: 2n * E8S },
      'no expiry now',
    );
    assert.deepEqual(await a.icrc2_approve({ spender, amount: 0n }), { Ok: 3n });
    assert.deepEqual(await a.icrc2_allowance({ account: { owner: ALICE }, spender }), { allowance: 0n });
    assert.equal(l.stores.allowances.size, 0);
  });

  it('transfer_from errors: BadFee, BadBurn, InsufficientFunds, TooOld, CreatedInFuture, Duplicate, GenericError; burns through an allowance', async () => {
    const l = await ledger([[{ owner: ALICE }, 2n * E8S]]);
    const a = l.as(ALICE);
    const b = l.as(BOB);
    assert.deepEqual(await a.icrc2_approve({ spender: { owner: BOB }, amount: 10n * E8S }), { Ok: 1n });
    const from = { owner: ALICE };
    assert.deepEqual(await b.icrc2_transfer_from({ from, to: { owner: CAROL }, amount: 1n, fee: 0n }), {
      Err: { BadFee: { expected_fee: FEE } },
    });
    assert.deepEqual(await b.icrc2_transfer_from({ from, to: { owner: MINTER }, amount: 1n }), {
      Err: { BadBurn: { min_burn_amount: FEE } },
    });
    assert.deepEqual(await b.icrc2_transfer_from({ from, to: { owner: CAROL }, amount: 2n * E8S }), {
      Err: { InsufficientFunds: { balance: 2n * E8S - FEE } },
    });
    assert.deepEqual(await b.icrc2_transfer_from({ from, to: { owner: CAROL }, amount: 1n, created_at_time: 5n }), {
      Err: { TooOld: null },
    });
    assert.deepEqual(
      await b.icrc2_transfer_from({ from, to: { owner: CAROL }, amount: 1n, created_at_time: NOW0 + HOUR }),
      {
        Err: { CreatedInFuture: { ledger_time: NOW0 } },
      },
    );
    assert.deepEqual(
      await b.icrc2_transfer_from({
        from,
        to: { owner: CAROL },
        amount: 1n,
        created_at_time: NOW0,
        memo: new Uint8Array([1]),
      }),
      { Ok: 2n },
    );
    assert.deepEqual(
      await b.icrc2_transfer_from({
        from,
        to: { owner: CAROL },
        amount: 1n,
        created_at_time: NOW0,
        memo: new Uint8Array([1]),
      }),
      {
        Err: { Duplicate: { duplicate_of: 2n } },
      },
    );
    assert.deepEqual(await b.icrc2_transfer_from({ from: { owner: MINTER }, to: { owner: CAROL }, amount: 1n }), {
      Err: { GenericError: { error_code: 2n, message: 'the minting account cannot be the source of transfer_from' } },
    });
    assert.deepEqual(
      await b.icrc2_transfer_from({ from, to: { owner: MINTER }, amount: E8S }),
      { Ok: 3n },
      'a burn through an allowance',
    );
    assert.deepEqual(
      await a.icrc2_allowance({ account: from, spender: { owner: BOB } }),
      { allowance: 9n * E8S - 1n - FEE },
      'a burn charges no fee',
    );
    assert.equal(await a.icrc1_total_supply(), E8S - 2n * FEE);
    assert.deepEqual(
      await a.icrc2_transfer_from({ from, to: { owner: CAROL }, amount: 5n }),
      { Ok: 4n },
      'the owner spends without an allowance',
    );
  });
});

describe('ICRC-3 style block log (decision L5)', () => {
  it('icrc3_get_blocks reads ranges of the log; supported block types are listed', async () => {
    const l = await ledger([[{ owner: ALICE }, E8S]]);
    for (let i = 0; i < 4; i++) await l.as(ALICE).icrc1_transfer({ to: { owner: BOB }, amount: BigInt(i + 1) });
    const r = await l.as(BOB).icrc3_get_blocks([
      { start: 1n, length: 2n },
      { start: 4n, length: 9n },
      { start: 99n, length: 1n },
    ]);
    assert.equal(r.log_length, 5n);
    assert.deepEqual(
      r.blocks.map((b) => b.id),
      [1n, 2n, 4n],
    );
    assert.deepEqual(r.archived_blocks, []);
    assert.deepEqual(
      (await l.as(BOB).icrc3_supported_block_types()).map((t) => t.block_type),
      ['1mint', '1burn', '1xfer', '2approve', '2xfer'],
    );
  });
});

describe('every nat argument is a nat in the core (decision L24)', () => {
  it('a negative (or non-integer) amount, fee, expected_allowance, time or block range is a rejected call that changes nothing; 0 and 2^64 − 1 are the limits', async () => {
    const l = await ledger([[{ owner: ALICE }, 10n * E8S]]);
    const a = l.as(ALICE);
    const b = l.as(BOB);
    assert.deepEqual(await a.icrc2_approve({ spender: { owner: BOB }, amount: E8S }), { Ok: 1n });
    const state = async () => [
      await a.icrc1_balance_of({ owner: ALICE }),
      await a.icrc1_balance_of({ owner: BOB }),
      await a.icrc1_total_supply(),
      await a.icrc2_allowance({ account: { owner: ALICE }, spender: { owner: BOB } }),
      (await a.icrc3_get_blocks([{ start: 0n, length: 100n }])).log_length,
    ];
    const before = await state();
    const refused = (field: string) => new RegExp(`^InvalidArgument: ${field} must be a nat`);
    const to = { owner: BOB };
    const from = { owner: ALICE };
    const cases: Array<[string, () => Promise<unknown>]> = [
      ['amount', () => a.icrc1_transfer({ to, amount: -5n })],
      ['amount', () => a.icrc1_transfer({ to, amount: -1n })],
      ['fee', () => a.icrc1_transfer({ to, amount: 1n, fee: -1n })],
      ['created_at_time', () => a.icrc1_transfer({ to, amount: 1n, created_at_time: -1n })],
      ['amount', () => a.icrc1_transfer({ to, amount: 5 as unknown as bigint })],
      ['amount', () => a.icrc2_approve({ spender: to, amount: -100n })],
      ['expected_allowance', () => a.icrc2_approve({ spender: to, amount: 1n, expected_allowance: -1n })],
      ['expires_at', () => a.icrc2_approve({ spender: to, amount: 1n, expires_at: -1n })],
      ['fee', () => a.icrc2_approve({ spender: to, amount: 1n, fee: -FEE })],
      ['created_at_time', () => a.icrc2_approve({ spender: to, amount: 1n, created_at_time: -1n })],
      ['amount', () => b.icrc2_transfer_from({ from, to, amount: -1n })],
      ['fee', () => b.icrc2_transfer_from({ from, to, amount: 1n, fee: -1n })],
      ['created_at_time', () => b.icrc2_transfer_from({ from, to, amount: 1n, created_at_time: -1n })],
      ['start', () => a.icrc3_get_blocks([{ start: -1n, length: 1n }])],
      ['length', () => a.icrc3_get_blocks([{ start: 0n, length: -1n }])],
    ];
    for (const [field, call] of cases)
      await assert.rejects(
        call(),
        (e: Error) => e.name === 'CanisterReject' && refused(field).test(e.message),
        `${field}: ${call.toString()}`,
      );
    await assert.rejects(
      a.icrc1_transfer({ to, amount: 1n, created_at_time: 1n << 64n }),
      /InvalidArgument: created_at_time must be a nat64/,
    );
    await assert.rejects(
      a.icrc2_approve({ spender: to, amount: 1n, expires_at: 1n << 64n }),
      /InvalidArgument: expires_at must be a nat64/,
    );
    assert.deepEqual(await state(), before, 'nothing moved, no fee, no allowance changed, no block');
    // At the limits: 0 is a nat, 2^64 − 1 a nat64.
    assert.deepEqual(await a.icrc1_transfer({ to, amount: 0n, created_at_time: (1n << 64n) - 1n }), {
      Err: { CreatedInFuture: { ledger_time: NOW0 } },
    });
    assert.deepEqual(await a.icrc1_transfer({ to, amount: 0n }), { Ok: 2n });
    assert.deepEqual(
      await a.icrc2_approve({ spender: to, amount: 0n, expected_allowance: E8S, expires_at: (1n << 64n) - 1n }),
      { Ok: 3n },
    );
    assert.equal((await a.icrc3_get_blocks([{ start: 0n, length: 0n }])).blocks.length, 0);
  });
});

describe('every ledger limit at the limit and one unit past it (decisions L1–L8)', () => {
  it('the deduplication window: created exactly window + drift ago is accepted, one ns earlier is TooOld; exactly drift ahead is accepted, one ns more is CreatedInFuture', async () => {
    const l = await ledger([[{ owner: ALICE }, 10n * E8S]]);
    const a = l.as(ALICE);
    const to = { owner: BOB };
    assert.deepEqual(
      await a.icrc1_transfer({ to, amount: 1n, created_at_time: NOW0 - TX_WINDOW - PERMITTED_DRIFT - 1n }),
      { Err: { TooOld: null } },
    );
    assert.deepEqual(await a.icrc1_transfer({ to, amount: 1n, created_at_time: NOW0 - TX_WINDOW - PERMITTED_DRIFT }), {
      Ok: 1n,
    });
    assert.deepEqual(await a.icrc1_transfer({ to, amount: 1n, created_at_time: NOW0 + PERMITTED_DRIFT + 1n }), {
      Err: { CreatedInFuture: { ledger_time: NOW0 } },
    });
    assert.deepEqual(await a.icrc1_transfer({ to, amount: 1n, created_at_time: NOW0 + PERMITTED_DRIFT }), { Ok: 2n });
    const spender = { owner: CAROL };
    assert.deepEqual(
      await a.icrc2_approve({ spender, amount: 1n, created_at_time: NOW0 - TX_WINDOW - PERMITTED_DRIFT - 1n }),
      { Err: { TooOld: null } },
    );
    assert.deepEqual(
      await a.icrc2_approve({ spender, amount: 1n, created_at_time: NOW0 - TX_WINDOW - PERMITTED_DRIFT }),
      { Ok: 3n },
    );
    assert.deepEqual(await a.icrc2_approve({ spender, amount: 2n, created_at_time: NOW0 + PERMITTED_DRIFT + 1n }), {
      Err: { CreatedInFuture: { ledger_time: NOW0 } },
    });
    assert.deepEqual(await a.icrc2_approve({ spender, amount: 2n, created_at_time: NOW0 + PERMITTED_DRIFT }), {
      Ok: 4n,
    });
  });

  it('a transaction re-sent exactly at window + drift, after other updates pruned the log, is still a Duplicate (never a second payment)', async () => {
    const l = await ledger([[{ owner: ALICE }, 10n * E8S]]);
    const a = l.as(ALICE);
    const args = { to: { owner: BOB }, amount: E8S, created_at_time: NOW0 };
    assert.deepEqual(await a.icrc1_transfer(args), { Ok: 1n });
    l.clock.now = NOW0 + TX_WINDOW + PERMITTED_DRIFT;
    assert.deepEqual(await a.icrc1_transfer({ to: { owner: CAROL }, amount: 1n }), { Ok: 2n }, 'an update that prunes');
    assert.deepEqual(await a.icrc1_transfer(args), { Err: { Duplicate: { duplicate_of: 1n } } });
    l.clock.now += 1n;
    assert.deepEqual(await a.icrc1_transfer({ to: { owner: CAROL }, amount: 1n }), { Ok: 3n });
    assert.equal(l.stores.dedup.size, 0, 'one ns later the entry can no longer match and is pruned');
    assert.deepEqual(await a.icrc1_transfer(args), { Err: { TooOld: null } });
  });

  it('the deduplication key holds every field: two transactions differing in one field only are both executed', async () => {
    const l = await ledger([
      [{ owner: ALICE }, 10n * E8S],
      [{ owner: ALICE, subaccount: sub(1) }, E8S],
      [{ owner: CAROL }, E8S],
    ]);
    const a = l.as(ALICE);
    const b = l.as(BOB);
    const t = { to: { owner: BOB }, amount: 5n, created_at_time: NOW0 };
    let i = 3n; // after the three initial mints
    const ok = async (p: Promise<unknown>, what: string) => assert.deepEqual(await p, { Ok: i++ }, what);
    await ok(a.icrc1_transfer(t), 'transfer');
    await ok(a.icrc1_transfer({ ...t, to: { owner: CAROL } }), 'transfer: another recipient');
    await ok(
      a.icrc1_transfer({ ...t, to: { owner: BOB, subaccount: sub(2) } }),
      'transfer: another recipient subaccount',
    );
    await ok(a.icrc1_transfer({ ...t, amount: 6n }), 'transfer: another amount');
    await ok(a.icrc1_transfer({ ...t, from_subaccount: sub(1) }), 'transfer: another source subaccount');
    await ok(a.icrc1_transfer({ ...t, created_at_time: NOW0 - 1n }), 'transfer: another time');
    const ap = { spender: { owner: BOB }, amount: 50n, created_at_time: NOW0 };
    await ok(a.icrc2_approve(ap), 'approve');
    await ok(a.icrc2_approve({ ...ap, spender: { owner: CAROL } }), 'approve: another spender');
    await ok(a.icrc2_approve({ ...ap, amount: 51n }), 'approve: another amount');
    await ok(a.icrc2_approve({ ...ap, amount: 51n, expected_allowance: 51n }), 'approve: an expected allowance');
    await ok(a.icrc2_approve({ ...ap, amount: 51n, expires_at: NOW0 + HOUR }), 'approve: an expiry');
    await ok(a.icrc2_approve({ ...ap, amount: 51n, expires_at: NOW0 + HOUR, fee: FEE }), 'approve: the fee stated');
    await ok(
      a.icrc2_approve({ ...ap, amount: 51n, expires_at: NOW0 + HOUR, fee: FEE, memo: new Uint8Array([1]) }),
      'approve: a memo',
    );
    await ok(
      a.icrc2_approve({
        ...ap,
        amount: 51n,
        expires_at: NOW0 + HOUR,
        fee: FEE,
        memo: new Uint8Array([1]),
        created_at_time: NOW0 - 1n,
      }),
      'approve: another time',
    );
    await ok(l.as(CAROL).icrc2_approve(ap), 'approve: another owner');
    await ok(
      a.icrc2_approve({ ...ap, spender: { owner: BOB, subaccount: sub(3) }, amount: E8S }),
      'approve: the spender subaccount',
    );
    await ok(a.icrc2_approve({ spender: { owner: BOB }, amount: E8S }), 'an allowance for the transfers from');
    const tf = { from: { owner: ALICE }, to: { owner: CAROL }, amount: 1n, created_at_time: NOW0 };
    await ok(b.icrc2_transfer_from(tf), 'transfer_from');
    await ok(b.icrc2_transfer_from({ ...tf, to: { owner: BOB } }), 'transfer_from: another recipient');
    await ok(b.icrc2_transfer_from({ ...tf, amount: 2n }), 'transfer_from: another amount');
    await ok(b.icrc2_transfer_from({ ...tf, fee: FEE }), 'transfer_from: the fee stated');
    await ok(b.icrc2_transfer_from({ ...tf, memo: new Uint8Array([1]) }), 'transfer_from: a memo');
    await ok(b.icrc2_transfer_from({ ...tf, created_at_time: NOW0 - 1n }), 'transfer_from: another time');
    await ok(b.icrc2_transfer_from({ ...tf, spender_subaccount: sub(3) }), 'transfer_from: the spender subaccount');
    await ok(
      a.icrc2_approve({ spender: { owner: BOB }, amount: E8S, from_subaccount: sub(1) }),
      'an allowance on the subaccount',
    );
    await ok(
      b.icrc2_transfer_from({ ...tf, from: { owner: ALICE, subaccount: sub(1) } }),
      'transfer_from: another source',
    );
    await ok(
      l.as(CAROL).icrc2_transfer_from({ ...tf, from: { owner: CAROL }, to: { owner: BOB } }),
      'transfer_from: another spender (its own account)',
    );
  });

  it('a burn of exactly the fee is accepted, one e8 less is BadBurn (transfer and transfer_from)', async () => {
    const l = await ledger([[{ owner: ALICE }, E8S]]);
    const a = l.as(ALICE);
    assert.deepEqual(await a.icrc1_transfer({ to: { owner: MINTER }, amount: FEE - 1n }), {
      Err: { BadBurn: { min_burn_amount: FEE } },
    });
    assert.deepEqual(await a.icrc1_transfer({ to: { owner: MINTER }, amount: FEE }), { Ok: 1n });
    assert.deepEqual(await a.icrc2_approve({ spender: { owner: BOB }, amount: E8S }), { Ok: 2n });
    assert.deepEqual(
      await l.as(BOB).icrc2_transfer_from({ from: { owner: ALICE }, to: { owner: MINTER }, amount: FEE - 1n }),
      {
        Err: { BadBurn: { min_burn_amount: FEE } },
      },
    );
    assert.deepEqual(
      await l.as(BOB).icrc2_transfer_from({ from: { owner: ALICE }, to: { owner: MINTER }, amount: FEE }),
      { Ok: 3n },
    );
    assert.equal(await a.icrc1_total_supply(), E8S - 3n * FEE);
  });

  it('transfer_from: an allowance of exactly amount + fee suffices, one e8 less is InsufficientAllowance; a balance of exactly amount + fee suffices, one e8 less is InsufficientFunds', async () => {
    const l = await ledger([
      [{ owner: ALICE }, 10n * E8S],
      [{ owner: CAROL }, 100n + 2n * FEE - 1n],
    ]);
    const a = l.as(ALICE);
    const b = l.as(BOB);
    assert.deepEqual(await a.icrc2_approve({ spender: { owner: BOB }, amount: 100n + FEE - 1n }), { Ok: 2n });
    assert.deepEqual(await b.icrc2_transfer_from({ from: { owner: ALICE }, to: { owner: BOB }, amount: 100n }), {
      Err: { InsufficientAllowance: { allowance: 100n + FEE - 1n } },
    });
    assert.deepEqual(await a.icrc2_approve({ spender: { owner: BOB }, amount: 100n + FEE }), { Ok: 3n });
    assert.deepEqual(await b.icrc2_transfer_from({ from: { owner: ALICE }, to: { owner: BOB }, amount: 100n }), {
      Ok: 4n,
    });
    assert.deepEqual(await a.icrc2_allowance({ account: { owner: ALICE }, spender: { owner: BOB } }), {
      allowance: 0n,
    });
    // CAROL approves (one fee), then holds 100 + fee − 1.
    const c = l.as(CAROL);
    assert.deepEqual(await c.icrc2_approve({ spender: { owner: BOB }, amount: E8S }), { Ok: 5n });
    assert.deepEqual(await b.icrc2_transfer_from({ from: { owner: CAROL }, to: { owner: BOB }, amount: 100n }), {
      Err: { InsufficientFunds: { balance: 100n + FEE - 1n } },
    });
    assert.deepEqual(await b.icrc2_transfer_from({ from: { owner: CAROL }, to: { owner: BOB }, amount: 99n }), {
      Ok: 6n,
    });
    assert.equal(await a.icrc1_balance_of({ owner: CAROL }), 0n);
  });

  it('approve: a balance of exactly the fee suffices, one e8 less is InsufficientFunds; expires_at one ns ahead is accepted, now is Expired; the allowance is whole one ns before expires_at and gone at it', async () => {
    const l = await ledger([
      [{ owner: ALICE }, E8S],
      [{ owner: CAROL }, FEE],
    ]);
    const a = l.as(ALICE);
    const spender = { owner: BOB };
    assert.deepEqual(await l.as(CAROL).icrc2_approve({ spender, amount: 5n }), { Ok: 2n });
    assert.equal(await a.icrc1_balance_of({ owner: CAROL }), 0n);
    assert.deepEqual(await l.as(CAROL).icrc2_approve({ spender, amount: 6n }), {
      Err: { InsufficientFunds: { balance: 0n } },
    });
    assert.deepEqual(await a.icrc2_approve({ spender, amount: 5n, expires_at: NOW0 }), {
      Err: { Expired: { ledger_time: NOW0 } },
    });
    assert.deepEqual(await a.icrc2_approve({ spender, amount: 5n, expires_at: NOW0 + 1n }), { Ok: 3n });
    assert.deepEqual(
      await a.icrc2_allowance({ account: { owner: ALICE }, spender }),
      { allowance: 5n, expires_at: NOW0 + 1n },
      'one ns before expires_at',
    );
    l.clock.now = NOW0 + 1n;
    assert.deepEqual(
      await a.icrc2_allowance({ account: { owner: ALICE }, spender }),
      { allowance: 0n },
      'at expires_at',
    );
  });

  it('a memo of exactly 32 bytes is accepted, 33 is refused', async () => {
    const l = await ledger([[{ owner: ALICE }, E8S]]);
    const a = l.as(ALICE);
    assert.deepEqual(await a.icrc1_transfer({ to: { owner: BOB }, amount: 1n, memo: new Uint8Array(33) }), {
      Err: { GenericError: { error_code: 1n, message: 'the memo is 33 bytes, above the limit of 32' } },
    });
    assert.deepEqual(await a.icrc1_transfer({ to: { owner: BOB }, amount: 1n, memo: new Uint8Array(32) }), { Ok: 1n });
  });

  it('decision L42: icrc3_get_blocks answers at most 100 blocks per call, as DFINITY’s ledger, over all its ranges', async () => {
    assert.equal(MAX_BLOCKS_PER_REQUEST, 100n);
    const n = Number(MAX_BLOCKS_PER_REQUEST);
    const l = await ledger(
      Array.from({ length: n + 1 }, (_, i) => [{ owner: party(100 + (i % 50)) }, 1n] as [{ owner: string }, bigint]),
    );
    const q = l.as(ALICE);
    assert.equal((await q.icrc3_get_blocks([{ start: 0n, length: MAX_BLOCKS_PER_REQUEST + 1n }])).blocks.length, n);
    assert.equal(
      (await q.icrc3_get_blocks([{ start: 1n, length: MAX_BLOCKS_PER_REQUEST }])).blocks.length,
      n,
      'exactly the limit',
    );
    const split = await q.icrc3_get_blocks([
      { start: 0n, length: 1000n },
      { start: 1000n, length: 1000n },
      { start: 2000n, length: 1n },
    ]);
    assert.deepEqual(
      [split.blocks.length, split.blocks.at(-1)!.id],
      [n, MAX_BLOCKS_PER_REQUEST - 1n],
      'the budget is shared by the ranges',
    );
  });
});

describe('archive mode (decision L43)', () => {
  const mints = (n: number) =>
    Array.from(
      { length: n },
      (_, i) => [{ owner: party(200 + (i % 7)) }, BigInt(i + 1)] as [{ owner: string }, bigint],
    );
  const ids = (r: { blocks: Array<{ id: bigint }> }) => r.blocks.map((b) => Number(b.id));
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

  it('the ledger answers its newest local_blocks blocks and names the older ones by the callback get_archived_blocks on itself; the archive answers those and nothing else', async () => {
    const l = await ledger(mints(250), { archive: { local_blocks: 100n } });
    const q = l.as(ALICE);
    // Blocks 0–149 are archived, 150–249 answered by the ledger.
    const r = await q.icrc3_get_blocks([{ start: 120n, length: 100n }]);
    assert.equal(r.log_length, 250n);
    assert.deepEqual(ids(r), range(150, 220));
    assert.deepEqual(r.archived_blocks, [{ args: [{ start: 120n, length: 30n }], callback: [LEDGER, ARCHIVE_METHOD] }]);
    const archived = await q.get_archived_blocks(r.archived_blocks[0]!.args);
    assert.deepEqual([archived.log_length, ids(archived), archived.archived_blocks], [250n, range(120, 150), []]);
    // The same blocks either way: the archive's are the ledger's.
    const plain = await ledger(mints(250));
    assert.deepEqual(archived.blocks, (await plain.as(ALICE).icrc3_get_blocks([{ start: 120n, length: 30n }])).blocks);
    assert.deepEqual(
      await q.get_archived_blocks([{ start: 140n, length: 100n }]).then(ids),
      range(140, 150),
      'nothing at or above the boundary',
    );
    assert.deepEqual(await q.icrc3_get_archives({}), [{ canister_id: LEDGER, start: 0n, end: 149n }]);
    assert.deepEqual(await q.icrc3_get_archives({ from: LEDGER }), [], 'no archive after the last one');
  });

  it('the boundary at the limit and one past it: local_blocks blocks are all local, one more archives block 0; the 100-block budget caps archived ranges too', async () => {
    const exactly = await ledger(mints(100), { archive: { local_blocks: 100n } });
    const all = await exactly.as(ALICE).icrc3_get_blocks([{ start: 0n, length: 100n }]);
    assert.deepEqual(
      [ids(all), all.archived_blocks, await exactly.as(ALICE).icrc3_get_archives({})],
      [range(0, 100), [], []],
    );
    const onePast = await ledger(mints(101), { archive: { local_blocks: 100n } });
    const r = await onePast.as(ALICE).icrc3_get_blocks([{ start: 0n, length: 1000n }]);
    assert.deepEqual(
      ids(r),
      range(1, 100),
      'the budget of 100 covers the archived block as DFINITY’s ledger counts it: the ranges are cut first',
    );
    assert.deepEqual(r.archived_blocks[0]!.args, [{ start: 0n, length: 1n }]);
    const split = await onePast.as(ALICE).icrc3_get_blocks([
      { start: 0n, length: 1n },
      { start: 50n, length: 100n },
    ]);
    assert.deepEqual(
      [ids(split), split.archived_blocks[0]!.args],
      [range(50, 150).filter((i) => i < 101), [{ start: 0n, length: 1n }]],
    );
    const none = await ledger(mints(101));
    assert.deepEqual(
      (await none.as(ALICE).icrc3_get_blocks([{ start: 0n, length: 1n }])).archived_blocks,
      [],
      'no archive mode: nothing archived',
    );
    assert.deepEqual(
      ids(await none.as(ALICE).get_archived_blocks([{ start: 0n, length: 10n }])),
      [],
      'nor answered by the archive method',
    );
  });

  it('archive mode takes a nat64 local_blocks: a negative one is refused at init', async () => {
    await assert.rejects(
      ledger(mints(1), { archive: { local_blocks: -1n } }),
      /InvalidArgument: archive.local_blocks must be a nat/,
    );
  });
});
