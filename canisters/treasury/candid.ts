// The treasury canister's Candid interface (spec 1 "TreasuryPayout … calls treasury.execute_payout()"),
// for the Azle entry point and the IC agent client.
import { query, result, update, type Idl, type MethodTable } from '@domdao/canister-kit/candid';

export function treasuryTypes(I: Idl) {
  const PayoutPayload = I.Record({
    recipient: I.Principal,
    amount: I.Variant({ DomE8s: I.Nat, Usd: I.Float64 }),
    memo: I.Opt(I.Text),
  });
  const PayoutRecord = I.Record({
    proposal_id: I.Nat64,
    recipient: I.Principal,
    amount_e8s: I.Nat,
    usd_value: I.Opt(I.Float64),
    price_tick_id: I.Opt(I.Nat64),
    memo: I.Opt(I.Text),
    paid_at: I.Nat64,
  });
  const TreasuryError = I.Variant({
    NotAuthorized: I.Null,
    PriceStale: I.Null,
    InsufficientFunds: I.Record({ balance: I.Nat, required: I.Nat }),
    InvalidPayout: I.Text,
  });
  const InitArgs = I.Record({ governance_canister: I.Principal, admins: I.Vec(I.Principal), price_max_age: I.Opt(I.Nat64) });
  return { PayoutPayload, PayoutRecord, TreasuryError, InitArgs };
}

export function treasuryMethods(I: Idl) {
  const t = treasuryTypes(I);
  return {
    execute_payout: update([I.Nat64, t.PayoutPayload], result(I, t.PayoutRecord, t.TreasuryError)),
    record_deposit: update([I.Nat, I.Opt(I.Text)], result(I, I.Nat64, t.TreasuryError)),
    get_balance: query([], I.Nat),
    get_payout: query([I.Nat64], I.Opt(t.PayoutRecord)),
    list_payouts: query([I.Opt(I.Nat64), I.Opt(I.Nat32)], I.Vec(t.PayoutRecord)),
  } satisfies MethodTable;
}

