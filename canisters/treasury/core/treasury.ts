// The treasury canister's core (spec 1): pays out approved TreasuryPayout proposals. Only governance
// may call execute_payout; a USD amount is converted at the ratified price and refused with PriceStale
// when that price is older than the staleness window (decision G16). No DOM ledger canister is part of
// this platform yet, so the treasury keeps its own book: deposits recorded by admins, payouts by
// proposal (decision G17).
import { clampLimit, Err, Ok, type CallContext, type Result, type Store } from '@domdao/canister-kit';
import { DEFAULT_PRICE_MAX_AGE, isStale, payoutProblem, usdToDomE8s, type DomPriceTick, type PayoutPayload } from '@domdao/canister-kit/rules';

export { DEFAULT_PRICE_MAX_AGE };

export interface TreasuryConfig {
  governance_canister: string;
  admins: string[];
  /** A price older than this is stale for USD conversion (decision G16). */
  price_max_age: bigint;
}

export interface PayoutRecord {
  proposal_id: bigint;
  recipient: string;
  amount_e8s: bigint;
  usd_value?: number;
  price_tick_id?: bigint;
  memo?: string;
  paid_at: bigint;
}

export interface Deposit {
  id: bigint;
  amount_e8s: bigint;
  memo?: string;
  recorded_by: string;
  at: bigint;
}

export type TreasuryError =
  | { NotAuthorized: null }
  | { PriceStale: null }
  | { InsufficientFunds: { balance: bigint; required: bigint } }
  | { InvalidPayout: string };

export interface TreasuryStores {
  config: Store<'config', TreasuryConfig>;
  /** 'balance' and the deposit counter. */
  counters: Store<string, bigint>;
  payouts: Store<bigint, PayoutRecord>;
  deposits: Store<bigint, Deposit>;
}

export const TREASURY_STORE_NAMES: Record<keyof TreasuryStores, string> = { config: 'config', counters: 'counters', payouts: 'payouts', deposits: 'deposits' };

export interface TreasuryDeps {
  governance: { get_dom_price(): Promise<DomPriceTick | undefined> };
}

export function treasuryCore(stores: TreasuryStores, deps: TreasuryDeps) {
  const config = (): TreasuryConfig => {
    const c = stores.config.get('config');
    if (!c) throw new Error('treasury canister not initialised');
    return c;
  };
  const balance = () => stores.counters.get('balance') ?? 0n;

  return {
    init(init: Omit<TreasuryConfig, 'price_max_age'> & { price_max_age?: bigint }): void {
      if (stores.config.has('config')) throw new Error('already initialised');
      stores.config.set('config', { ...init, admins: [...init.admins], price_max_age: init.price_max_age ?? DEFAULT_PRICE_MAX_AGE });
    },

    /** Governance only; idempotent by proposal, so a retried execution never pays twice. */
    async execute_payout(ctx: CallContext, proposal_id: bigint, payout: PayoutPayload): Promise<Result<PayoutRecord, TreasuryError>> {
      const c = config();
      if (ctx.caller !== c.governance_canister) return Err({ NotAuthorized: null });
      const done = stores.payouts.get(proposal_id);
      if (done) return Ok(done);
      const problem = payoutProblem(payout);
      if (problem) return Err({ InvalidPayout: problem });
      let amount: bigint;
      let priced: Pick<PayoutRecord, 'usd_value' | 'price_tick_id'> = {};
      if ('DomE8s' in payout.amount) amount = payout.amount.DomE8s;
      else {
        const tick = await deps.governance.get_dom_price();
        if (!tick || isStale(tick, ctx.now, c.price_max_age)) return Err({ PriceStale: null });
        amount = usdToDomE8s(payout.amount.Usd, { price_usd: tick.price_usd, proposal_id: tick.proposal_id });
        if (amount <= 0n) return Err({ InvalidPayout: 'the USD amount is worth less than 1e-8 DOM at the current price' });
        priced = { usd_value: payout.amount.Usd, price_tick_id: tick.proposal_id };
      }
      // After the await: re-check against state as it is now.
      const again = stores.payouts.get(proposal_id);
      if (again) return Ok(again);
      const have = balance();
      if (have < amount) return Err({ InsufficientFunds: { balance: have, required: amount } });
      const record: PayoutRecord = {
        proposal_id,
        recipient: payout.recipient,
        amount_e8s: amount,
        ...priced,
        ...(payout.memo !== undefined && { memo: payout.memo }),
        paid_at: ctx.now,
      };
      stores.counters.set('balance', have - amount);
      stores.payouts.set(proposal_id, record);
      return Ok(record);
    },

    /** Admin only: records DOM received by the treasury (the stand-in for a ledger transfer, G17). */
    record_deposit(ctx: CallContext, amount_e8s: bigint, memo?: string): Result<bigint, TreasuryError> {
      if (!config().admins.includes(ctx.caller)) return Err({ NotAuthorized: null });
      if (amount_e8s <= 0n) return Err({ InvalidPayout: 'deposit amount must be above 0' });
      if (memo !== undefined && memo.length > 256) return Err({ InvalidPayout: 'memo must be at most 256 characters' });
      const id = stores.counters.get('deposit') ?? 1n;
      stores.counters.set('deposit', id + 1n);
      stores.deposits.set(id, { id, amount_e8s, ...(memo !== undefined && { memo }), recorded_by: ctx.caller, at: ctx.now });
      stores.counters.set('balance', balance() + amount_e8s);
      return Ok(id);
    },

    get_balance: (_ctx: CallContext): bigint => balance(),
    get_payout: (_ctx: CallContext, proposal_id: bigint): PayoutRecord | undefined => stores.payouts.get(proposal_id),
    /** Newest first from from_id (inclusive). */
    list_payouts(_ctx: CallContext, from_id?: bigint, limit?: number): PayoutRecord[] {
      const n = clampLimit(limit, 20, 100);
      return n === 0 ? [] : Array.from(stores.payouts.entries({ reverse: true, limit: n, ...(from_id !== undefined && { from: from_id }) }), ([, v]) => v);
    },
  };
}

export type TreasuryCore = ReturnType<typeof treasuryCore>;
