// Spec 1 Errors rule 1 and decisions G16–G17: the treasury's payouts through its core's public methods
// on the embedded host, with a controllable clock and governance's ratified price.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type DomPriceTick } from '@domdao/canister-kit/rules';
import { EmbeddedHost } from '@domdao/canister-kit/embedded';
import { DEFAULT_PRICE_MAX_AGE, TREASURY_STORE_NAMES, treasuryCore, type TreasuryStores } from '../core/treasury.ts';

const GOV = 'governance-canister';
const ADMIN = 'admin-principal';
const RECIPIENT = 'recipient-principal';
const NOW = BigInt(Date.parse('2026-06-01T00:00:00Z')) * 1_000_000n;

async function setup() {
  const host = EmbeddedHost.open({});
  const stores = Object.fromEntries(Object.entries(TREASURY_STORE_NAMES).map(([k, name]) => [k, host.store('treasury', name)])) as unknown as TreasuryStores;
  const gov = { price: undefined as DomPriceTick | undefined };
  const core = treasuryCore(stores, { governance: { get_dom_price: async () => gov.price } });
  const ctx = (caller: string) => ({ caller, now: NOW });
  await host.update('treasury', () => core.init({ governance_canister: GOV, admins: [ADMIN] }));
  return {
    gov,
    deposit: (e8s: bigint, caller = ADMIN) => host.update('treasury', () => core.record_deposit(ctx(caller), e8s)),
    pay: (id: bigint, amount: { DomE8s: bigint } | { Usd: number }, caller = GOV) =>
      host.update('treasury', () => core.execute_payout(ctx(caller), id, { recipient: RECIPIENT, amount })),
    balance: () => host.query('treasury', () => core.get_balance(ctx('anyone'))),
    payout: (id: bigint) => host.query('treasury', () => core.get_payout(ctx('anyone'), id)),
  };
}

describe('treasury payouts (spec 1 Errors rule 1, decisions G16–G17)', () => {
  it('only governance pays; funds must cover the payout; a retried execution never pays twice', async () => {
    const t = await setup();
    assert.deepEqual(await t.pay(1n, { DomE8s: 500n }, ADMIN), { Err: { NotAuthorized: null } });
    assert.deepEqual(await t.deposit(1_000n, 'someone-else'), { Err: { NotAuthorized: null } });
    assert.deepEqual(await t.pay(1n, { DomE8s: 500n }), { Err: { InsufficientFunds: { balance: 0n, required: 500n } } });
    assert.deepEqual(await t.deposit(1_000n), { Ok: 1n });
    const paid = await t.pay(1n, { DomE8s: 500n });
    assert.deepEqual(paid, { Ok: { proposal_id: 1n, recipient: RECIPIENT, amount_e8s: 500n, paid_at: NOW } });
    assert.deepEqual(await t.pay(1n, { DomE8s: 500n }), paid, 'the same proposal answers its first payout');
    assert.equal(t.balance(), 500n);
    assert.deepEqual(await t.pay(2n, { DomE8s: 0n }), { Err: { InvalidPayout: 'payout amount must be above 0' } });
    assert.equal(t.payout(2n), undefined);
  });

  it('a USD payout converts at the ratified price, and a price older than the window is PriceStale (G16)', async () => {
    const t = await setup();
    await t.deposit(100n * 100_000_000n);
    assert.deepEqual(await t.pay(3n, { Usd: 10 }), { Err: { PriceStale: null } }, 'no price yet');
    t.gov.price = { price_usd: 2, set_by: GOV, proposal_id: 9n, timestamp: NOW - DEFAULT_PRICE_MAX_AGE - 1n };
    assert.deepEqual(await t.pay(3n, { Usd: 10 }), { Err: { PriceStale: null } });
    t.gov.price = { ...t.gov.price, timestamp: NOW - DEFAULT_PRICE_MAX_AGE };
    const r = await t.pay(3n, { Usd: 10 });
    assert.deepEqual(r, { Ok: { proposal_id: 3n, recipient: RECIPIENT, amount_e8s: 5n * 100_000_000n, usd_value: 10, price_tick_id: 9n, paid_at: NOW } });
    assert.equal(t.balance(), 95n * 100_000_000n);
  });
});
