// Spec 1 Errors rule 1 and decisions G16, L11–L14: the treasury's payouts through its core's public
// methods on the embedded host, with a controllable clock, governance's ratified price and a scripted
// ledger (the treasury's reaction to every ledger answer; the real ledger is in
// platform/canisters/test/campaign-treasury.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Err, Ok, type Account, type Result } from '@domdao/canister-kit';
import { type DomPriceTick } from '@domdao/canister-kit/rules';
import { EmbeddedHost } from '@domdao/canister-kit/embedded';
import {
  DEFAULT_PRICE_MAX_AGE,
  payoutMemo,
  TREASURY_STORE_NAMES,
  treasuryCore,
  type TreasuryDeps,
  type TreasuryStores,
} from '../core/treasury.ts';

const GOV = 'governance-canister';
const SELF = 'treasury-canister';
const ADMIN = 'admin-principal';
const RECIPIENT = 'recipient-principal';
const NOW = BigInt(Date.parse('2026-06-01T00:00:00Z')) * 1_000_000n;
const FEE = 10_000n;

type TransferArgs = Parameters<TreasuryDeps['ledger']['icrc1_transfer']>[0];
type Answer = Awaited<ReturnType<TreasuryDeps['ledger']['icrc1_transfer']>> | 'reject' | 'lose-reply';

/**
 * A ledger that keeps a balance and deduplicates like ICRC-1, unless the test scripts its next answer:
 * 'reject' (the call fails, nothing moved) or 'lose-reply' (the transfer is made, then the reply is
 * lost). `commit` is the host's commit point, as the platform makes one before every call (L10).
 */
function scriptedLedger(balance: bigint, commit: () => void) {
  const seen = new Map<string, bigint>();
  const calls: TransferArgs[] = [];
  const script: Answer[] = [];
  let blocks = 0n;
  const ledger: TreasuryDeps['ledger'] = {
    async icrc1_transfer(a): Promise<Result<bigint, never>> {
      commit();
      calls.push(a);
      const next = script.shift();
      if (next === 'reject') throw new Error('ledger canister stopped');
      if (next && next !== 'lose-reply') return next as never;
      const r = transfer(a);
      if (next === 'lose-reply') throw new Error('reply lost');
      return r;
    },
    icrc1_balance_of: async (acc: Account) => (acc.owner === SELF ? balance : 0n),
    icrc1_fee: async () => FEE,
  };
  function transfer(a: TransferArgs): Result<bigint, never> {
    const key = `${a.to.owner}|${a.amount}|${Buffer.from(a.memo ?? []).toString('hex')}|${a.created_at_time}`;
    if (seen.has(key)) return Err({ Duplicate: { duplicate_of: seen.get(key)! } }) as never;
    if (balance < a.amount + FEE) return Err({ InsufficientFunds: { balance } }) as never;
    balance -= a.amount + FEE;
    seen.set(key, blocks);
    return Ok(blocks++);
  }
  return { ledger, calls, script, balance: () => balance, fund: (n: bigint) => (balance += n) };
}

async function setup(balance = 0n) {
  const host = EmbeddedHost.open({});
  const stores = Object.fromEntries(
    Object.entries(TREASURY_STORE_NAMES).map(([k, name]) => [k, host.store('treasury', name)]),
  ) as unknown as TreasuryStores;
  const gov = { price: undefined as DomPriceTick | undefined };
  const ledger = scriptedLedger(balance, () => host.commitPoint());
  const core = treasuryCore(stores, { governance: { get_dom_price: async () => gov.price }, ledger: ledger.ledger });
  const clock = { now: NOW };
  const ctx = (caller: string) => ({ caller, now: clock.now });
  await host.update('treasury', () => core.init({ governance_canister: GOV, self: SELF, admins: [ADMIN] }));
  return {
    gov,
    ledger,
    clock,
    pay: (id: bigint, amount: { DomE8s: bigint } | { Usd: number }, caller = GOV) =>
      host.update('treasury', () => core.execute_payout(ctx(caller), id, { recipient: RECIPIENT, amount })),
    pay2: (id: bigint, amount: { DomE8s: bigint }, memo: string) =>
      host.update('treasury', () => core.execute_payout(ctx(GOV), id, { recipient: RECIPIENT, amount, memo })),
    balance: () => host.update('treasury', () => core.get_balance(ctx('anyone'))),
    payout: (id: bigint) => host.query('treasury', () => core.get_payout(ctx('anyone'), id)),
    pending: () => host.query('treasury', () => core.list_pending_payouts(ctx('anyone'))),
    account: () => host.query('treasury', () => core.get_account(ctx('anyone'))),
  };
}

