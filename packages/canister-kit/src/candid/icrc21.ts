// ICRC-21 (canister call consent messages) Candid types, as the official ICRC-21.did declares them in its
// version with typed field values (TokenAmount, TimestampSeconds, DurationSeconds, Text), checked with
// didc against the copy in platform/canisters/test/fixtures/ICRC-21.did. The ledger and governance add
// `icrc21_canister_call_consent_message` (an update call, as the standard declares it) to their tables.
import { enumVariant, update, type Idl } from './methods.ts';

export function icrc21Types(I: Idl) {
  const Metadata = I.Record({ language: I.Text, utc_offset_minutes: I.Opt(I.Int16) });
  const Spec = I.Record({
    metadata: Metadata,
    device_spec: I.Opt(enumVariant(I, ['GenericDisplay', 'FieldsDisplay'])),
  });
  const Request = I.Record({ method: I.Text, arg: I.Vec(I.Nat8), user_preferences: Spec });
  const Value = I.Variant({
    TokenAmount: I.Record({ decimals: I.Nat8, amount: I.Nat64, symbol: I.Text }),
    TimestampSeconds: I.Record({ amount: I.Nat64 }),
    DurationSeconds: I.Record({ amount: I.Nat64 }),
    Text: I.Record({ content: I.Text }),
  });
  const Message = I.Variant({
    GenericDisplayMessage: I.Text,
    FieldsDisplayMessage: I.Record({ intent: I.Text, fields: I.Vec(I.Tuple(I.Text, Value)) }),
  });
  const Info = I.Record({ consent_message: Message, metadata: Metadata });
  const ErrorInfo = I.Record({ description: I.Text });
  const Error = I.Variant({
    UnsupportedCanisterCall: ErrorInfo,
    ConsentMessageUnavailable: ErrorInfo,
    InsufficientPayment: ErrorInfo,
    GenericError: I.Record({ error_code: I.Nat, description: I.Text }),
  });
  const Response = I.Variant({ Ok: Info, Err: Error });
  return { Metadata, Spec, Request, Value, Message, Info, Error, Response };
}

/** The consent message method, for a canister's method table. */
export function icrc21Methods(I: Idl) {
  const t = icrc21Types(I);
  return { icrc21_canister_call_consent_message: update([t.Request], t.Response) };
}
