// The treasury canister's Candid interface (spec 1 "TreasuryPayout … calls treasury.execute_payout()"; decision L11),
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
    block_index: I.Nat,
  });
  const PayoutIntent = I.Record({
    proposal_id: I.Nat64,
    recipient: I.Principal,
    amount_e8s: I.Nat,
    usd_value: I.Opt(I.Float64),
    price_tick_id: I.Opt(I.Nat64),
    memo: I.Opt(I.Text),
    created_at_time: I.Nat64,
  });
  const Account = I.Record({ owner: I.Principal, subaccount: I.Opt(I.Vec(I.Nat8)) });
  const TreasuryError = I.Variant({
    NotAuthorized: I.Null,
    PriceStale: I.Null,
    InsufficientFunds: I.Record({ balance: I.Nat, required: I.Nat }),
    InvalidPayout: I.Text,
    LedgerError: I.Text,
  });
  const InitArgs = I.Record({
    governance_canister: I.Principal,
    ledger_canister: I.Principal,
    admins: I.Vec(I.Principal),
    price_max_age: I.Opt(I.Nat64),
  });
  return { PayoutPayload, PayoutRecord, PayoutIntent, Account, TreasuryError, InitArgs };
}

export function treasuryMethods(I: Idl) {
  const t = treasuryTypes(I);
  return {
    execute_payout: update([I.Nat64, t.PayoutPayload], result(I, t.PayoutRecord, t.TreasuryError)),
    get_account: query([], t.Account),
    get_balance: update([], I.Nat),
    list_pending_payouts: query([], I.Vec(t.PayoutIntent)),
    get_payout: query([I.Nat64], I.Opt(t.PayoutRecord)),
    list_payouts: query([I.Opt(I.Nat64), I.Opt(I.Nat32)], I.Vec(t.PayoutRecord)),
  } satisfies MethodTable;
}