describe('treasury payouts from its ledger account (spec 1 Errors rule 1, decisions G16, L11–L14)', () => {
  it('only governance pays; InsufficientFunds is the real balance and amount + fee; a retried execution never pays twice', async () => {
    const t = await setup();
    assert.deepEqual(t.account(), { owner: SELF });
    assert.deepEqual(await t.pay(1n, { DomE8s: 500n }, ADMIN), { Err: { NotAuthorized: null } });
    assert.deepEqual(await t.pay(1n, { DomE8s: 500n }), {
      Err: { InsufficientFunds: { balance: 0n, required: 500n + FEE } },
    });
    assert.deepEqual(t.pending(), [], 'nothing moved: no intent kept');
    t.ledger.fund(1_000n + FEE);
    const paid = await t.pay(1n, { DomE8s: 500n });
    assert.deepEqual(paid, {
      Ok: { proposal_id: 1n, recipient: RECIPIENT, amount_e8s: 500n, paid_at: NOW, block_index: 0n },
    });
    assert.deepEqual(t.ledger.calls.at(-1), {
      to: { owner: RECIPIENT },
      amount: 500n,
      memo: payoutMemo(1n),
      created_at_time: NOW,
    });
    assert.deepEqual(await t.pay(1n, { DomE8s: 500n }), paid, 'the same proposal answers its first payout');
    assert.equal(t.ledger.calls.length, 2, 'without calling the ledger again');
    assert.equal(await t.balance(), 500n);
    assert.deepEqual(await t.pay(2n, { DomE8s: 0n }), { Err: { InvalidPayout: 'payout amount must be above 0' } });
    assert.equal(t.payout(2n), undefined);
  });

  it('a lost ledger reply keeps the intent; the retry re-sends the same transfer, the ledger answers Duplicate, it is recorded once', async () => {
    const t = await setup(100_000n);
    t.ledger.script.push('reject');
    await assert.rejects(t.pay(3n, { DomE8s: 100n }), /ledger canister stopped/);
    assert.deepEqual(
      t.pending().map((i) => [i.proposal_id, i.created_at_time]),
      [[3n, NOW]],
      'the intent survived the failed call',
    );
    assert.equal(t.ledger.balance(), 100_000n);
    t.clock.now += 300n * 1_000_000_000n;
    t.ledger.script.push('lose-reply');
    await assert.rejects(t.pay(3n, { DomE8s: 100n }), /reply lost/);
    assert.equal(t.ledger.balance(), 100_000n - 100n - FEE, 'the transfer was made');
    assert.equal(t.payout(3n), undefined, 'but the treasury does not know it');
    t.clock.now += 300n * 1_000_000_000n;
    const r = await t.pay(3n, { DomE8s: 100n });
    assert.deepEqual(
      r,
      { Ok: { proposal_id: 3n, recipient: RECIPIENT, amount_e8s: 100n, paid_at: t.clock.now, block_index: 0n } },
      'Duplicate names the first transfer',
    );
    assert.equal(t.ledger.balance(), 100_000n - 100n - FEE, 'paid once');
    assert.deepEqual(t.pending(), []);
    assert.deepEqual(
      t.ledger.calls.map((c) => c.created_at_time),
      [NOW, NOW, NOW],
      "every attempt carried the intent's created_at_time",
    );
  });

  it('TemporarilyUnavailable keeps the intent; TooOld keeps it for an admin; other ledger errors forget it (nothing moved)', async () => {
    const t = await setup(1_000_000n);
    t.ledger.script.push(Err({ TemporarilyUnavailable: null }));
    assert.deepEqual(await t.pay(4n, { DomE8s: 10n }), { Err: { LedgerError: 'TemporarilyUnavailable' } });
    assert.equal(t.pending().length, 1);
    t.ledger.script.push(Err({ TooOld: null }));
    assert.deepEqual(await t.pay(4n, { DomE8s: 10n }), {
      Err: {
        LedgerError: `TooOld: the payout intent of ${NOW} ns is past the ledger's deduplication window; reconcile with the ledger's block log (memo dom-payout:4)`,
      },
    });
    assert.equal(t.pending().length, 1, 'kept: a re-sent transfer could pay twice');
    t.ledger.script.push(Err({ GenericError: { error_code: 1n, message: 'bad' } }));
    assert.deepEqual(await t.pay(5n, { DomE8s: 10n }), {
      Err: { LedgerError: 'GenericError: {"error_code":"1","message":"bad"}' },
    });
    assert.deepEqual(
      t.pending().map((i) => i.proposal_id),
      [4n],
    );
    assert.deepEqual(await t.pay(4n, { DomE8s: 10n }), {
      Ok: { proposal_id: 4n, recipient: RECIPIENT, amount_e8s: 10n, paid_at: NOW, block_index: 0n },
    });
  });

  it('a USD payout converts at the ratified price, and a price older than the window is PriceStale (G16)', async () => {
    const t = await setup(100n * 100_000_000n);
    assert.deepEqual(await t.pay(3n, { Usd: 10 }), { Err: { PriceStale: null } }, 'no price yet');
    t.gov.price = { price_usd: 2, set_by: GOV, proposal_id: 9n, timestamp: NOW - DEFAULT_PRICE_MAX_AGE - 1n };
    assert.deepEqual(await t.pay(3n, { Usd: 10 }), { Err: { PriceStale: null } });
    assert.equal(t.ledger.calls.length, 0, 'the ledger is not called');
    t.gov.price = { ...t.gov.price, timestamp: NOW - DEFAULT_PRICE_MAX_AGE };
    const r = await t.pay(3n, { Usd: 10 });
    assert.deepEqual(r, {
      Ok: {
        proposal_id: 3n,
        recipient: RECIPIENT,
        amount_e8s: 5n * 100_000_000n,
        usd_value: 10,
        price_tick_id: 9n,
        paid_at: NOW,
        block_index: 0n,
      },
    });
    assert.equal(await t.balance(), 95n * 100_000_000n - FEE);
  });

  it('limits: a USD payout worth exactly 0.5e-8 DOM rounds to 1 e8 and is paid, just under it rounds to 0 and is refused; a memo of 256 characters is accepted, 257 refused', async () => {
    const t = await setup(1_000_000n);
    t.gov.price = { price_usd: 1, set_by: GOV, proposal_id: 9n, timestamp: NOW };
    assert.deepEqual(await t.pay(6n, { Usd: 0.0000000049 }), {
      Err: { InvalidPayout: 'the USD amount is worth less than 1e-8 DOM at the current price' },
    });
    assert.equal(((await t.pay(6n, { Usd: 0.000000005 })) as { Ok: { amount_e8s: bigint } }).Ok.amount_e8s, 1n);
    assert.equal(t.ledger.calls.length, 1, 'the refused one never reached the ledger');
    const withMemo = (id: bigint, memo: string) => t.pay2(id, { DomE8s: 1n }, memo);
    assert.deepEqual(await withMemo(7n, 'm'.repeat(257)), {
      Err: { InvalidPayout: 'memo must be at most 256 characters' },
    });
    assert.equal(((await withMemo(7n, 'm'.repeat(256))) as { Ok: { memo: string } }).Ok.memo.length, 256);
  });
});
