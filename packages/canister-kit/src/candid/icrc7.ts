// ICRC-7 (read side and refused transfers) and ICRC-10 Candid types, shared by the membership tokens
// and the vote-pass receipts, as the official ICRC-7.did declares them (checked with didc against the
// copy in platform/canisters/test/fixtures/ICRC-7.did).
import { query, update, type Idl, type MethodTable } from './methods.ts';

export function icrc7Types(I: Idl) {
  const Account = I.Record({ owner: I.Principal, subaccount: I.Opt(I.Vec(I.Nat8)) });
  // ICRC-3's generic value (recursive).
  const Value = I.Rec();
  Value.fill(
    I.Variant({
      Blob: I.Vec(I.Nat8),
      Text: I.Text,
      Nat: I.Nat,
      Int: I.Int,
      Array: I.Vec(Value),
      Map: I.Vec(I.Tuple(I.Text, Value)),
    }),
  );
  const TransferArg = I.Record({
    from_subaccount: I.Opt(I.Vec(I.Nat8)),
    to: Account,
    token_id: I.Nat,
    memo: I.Opt(I.Vec(I.Nat8)),
    created_at_time: I.Opt(I.Nat64),
  });
  const TransferError = I.Variant({
    NonExistingTokenId: I.Null,
    InvalidRecipient: I.Null,
    Unauthorized: I.Null,
    TooOld: I.Null,
    CreatedInFuture: I.Record({ ledger_time: I.Nat64 }),
    Duplicate: I.Record({ duplicate_of: I.Nat }),
    GenericError: I.Record({ error_code: I.Nat, message: I.Text }),
    GenericBatchError: I.Record({ error_code: I.Nat, message: I.Text }),
  });
  const TransferResult = I.Variant({ Ok: I.Nat, Err: TransferError });
  const Standard = I.Record({ name: I.Text, url: I.Text });
  return { Account, Value, TransferArg, TransferError, TransferResult, Standard };
}

export function icrc7Methods(I: Idl) {
  const t = icrc7Types(I);
  return {
    icrc7_collection_metadata: query([], I.Vec(I.Tuple(I.Text, t.Value))),
    icrc7_name: query([], I.Text),
    icrc7_symbol: query([], I.Text),
    icrc7_description: query([], I.Opt(I.Text)),
    icrc7_logo: query([], I.Opt(I.Text)),
    icrc7_total_supply: query([], I.Nat),
    icrc7_supply_cap: query([], I.Opt(I.Nat)),
    icrc7_max_query_batch_size: query([], I.Opt(I.Nat)),
    icrc7_max_update_batch_size: query([], I.Opt(I.Nat)),
    icrc7_max_take_value: query([], I.Opt(I.Nat)),
    icrc7_default_take_value: query([], I.Opt(I.Nat)),
    icrc7_max_memo_size: query([], I.Opt(I.Nat)),
    icrc7_atomic_batch_transfers: query([], I.Opt(I.Bool)),
    icrc7_tx_window: query([], I.Opt(I.Nat)),
    icrc7_permitted_drift: query([], I.Opt(I.Nat)),
    icrc7_balance_of: query([I.Vec(t.Account)], I.Vec(I.Nat)),
    icrc7_owner_of: query([I.Vec(I.Nat)], I.Vec(I.Opt(t.Account))),
    icrc7_tokens: query([I.Opt(I.Nat), I.Opt(I.Nat)], I.Vec(I.Nat)),
    // ICRC-7's `opt nat` for take, where spec 1 lists `opt nat32` (decision G19).
    icrc7_tokens_of: query([t.Account, I.Opt(I.Nat), I.Opt(I.Nat)], I.Vec(I.Nat)),
    icrc7_token_metadata: query([I.Vec(I.Nat)], I.Vec(I.Opt(I.Vec(I.Tuple(I.Text, t.Value))))),
    icrc7_transfer: update([I.Vec(t.TransferArg)], I.Vec(I.Opt(t.TransferResult))),
    icrc10_supported_standards: query([], I.Vec(t.Standard)),
  } satisfies MethodTable;
}
