// The ICRC-1/ICRC-2 acceptance cases (decision L28): the sixteen of DFINITY's suite (dfinity/ICRC-1
// `test/suite`, `icrc1_test_suite` and `icrc2_test_suite`, same names and checks) and the rules the
// ICRC-1, ICRC-2 and ICRC-3 texts state that the suite leaves out, written once against a
// `LedgerEnv` and run on both hosts (icrc-suite.test.ts). Like the suite, each case funds fresh
// accounts from a root account and looks only at the ledger's public methods.
import assert from 'node:assert/strict';
import type { LedgerClient } from '../../src/api.ts';
import { principalFromSeed } from '../../src/principals.ts';
import { field, type Value } from './verify.ts';

export interface LedgerEnv {
  host: 'embedded' | 'wasm';
  ledgerId: string;
  /** The minting account's owner (governance, decision L6). */
  minter: string;
  ledger(principal: string): LedgerClient;
  time(): bigint;
  advance(ns: bigint): void;
  /** Checks a tip certificate as a client does (wasm), or that the host answers none (embedded). */
  checkTipCertificate(
    tip: Awaited<ReturnType<LedgerClient['icrc3_get_tip_certificate']>>,
    lastIndex: bigint,
    lastHash: Buffer,
  ): Promise<void>;
}

export interface Case {
  name: string;
  run(env: LedgerEnv): Promise<void>;
}

