// The treasury canister's core (spec 1): pays out approved TreasuryPayout proposals from its own DOM
// ledger account (decisions L11–L14; G17's own book is superseded). Only governance may call
// execute_payout; a USD amount is converted at the ratified price and refused with PriceStale when that
// price is older than the staleness window (decision G16). A payout is a durable intent first (amount,
// created_at_time, memo), then an icrc1_transfer with that created_at_time and memo, then the record: a
// retry after a lost reply or a crash finds the intent and the ledger answers Duplicate for a transfer
// it already made, so a proposal is never paid twice.
import { clampLimit, Err, Ok, type Account, type CallContext, type Result, type Store } from '@domdao/canister-kit';
import {
  DEFAULT_PRICE_MAX_AGE,
  isStale,
  payoutProblem,
  usdToDomE8s,
  type DomPriceTick,
  type PayoutPayload,
} from '@domdao/canister-kit/rules';

export { DEFAULT_PRICE_MAX_AGE };

export interface TreasuryConfig {
  governance_canister: string;
  /** The treasury's own principal: its ledger account is (self, default subaccount). */
  self: string;
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
  /** The ledger block of the transfer. */
  block_index: bigint;
}

/** A payout decided but not yet known to be on the ledger (decision L12). */
export interface PayoutIntent extends Omit<PayoutRecord, 'paid_at' | 'block_index'> {
  /** The created_at_time of every attempt's transfer: the ledger deduplicates on it and the memo. */
  created_at_time: bigint;
}

export type TreasuryError =
  | { NotAuthorized: null }
  | { PriceStale: null }
  | { InsufficientFunds: { balance: bigint; required: bigint } }
  | { InvalidPayout: string }
  | { LedgerError: string };

export interface TreasuryStores {
  config: Store<'config', TreasuryConfig>;
  payouts: Store<bigint, PayoutRecord>;
  intents: Store<bigint, PayoutIntent>;
}

export const TREASURY_STORE_NAMES: Record<keyof TreasuryStores, string> = {
  config: 'config',
  payouts: 'payouts',
  intents: 'intents',
};

type LedgerTransferError =
  | { BadFee: { expected_fee: bigint } }
  | { BadBurn: { min_burn_amount: bigint } }
  | { InsufficientFunds: { balance: bigint } }
  | { TooOld: null }
  | { CreatedInFuture: { ledger_time: bigint } }
  | { Duplicate: { duplicate_of: bigint } }
  | { TemporarilyUnavailable: null }
  | { GenericError: { error_code: bigint; message: string } };

export interface TreasuryDeps {
  governance: { get_dom_price(): Promise<DomPriceTick | undefined> };
  ledger: {
    icrc1_transfer(args: {
      to: Account;
      amount: bigint;
      memo?: Uint8Array;
      created_at_time?: bigint;
    }): Promise<Result<bigint, LedgerTransferError>>;
    icrc1_balance_of(account: Account): Promise<bigint>;
    icrc1_fee(): Promise<bigint>;
  };
}

/** `dom-payout:<proposal id>`: what the payout's ledger blocks carry as their memo (≤ 32 bytes). */
export function payoutMemo(proposal_id: bigint): Uint8Array {
  return new TextEncoder().encode(`dom-payout:${proposal_id}`);
}

export function describeLedgerError(e: LedgerTransferError): string {
  const [k, v] = Object.entries(e)[0]! as [string, unknown];
  return v === null
    ? k
    : `${k}: ${JSON.stringify(v, (_key, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))}`;
}

