// The rules the ICRC-1, ICRC-2, ICRC-3 and ICRC-10 texts state that DFINITY's suite leaves out
// (decision L28): fees, the memo limit, the deduplication window and drift, minting and burning,
// approvals with expected_allowance and expires_at, transfer_from's allowance arithmetic, the block
// log's hash chain and certified tip. Same LedgerEnv, both hosts.
import assert from 'node:assert/strict';
import {
  allowance,
  balance,
  blockAt,
  DRIFT,
  fee,
  field,
  fill,
  fork,
  funded,
  logLength,
  nat,
  NS as NS_PER_S,
  ok,
  ROOT,
  text,
  WINDOW,
  type Case,
} from './cases.ts';
import { verifyChain, type Value } from './verify.ts';

const memo = (n: number) => new Uint8Array(n).fill(7);

export const RULES: Case[] = [
  {
    name: 'icrc1 fees: omitted or stated exactly, burned (the supply drops by the fee); a wrong fee is BadFee and moves nothing',
    async run(env) {
      const f = await fee(env);
      const [p1, p2] = [await funded(env, 10n * f), fork()];
      const l = env.ledger(p1);
      const supply = await l.icrc1_total_supply();
      ok(await l.icrc1_transfer({ to: { owner: p2 }, amount: f }), 'fee omitted');
      ok(await l.icrc1_transfer({ to: { owner: p2 }, amount: f, fee: f }), 'fee stated');
      assert.equal(await l.icrc1_total_supply(), supply - 2n * f, 'fees are burned (decision L3)');
      for (const wrong of [0n, f - 1n, f + 1n])
        assert.deepEqual(await l.icrc1_transfer({ to: { owner: p2 }, amount: 1n, fee: wrong }), {
          Err: { BadFee: { expected_fee: f } },
        });
      assert.equal(await balance(env, p1), 10n * f - 4n * f);
      assert.equal(await balance(env, p2), 2n * f);
      // ICRC-3: the fee the ledger chose is at the top of the block, a stated fee in tx.
      const last = await blockAt(env, (await logLength(env)) - 1n);
      const tx = field(last, 'tx')!;
      assert.equal(nat(field(tx, 'fee')), f);
      assert.equal(field(last, 'fee'), undefined);
      assert.equal(nat(field(await blockAt(env, (await logLength(env)) - 2n), 'fee')), f);
    },
  },
  {
    name: 'icrc1 memo: 32 bytes accepted, 33 refused with GenericError on transfer, approve and transfer_from; nothing moves',
    async run(env) {
      const f = await fee(env);
      const [p1, p2] = [await funded(env, 10n * f), fork()];
      const length = await logLength(env);
      const refused = {
        Err: { GenericError: { error_code: 1n, message: 'the memo is 33 bytes, above the limit of 32' } },
      };
      assert.deepEqual(await env.ledger(p1).icrc1_transfer({ to: { owner: p2 }, amount: f, memo: memo(33) }), refused);
      assert.deepEqual(
        await env.ledger(p1).icrc2_approve({ spender: { owner: p2 }, amount: f, memo: memo(33) }),
        refused,
      );
      assert.deepEqual(
        await env.ledger(p2).icrc2_transfer_from({ from: { owner: p1 }, to: { owner: p2 }, amount: f, memo: memo(33) }),
        refused,
      );
      assert.equal(await logLength(env), length, 'no block');
      assert.equal(await balance(env, p1), 10n * f);
      ok(await env.ledger(p1).icrc1_transfer({ to: { owner: p2 }, amount: f, memo: memo(32) }), 'a 32-byte memo');
      const tx = field(await blockAt(env, length), 'tx')!;
      assert.deepEqual(field(tx, 'memo'), { Blob: memo(32) }, 'the memo is in the block as given');
    },
  },
  {
    name: 'icrc1 deduplication window: created window + drift ago is accepted, one ns earlier TooOld; drift ahead accepted, one ns more CreatedInFuture {ledger_time}; a repeat past the window is TooOld, never a second payment',
    async run(env) {
      const f = await fee(env);
      const [p1, p2] = [await funded(env, 10n * f), fork()];
      const l = env.ledger(p1);
      const now = env.time();
      const t = (created_at_time: bigint) => l.icrc1_transfer({ to: { owner: p2 }, amount: 1n, created_at_time });
      assert.deepEqual(await t(now - WINDOW - DRIFT - 1n), { Err: { TooOld: null } });
      ok(await t(now - WINDOW - DRIFT), 'exactly window + drift ago');
      ok(await t(now + DRIFT), 'exactly drift ahead');
      assert.deepEqual(await t(now + DRIFT + 1n), { Err: { CreatedInFuture: { ledger_time: now } } });
      const first = ok(await t(now), 'now');
      env.advance(WINDOW);
      assert.deepEqual(await t(now), { Err: { Duplicate: { duplicate_of: first } } }, 'still within window + drift');
      env.advance(DRIFT + 1n);
      assert.deepEqual(
        await t(now),
        { Err: { TooOld: null } },
        'past the window the repeat is refused, not paid again',
      );
      assert.equal(await balance(env, p2), 3n);
    },
  },
  {
    name: 'icrc1/icrc2 deduplication on every argument as given (decision L4): from_subaccount absent and [0;32], spender {owner} and [0;32] are different transactions; approve and transfer_from repeats are Duplicate',
    async run(env) {
      const f = await fee(env);
      const [p1, p2] = [await funded(env, 20n * f), fork()];
      const l = env.ledger(p1);
      const created_at_time = env.time();
      const t = { to: { owner: p2 }, amount: 1n, created_at_time };
      ok(await l.icrc1_transfer(t), 'from the account');
      ok(await l.icrc1_transfer({ ...t, from_subaccount: new Uint8Array(32) }), 'from_subaccount [0;32]');
      assert.equal(await balance(env, p2), 2n);
      const ap = { spender: { owner: p2 }, amount: 5n * f, created_at_time };
      const approved = ok(await l.icrc2_approve(ap));
      assert.deepEqual(await l.icrc2_approve(ap), { Err: { Duplicate: { duplicate_of: approved } } });
      ok(
        await l.icrc2_approve({ ...ap, spender: { owner: p2, subaccount: new Uint8Array(32) } }),
        'the same spender written with [0;32]',
      );
      const tf = { from: { owner: p1 }, to: { owner: p2 }, amount: 1n, created_at_time };
      const moved = ok(await env.ledger(p2).icrc2_transfer_from(tf));
      assert.deepEqual(await env.ledger(p2).icrc2_transfer_from(tf), { Err: { Duplicate: { duplicate_of: moved } } });
      ok(
        await env.ledger(p2).icrc2_transfer_from({ ...tf, from: { owner: p1, subaccount: new Uint8Array(32) } }),
        'from written with [0;32]',
      );
      assert.equal(await balance(env, p2), 4n);
    },
  },
  {
    name: 'icrc1 mint: the minting account transfers with fee 0 (a stated fee must be 0), the supply grows, a 1mint block without fee',
    async run(env) {
      const f = await fee(env);
      const p1 = fork();
      const m = env.ledger(env.minter);
      const supply = await m.icrc1_total_supply();
      assert.deepEqual(await m.icrc1_transfer({ to: { owner: p1 }, amount: 5n, fee: f }), {
        Err: { BadFee: { expected_fee: 0n } },
      });
      const index = ok(await m.icrc1_transfer({ to: { owner: p1 }, amount: 5n, fee: 0n }));
      ok(await m.icrc1_transfer({ to: { owner: p1 }, amount: 5n }), 'fee omitted');
      assert.equal(await m.icrc1_total_supply(), supply + 10n);
      assert.equal(await balance(env, p1), 10n);
      assert.equal(await balance(env, { owner: env.minter }), 0n);
      const block = await blockAt(env, index);
      assert.equal(text(field(block, 'btype')), '1mint');
      assert.equal(field(block, 'fee'), undefined);
      assert.equal(field(field(block, 'tx')!, 'from'), undefined);
    },
  },
  {
    name: 'icrc1 burn: at least the fee (BadBurn {min_burn_amount} below), no fee charged, the supply drops by the amount, from a subaccount too, a 1burn block',
    async run(env) {
      const f = await fee(env);
      const p1 = await funded(env, 3n * f);
      const minting = (await env.ledger(ROOT).icrc1_minting_account())!;
      const l = env.ledger(p1);
      assert.deepEqual(await l.icrc1_transfer({ to: minting, amount: f - 1n }), {
        Err: { BadBurn: { min_burn_amount: f } },
      });
      assert.deepEqual(await l.icrc1_transfer({ to: minting, amount: f, fee: f }), {
        Err: { BadFee: { expected_fee: 0n } },
      });
      const supply = await l.icrc1_total_supply();
      const index = ok(await l.icrc1_transfer({ to: minting, amount: f }));
      assert.equal(await l.icrc1_total_supply(), supply - f);
      assert.equal(await balance(env, p1), 2n * f);
      ok(await l.icrc1_transfer({ to: { owner: p1, subaccount: fill(9) }, amount: f }), 'to a subaccount');
      ok(await l.icrc1_transfer({ from_subaccount: fill(9), to: minting, amount: f }), 'a burn from a subaccount');
      assert.equal(await balance(env, { owner: p1, subaccount: fill(9) }), 0n);
      assert.equal(await balance(env, p1), 0n);
      const block = await blockAt(env, index);
      assert.equal(text(field(block, 'btype')), '1burn');
      assert.equal(field(field(block, 'tx')!, 'to'), undefined);
    },
  },
  {
    name: 'icrc1 InsufficientFunds {balance}: the amount plus the fee must be covered; exactly the balance less the fee empties the account',
    async run(env) {
      const f = await fee(env);
      const [p1, p2] = [await funded(env, 5n * f), fork()];
      assert.deepEqual(await env.ledger(p1).icrc1_transfer({ to: { owner: p2 }, amount: 4n * f + 1n }), {
        Err: { InsufficientFunds: { balance: 5n * f } },
      });
      ok(await env.ledger(p1).icrc1_transfer({ to: { owner: p2 }, amount: 4n * f }));
      assert.equal(await balance(env, p1), 0n);
    },
  },
  {
    name: 'icrc2 approve replaces the allowance (never adds), each approval costs the fee, amount 0 removes it; an expired allowance counts as 0 for expected_allowance and reads as 0',
    async run(env) {
      const f = await fee(env);
      const [p1, p2] = [await funded(env, 10n * f), fork()];
      const l = env.ledger(p1);
      ok(await l.icrc2_approve({ spender: { owner: p2 }, amount: 100n }));
      ok(await l.icrc2_approve({ spender: { owner: p2 }, amount: 40n }));
      assert.deepEqual(await allowance(env, p1, p2), { allowance: 40n }, 'replaced, not 140');
      ok(await l.icrc2_approve({ spender: { owner: p2 }, amount: 0n }));
      assert.deepEqual(await allowance(env, p1, p2), { allowance: 0n });
      assert.equal(await balance(env, p1), 7n * f, 'three approvals, three fees');
      const expires_at = env.time() + 10n * NS_PER_S;
      ok(await l.icrc2_approve({ spender: { owner: p2 }, amount: 70n, expires_at }));
      assert.deepEqual(await allowance(env, p1, p2), { allowance: 70n, expires_at });
      env.advance(10n * NS_PER_S);
      assert.deepEqual(await allowance(env, p1, p2), { allowance: 0n }, 'expired at expires_at');
      assert.deepEqual(await l.icrc2_approve({ spender: { owner: p2 }, amount: 5n, expected_allowance: 70n }), {
        Err: { AllowanceChanged: { current_allowance: 0n } },
      });
      ok(
        await l.icrc2_approve({ spender: { owner: p2 }, amount: 5n, expected_allowance: 0n }),
        'expected 0 matches the expired allowance',
      );
      assert.deepEqual(await l.icrc2_approve({ spender: { owner: p2 }, amount: 5n, fee: f - 1n }), {
        Err: { BadFee: { expected_fee: f } },
      });
      assert.deepEqual(await l.icrc2_approve({ spender: { owner: p1 }, amount: 5n }), {
        Err: { GenericError: { error_code: 2n, message: 'an account cannot approve itself' } },
      });
      const block = await blockAt(env, (await logLength(env)) - 1n);
      assert.equal(text(field(block, 'btype')), '2approve');
      assert.equal(nat(field(field(block, 'tx')!, 'expected_allowance')), 0n);
    },
  },
  {
    name: 'icrc2 transfer_from arithmetic: amount + fee come off the balance and the allowance; exactly the allowance passes, one more is InsufficientAllowance {allowance}; an expired allowance is 0; the spender subaccount is its own spender',
    async run(env) {
      const f = await fee(env);
      const [p1, p2, p3] = [await funded(env, 100n * f), fork(), fork()];
      const spenderSub = { owner: p2, subaccount: fill(4) };
      ok(await env.ledger(p1).icrc2_approve({ spender: { owner: p2 }, amount: 3n * f }));
      const s = env.ledger(p2);
      const tf = (amount: bigint, spender_subaccount?: Uint8Array) =>
        s.icrc2_transfer_from({
          from: { owner: p1 },
          to: { owner: p3 },
          amount,
          ...(spender_subaccount && { spender_subaccount }),
        });
      ok(await tf(f), 'f + fee of 3f');
      assert.deepEqual(await allowance(env, p1, p2), { allowance: f });
      assert.deepEqual(
        await tf(1n),
        { Err: { InsufficientAllowance: { allowance: f } } },
        'one past the allowance (1 + fee > f)',
      );
      const next = await logLength(env);
      assert.deepEqual(await tf(0n), { Ok: next }, 'exactly the allowance: 0 + fee');
      assert.deepEqual(await allowance(env, p1, p2), { allowance: 0n }, 'used up');
      assert.deepEqual(
        await tf(0n, fill(4)),
        { Err: { InsufficientAllowance: { allowance: 0n } } },
        'the subaccount has no allowance',
      );
      ok(
        await env.ledger(p1).icrc2_approve({ spender: spenderSub, amount: 2n * f, expires_at: env.time() + NS_PER_S }),
      );
      ok(await tf(0n, fill(4)), 'the subaccount spends its own allowance');
      env.advance(NS_PER_S);
      assert.deepEqual(await tf(0n, fill(4)), { Err: { InsufficientAllowance: { allowance: 0n } } }, 'expired');
      assert.equal(
        await balance(env, p1),
        100n * f - 6n * f,
        'two approval fees, 2f + f + f taken by the three transfers from',
      );
      assert.equal(await balance(env, p3), f);
      assert.equal(await balance(env, p2), 0n);
      const block = await blockAt(env, (await logLength(env)) - 1n);
      assert.equal(text(field(block, 'btype')), '2xfer');
      assert.ok(field(field(block, 'tx')!, 'spender'), 'a 2xfer block names its spender');
    },
  },
  {
    name: 'icrc2 transfer_from to the minting account burns through the allowance: at least the fee, no fee charged; the minting account cannot be the source',
    async run(env) {
      const f = await fee(env);
      const [p1, p2] = [await funded(env, 5n * f), fork()];
      const minting = (await env.ledger(ROOT).icrc1_minting_account())!;
      ok(await env.ledger(p1).icrc2_approve({ spender: { owner: p2 }, amount: 2n * f }));
      assert.deepEqual(await env.ledger(p2).icrc2_transfer_from({ from: { owner: p1 }, to: minting, amount: f - 1n }), {
        Err: { BadBurn: { min_burn_amount: f } },
      });
      ok(await env.ledger(p2).icrc2_transfer_from({ from: { owner: p1 }, to: minting, amount: f }));
      assert.deepEqual(await allowance(env, p1, p2), { allowance: f }, 'the burn took the amount only');
      assert.equal(await balance(env, p1), 3n * f);
      assert.deepEqual(await env.ledger(p2).icrc2_transfer_from({ from: minting, to: { owner: p2 }, amount: f }), {
        Err: { GenericError: { error_code: 2n, message: 'the minting account cannot be the source of transfer_from' } },
      });
    },
  },
  {
    name: 'icrc3: supported block types as the standard names them, no archives, archived_blocks empty, log_length and ranges',
    async run(env) {
      const l = env.ledger(ROOT);
      assert.deepEqual((await l.icrc3_supported_block_types()).map((b) => b.block_type).sort(), [
        '1burn',
        '1mint',
        '1xfer',
        '2approve',
        '2xfer',
      ]);
      assert.deepEqual(await l.icrc3_get_archives({}), []);
      assert.deepEqual(await l.icrc3_get_archives({ from: env.ledgerId }), []);
      const length = await logLength(env);
      const r = await l.icrc3_get_blocks([
        { start: 0n, length: 2n },
        { start: length - 1n, length: 5n },
        { start: length + 10n, length: 1n },
      ]);
      assert.equal(r.log_length, length);
      assert.deepEqual(
        r.blocks.map((b) => b.id),
        [0n, 1n, length - 1n],
      );
      assert.deepEqual(r.archived_blocks, []);
    },
  },
  {
    name: "icrc10: icrc10_supported_standards and icrc1_supported_standards list ICRC-1, ICRC-2, ICRC-3, ICRC-10 and ICRC-21; ICRC-10 by the MUST text's own record (decisions L27, L36, L50)",
    async run(env) {
      const l = env.ledger(ROOT);
      const standards = await l.icrc10_supported_standards();
      const names = standards.map((s) => s.name);
      for (const n of ['ICRC-1', 'ICRC-2', 'ICRC-3', 'ICRC-10', 'ICRC-21']) assert.ok(names.includes(n), n);
      assert.deepEqual(
        standards.filter((s) => s.name === 'ICRC-10'),
        [{ name: 'ICRC-10', url: 'https://github.com/dfinity/ICRCs/ICRC-10' }],
      );
      assert.deepEqual(await l.icrc1_supported_standards(), await l.icrc10_supported_standards());
    },
  },
  {
    name: 'icrc3 chain (decision L26): every block recomputed by an independent hash; block 0 has no phash, each later phash is the hash of its parent; the tip certificate certifies the last index and hash',
    async run(env) {
      const l = env.ledger(ROOT);
      const length = await logLength(env);
      const blocks: Value[] = [];
      while (BigInt(blocks.length) < length) {
        const r = await l.icrc3_get_blocks([{ start: BigInt(blocks.length), length: length - BigInt(blocks.length) }]);
        blocks.push(...r.blocks.map((b) => b.block as Value));
      }
      const tipHash = verifyChain(blocks)!;
      await env.checkTipCertificate(await l.icrc3_get_tip_certificate(), length - 1n, tipHash);
      // A changed block breaks the chain at its child.
      const forged = blocks.map((b, i) =>
        i === 1 ? { Map: [...(b as { Map: Array<[string, Value]> }).Map, ['x', { Nat: 1n }] as [string, Value]] } : b,
      );
      assert.throws(() => verifyChain(forged), /block 2: phash is not the hash of block 1/);
    },
  },
];