const NS = 1_000_000_000n;
const WINDOW = 24n * 3600n * NS;
const DRIFT = 60n * NS;
const U64_MAX = 2n ** 64n - 1n;
export const ROOT = principalFromSeed('icrc-suite-root');
let forks = 0;
/** A fresh principal with no balance (the suite's `fork`). */
const fork = () => principalFromSeed(`icrc-suite-${forks++}`);
const fill = (n: number) => new Uint8Array(32).fill(n);
const ok = <T>(r: { Ok: T } | { Err: unknown }, what = 'the call'): T => {
  if ('Err' in r)
    assert.fail(
      `${what}: expected Ok, got ${JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}` : v))}`,
    );
  return r.Ok;
};
type Acct = { owner: string; subaccount?: Uint8Array };
const balance = (env: LedgerEnv, a: Acct | string) =>
  env.ledger(ROOT).icrc1_balance_of(typeof a === 'string' ? { owner: a } : a);
const allowance = (env: LedgerEnv, owner: Acct | string, spender: Acct | string) =>
  env.ledger(ROOT).icrc2_allowance({
    account: typeof owner === 'string' ? { owner } : owner,
    spender: typeof spender === 'string' ? { owner: spender } : spender,
  });
const fee = (env: LedgerEnv) => env.ledger(ROOT).icrc1_fee();
/** The suite's setup_test_account: a fresh principal holding `amount`, sent from the root account. */
async function funded(env: LedgerEnv, amount: bigint): Promise<string> {
  const p = fork();
  assert.equal(await balance(env, p), 0n);
  ok(await env.ledger(ROOT).icrc1_transfer({ to: { owner: p }, amount }), 'funding');
  assert.equal(await balance(env, { owner: p }), amount);
  return p;
}
const logLength = async (env: LedgerEnv) => (await env.ledger(ROOT).icrc3_get_blocks([])).log_length;
async function blockAt(env: LedgerEnv, index: bigint): Promise<Value> {
  const r = await env.ledger(ROOT).icrc3_get_blocks([{ start: index, length: 1n }]);
  return r.blocks[0]!.block as Value;
}
const text = (v: Value | undefined) => (v && 'Text' in v ? v.Text : undefined);
const nat = (v: Value | undefined) => (v && 'Nat' in v ? v.Nat : undefined);

/** DFINITY's icrc1_test_suite and icrc2_test_suite, case for case. */
export const SUITE: Case[] = [
  {
    name: 'icrc1:transfer',
    async run(env) {
      const f = await fee(env);
      const amount = 10_000n;
      const p1 = await funded(env, amount + f);
      const p2 = fork();
      ok(await env.ledger(p1).icrc1_transfer({ to: { owner: p2 }, amount }));
      assert.equal(await balance(env, { owner: p2 }), amount);
      assert.equal(
        await balance(env, { owner: p2, subaccount: new Uint8Array(32) }),
        amount,
        'the default subaccount is the account',
      );
      assert.equal(await balance(env, p1), 0n);
    },
  },
  {
    name: 'icrc1:burn',
    async run(env) {
      const minting = await env.ledger(ROOT).icrc1_minting_account();
      assert.ok(minting);
      assert.equal(await balance(env, minting), 0n, 'the minting account holds no funds');
      const amount = 10_000n;
      const p1 = await funded(env, amount);
      ok(await env.ledger(p1).icrc1_transfer({ to: minting, amount }), 'a burn');
      assert.equal(await balance(env, p1), 0n);
      assert.equal(await balance(env, minting), 0n);
    },
  },
  {
    name: 'icrc1:metadata',
    async run(env) {
      const l = env.ledger(ROOT);
      const meta = await l.icrc1_metadata();
      const keys = meta.map(([k]) => k);
      assert.equal(new Set(keys).size, keys.length, 'no key twice');
      const get = (k: string) => meta.find(([key]) => key === k)?.[1];
      assert.deepEqual(get('icrc1:name'), { Text: await l.icrc1_name() });
      assert.deepEqual(get('icrc1:symbol'), { Text: await l.icrc1_symbol() });
      assert.deepEqual(get('icrc1:decimals'), { Nat: BigInt(await l.icrc1_decimals()) });
      assert.deepEqual(get('icrc1:fee'), { Nat: await l.icrc1_fee() });
    },
  },
  {
    name: 'icrc1:supported_standards',
    async run(env) {
      assert.ok((await env.ledger(ROOT).icrc1_supported_standards()).some((s) => s.name === 'ICRC-1'));
    },
  },
  {
    name: 'icrc1:tx_deduplication',
    async run(env) {
      const f = await fee(env);
      const amount = 10_000n;
      const p1 = await funded(env, 7n * (amount + f));
      const p2 = fork();
      const l = env.ledger(p1);
      const base = { to: { owner: p2 }, amount };
      ok(await l.icrc1_transfer(base), 'first transfer without created_at_time');
      ok(await l.icrc1_transfer(base), 'without created_at_time nothing is deduplicated');
      assert.equal(await balance(env, p2), 2n * amount);
      const timed = { ...base, created_at_time: env.time() };
      const tx1 = ok(await l.icrc1_transfer(timed), 'created_at_time changes the transaction');
      assert.deepEqual(await l.icrc1_transfer(timed), { Err: { Duplicate: { duplicate_of: tx1 } } });
      assert.equal(await balance(env, p2), 3n * amount);
      const withFee = { ...timed, fee: f };
      const tx2 = ok(await l.icrc1_transfer(withFee), 'stating the fee changes the transaction');
      assert.notEqual(tx2, tx1);
      assert.deepEqual(await l.icrc1_transfer(withFee), { Err: { Duplicate: { duplicate_of: tx2 } } });
      const withMemo = { ...withFee, memo: new Uint8Array([1, 2, 3]) };
      const tx3 = ok(await l.icrc1_transfer(withMemo), 'a memo changes the transaction');
      assert.ok(tx3 !== tx1 && tx3 !== tx2);
      assert.deepEqual(await l.icrc1_transfer(withMemo), { Err: { Duplicate: { duplicate_of: tx3 } } });
      assert.equal(await balance(env, p2), 5n * amount);
      // None and Some([0; 32]) are one account but two transactions (decision L4: every argument as given).
      const now = env.time();
      ok(
        await l.icrc1_transfer({ to: { owner: p2 }, amount, memo: new Uint8Array([0]), created_at_time: now }),
        'to {owner}',
      );
      assert.equal(await balance(env, p2), 6n * amount);
      ok(
        await l.icrc1_transfer({
          to: { owner: p2, subaccount: new Uint8Array(32) },
          amount,
          memo: new Uint8Array([0]),
          created_at_time: now,
        }),
        'to {owner, [0;32]}',
      );
      assert.equal(await balance(env, p2), 7n * amount);
    },
  },
  {
    name: 'icrc1:memo_bytes_length',
    async run(env) {
      const p1 = await funded(env, 10_000n + (await fee(env)));
      ok(
        await env.ledger(ROOT).icrc1_transfer({ to: { owner: p1 }, amount: 10_000n, memo: fill(1) }),
        'a 32-byte memo',
      );
    },
  },
  {
    name: 'icrc1:future_transfers',
    async run(env) {
      const p1 = await funded(env, 10_000n + (await fee(env)));
      const r = await env.ledger(ROOT).icrc1_transfer({ to: { owner: p1 }, amount: 10_000n, created_at_time: U64_MAX });
      assert.ok('Err' in r && 'CreatedInFuture' in r.Err, JSON.stringify(Object.keys(r)));
    },
  },
  {
    name: 'icrc1:bad_fee',
    async run(env) {
      const f = await fee(env);
      const p2 = fork();
      assert.deepEqual(await env.ledger(ROOT).icrc1_transfer({ to: { owner: p2 }, amount: 10_000n, fee: f + 1n }), {
        Err: { BadFee: { expected_fee: f } },
      });
    },
  },
  {
    name: 'icrc2:supported_standards',
    async run(env) {
      const names = (await env.ledger(ROOT).icrc1_supported_standards()).map((s) => s.name);
      assert.ok(names.includes('ICRC-1') && names.includes('ICRC-2'));
    },
  },
  {
    name: 'icrc2:approve',
    async run(env) {
      const f = await fee(env);
      const p1 = await funded(env, 2n * f);
      const p2 = fork();
      const p2sub = { owner: p2, subaccount: fill(1) };
      ok(await env.ledger(p1).icrc2_approve({ spender: { owner: p2 }, amount: f }));
      assert.deepEqual(await allowance(env, p1, p2), { allowance: f });
      assert.deepEqual(await allowance(env, p1, p2sub), { allowance: 0n });
      assert.equal(await balance(env, p1), f);
      assert.equal(await balance(env, p2), 0n);
      assert.equal(await balance(env, p2sub), 0n);
      ok(await env.ledger(p1).icrc2_approve({ spender: p2sub, amount: 2n * f }), 'an approval for a subaccount');
      assert.deepEqual(await allowance(env, p1, p2), { allowance: f });
      assert.deepEqual(await allowance(env, p1, p2sub), { allowance: 2n * f });
      assert.equal(await balance(env, p1), 0n);
      assert.deepEqual(await env.ledger(p1).icrc2_approve({ spender: { owner: p2 }, amount: 3n * f }), {
        Err: { InsufficientFunds: { balance: 0n } },
      });
    },
  },
  {
    name: 'icrc2:approve_expiration',
    async run(env) {
      const f = await fee(env);
      const p1 = await funded(env, 2n * f);
      const p2 = fork();
      const r = await env.ledger(p1).icrc2_approve({ spender: { owner: p2 }, amount: f, expires_at: env.time() - 1n });
      assert.ok('Err' in r && 'Expired' in r.Err);
      assert.deepEqual(await allowance(env, p1, p2), { allowance: 0n });
      assert.equal(await balance(env, p1), 2n * f, 'a refused approval costs nothing');
      ok(await env.ledger(p1).icrc2_approve({ spender: { owner: p2 }, amount: f, expires_at: U64_MAX }));
      assert.deepEqual(await allowance(env, p1, p2), { allowance: f, expires_at: U64_MAX });
      assert.equal(await balance(env, p1), f);
      ok(
        await env.ledger(p1).icrc2_approve({ spender: { owner: p2 }, amount: f, expires_at: U64_MAX - 1n }),
        'a new expiry',
      );
      assert.deepEqual(await allowance(env, p1, p2), { allowance: f, expires_at: U64_MAX - 1n });
      assert.equal(await balance(env, p1), 0n);
      assert.equal(await balance(env, p2), 0n);
    },
  },
  {
    name: 'icrc2:approve_expected_allowance',
    async run(env) {
      const f = await fee(env);
      const p1 = await funded(env, 2n * f);
      const p2 = fork();
      ok(await env.ledger(p1).icrc2_approve({ spender: { owner: p2 }, amount: f }));
      assert.deepEqual(
        await env.ledger(p1).icrc2_approve({ spender: { owner: p2 }, amount: 2n * f, expected_allowance: 2n * f }),
        {
          Err: { AllowanceChanged: { current_allowance: f } },
        },
      );
      ok(
        await env.ledger(p1).icrc2_approve({ spender: { owner: p2 }, amount: 2n * f, expected_allowance: f }),
        'the right expected allowance',
      );
      assert.deepEqual(await allowance(env, p1, p2), { allowance: 2n * f });
      assert.equal(await balance(env, p1), 0n);
      assert.equal(await balance(env, p2), 0n);
    },
  },
  {
    name: 'icrc2:transfer_from',
    async run(env) {
      const f = await fee(env);
      const initial = 2n * f + 2n * f;
      const [p1, p2, p3] = [await funded(env, initial), fork(), fork()];
      const approved = f + f;
      ok(await env.ledger(p1).icrc2_approve({ spender: { owner: p2 }, amount: approved }));
      const amount = approved - f - 1n;
      ok(await env.ledger(p2).icrc2_transfer_from({ from: { owner: p1 }, to: { owner: p3 }, amount }));
      assert.equal(await balance(env, p1), initial - f - f - amount);
      assert.equal(await balance(env, p2), 0n, 'the spender pays nothing');
      assert.equal(await balance(env, p3), amount);
      assert.deepEqual(await allowance(env, p1, p2), { allowance: 1n });
    },
  },
  {
    name: 'icrc2:transfer_from_insufficient_funds',
    async run(env) {
      const f = await fee(env);
      const [p1, p2, p3] = [await funded(env, f + f), fork(), fork()];
      ok(await env.ledger(p1).icrc2_approve({ spender: { owner: p2 }, amount: f + f }));
      assert.deepEqual(
        await env.ledger(p2).icrc2_transfer_from({ from: { owner: p1 }, to: { owner: p3 }, amount: f }),
        {
          Err: { InsufficientFunds: { balance: f } },
        },
      );
      assert.equal(await balance(env, p1), f);
      assert.equal(await balance(env, p2), 0n);
      assert.equal(await balance(env, p3), 0n);
      assert.deepEqual(await allowance(env, p1, p2), { allowance: f + f }, 'the allowance is unchanged');
    },
  },
  {
    name: 'icrc2:transfer_from_insufficient_allowance',
    async run(env) {
      const f = await fee(env);
      const [p1, p2, p3] = [await funded(env, f + f), fork(), fork()];
      assert.deepEqual(
        await env.ledger(p2).icrc2_transfer_from({ from: { owner: p1 }, to: { owner: p3 }, amount: f }),
        {
          Err: { InsufficientAllowance: { allowance: 0n } },
        },
      );
      assert.equal(await balance(env, p1), f + f);
      assert.equal(await balance(env, p2), 0n);
      assert.equal(await balance(env, p3), 0n);
    },
  },
  {
    name: 'icrc2:transfer_from_self',
    async run(env) {
      const f = await fee(env);
      const [p1, p2] = [await funded(env, f + f), fork()];
      ok(
        await env.ledger(p1).icrc2_transfer_from({ from: { owner: p1 }, to: { owner: p2 }, amount: f }),
        'no approval needed for one own account',
      );
      assert.equal(await balance(env, p1), 0n);
      assert.equal(await balance(env, p2), f);
    },
  },
];

export {
  field,
  nat,
  text,
  ok,
  funded,
  fork,
  balance,
  allowance,
  fee,
  logLength,
  blockAt,
  fill,
  WINDOW,
  DRIFT,
  U64_MAX,
  NS,
};