export function treasuryCore(stores: TreasuryStores, deps: TreasuryDeps) {
  const config = (): TreasuryConfig => {
    const c = stores.config.get('config');
    if (!c) throw new Error('treasury canister not initialised');
    return c;
  };
  const account = (): Account => ({ owner: config().self });

  return {
    init(init: Omit<TreasuryConfig, 'price_max_age'> & { price_max_age?: bigint }): void {
      if (stores.config.has('config')) throw new Error('already initialised');
      stores.config.set('config', {
        ...init,
        admins: [...init.admins],
        price_max_age: init.price_max_age ?? DEFAULT_PRICE_MAX_AGE,
      });
    },

    /**
     * Governance only; idempotent by proposal: a retried execution answers the first payout, and a
     * retry after a lost ledger reply re-sends the same transfer, which the ledger deduplicates.
     */
    async execute_payout(
      ctx: CallContext,
      proposal_id: bigint,
      payout: PayoutPayload,
    ): Promise<Result<PayoutRecord, TreasuryError>> {
      const c = config();
      if (ctx.caller !== c.governance_canister) return Err({ NotAuthorized: null });
      const done = stores.payouts.get(proposal_id);
      if (done) return Ok(done);
      let intent = stores.intents.get(proposal_id);
      if (!intent) {
        const problem = payoutProblem(payout);
        if (problem) return Err({ InvalidPayout: problem });
        let amount: bigint;
        let priced: Pick<PayoutRecord, 'usd_value' | 'price_tick_id'> = {};
        if ('DomE8s' in payout.amount) amount = payout.amount.DomE8s;
        else {
          const tick = await deps.governance.get_dom_price();
          if (!tick || isStale(tick, ctx.now, c.price_max_age)) return Err({ PriceStale: null });
          amount = usdToDomE8s(payout.amount.Usd, { price_usd: tick.price_usd, proposal_id: tick.proposal_id });
          if (amount <= 0n)
            return Err({ InvalidPayout: 'the USD amount is worth less than 1e-8 DOM at the current price' });
          priced = { usd_value: payout.amount.Usd, price_tick_id: tick.proposal_id };
        }
        // After the await: another attempt may have got further meanwhile (on the IC calls interleave).
        const again = stores.payouts.get(proposal_id);
        if (again) return Ok(again);
        intent = stores.intents.get(proposal_id) ?? {
          proposal_id,
          recipient: payout.recipient,
          amount_e8s: amount,
          ...priced,
          ...(payout.memo !== undefined && { memo: payout.memo }),
          created_at_time: ctx.now,
        };
        // Kept by the commit point of the ledger call below, whatever happens after it (decision L10).
        stores.intents.set(proposal_id, intent);
      }
      // A rejected call (ledger unreachable, reply lost) throws: the intent stays and the next attempt re-sends it.
      const r = await deps.ledger.icrc1_transfer({
        to: { owner: intent.recipient },
        amount: intent.amount_e8s,
        memo: payoutMemo(proposal_id),
        created_at_time: intent.created_at_time,
      });
      const block = 'Ok' in r ? r.Ok : 'Duplicate' in r.Err ? r.Err.Duplicate.duplicate_of : undefined;
      if (block !== undefined || 'Ok' in r) {
        const { created_at_time: _t, ...paid } = intent;
        const record: PayoutRecord = { ...paid, paid_at: ctx.now, block_index: block! };
        stores.payouts.set(proposal_id, record);
        stores.intents.delete(proposal_id);
        return Ok(record);
      }
      const e = r.Err;
      // Past the ledger's window a re-sent transfer cannot be told from a new one: keep the intent for an admin (L13).
      if ('TooOld' in e)
        return Err({
          LedgerError: `TooOld: the payout intent of ${intent.created_at_time} ns is past the ledger's deduplication window; reconcile with the ledger's block log (memo dom-payout:${proposal_id})`,
        });
      // TemporarilyUnavailable: nothing moved, the same transfer is re-sent on the next attempt.
      if ('TemporarilyUnavailable' in e) return Err({ LedgerError: 'TemporarilyUnavailable' });
      // Nothing moved: forget the intent, so a later attempt decides again (at the price then in force).
      if ('InsufficientFunds' in e) {
        const fee = await deps.ledger.icrc1_fee();
        stores.intents.delete(proposal_id);
        return Err({ InsufficientFunds: { balance: e.InsufficientFunds.balance, required: intent.amount_e8s + fee } });
      }
      stores.intents.delete(proposal_id);
      return Err({ LedgerError: describeLedgerError(e) });
    },

    /** The treasury's ledger account: deposits are ICRC-1 transfers to it. */
    get_account: (_ctx: CallContext): Account => account(),
    /** The treasury's balance on the ledger (an update: it calls the ledger). */
    get_balance: async (_ctx: CallContext): Promise<bigint> => deps.ledger.icrc1_balance_of(account()),
    get_payout: (_ctx: CallContext, proposal_id: bigint): PayoutRecord | undefined => stores.payouts.get(proposal_id),
    /** Payouts decided whose ledger transfer is not yet confirmed (retried by governance's execution). */
    list_pending_payouts: (_ctx: CallContext): PayoutIntent[] =>
      Array.from(stores.intents.entries({ limit: 100 }), ([, v]) => v),
    /** Newest first from from_id (inclusive). */
    list_payouts(_ctx: CallContext, from_id?: bigint, limit?: number): PayoutRecord[] {
      const n = clampLimit(limit, 20, 100);
      return n === 0
        ? []
        : Array.from(
            stores.payouts.entries({ reverse: true, limit: n, ...(from_id !== undefined && { from: from_id }) }),
            ([, v]) => v,
          );
    },
  };
}

export type TreasuryCore = ReturnType<typeof treasuryCore>;
