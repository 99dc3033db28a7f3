// The DOM ledger's Candid interface: ICRC-1, ICRC-2, ICRC-3 and ICRC-10, with the types the official
// ICRC-1.did, ICRC-2.did, ICRC-3.did and ICRC-10.did declare (checked with didc against fixtures of them in
// platform/canisters/test/fixtures), for the Azle entry point and the IC agent client.
import { icrc21Methods, query, update, type Idl, type MethodTable } from '@domdao/canister-kit/candid';

export function ledgerTypes(I: Idl) {
  const Subaccount = I.Vec(I.Nat8);
  const Account = I.Record({ owner: I.Principal, subaccount: I.Opt(Subaccount) });
  const TransferArg = I.Record({
    from_subaccount: I.Opt(Subaccount),
    to: Account,
    amount: I.Nat,
    fee: I.Opt(I.Nat),
    memo: I.Opt(I.Vec(I.Nat8)),
    created_at_time: I.Opt(I.Nat64),
  });
  const common = {
    BadFee: I.Record({ expected_fee: I.Nat }),
    InsufficientFunds: I.Record({ balance: I.Nat }),
    TooOld: I.Null,
    CreatedInFuture: I.Record({ ledger_time: I.Nat64 }),
    Duplicate: I.Record({ duplicate_of: I.Nat }),
    TemporarilyUnavailable: I.Null,
    GenericError: I.Record({ error_code: I.Nat, message: I.Text }),
  };
  const TransferError = I.Variant({ ...common, BadBurn: I.Record({ min_burn_amount: I.Nat }) });
  const MetadataValue = I.Variant({ Nat: I.Nat, Int: I.Int, Text: I.Text, Blob: I.Vec(I.Nat8) });
  const Standard = I.Record({ name: I.Text, url: I.Text });
  const ApproveArgs = I.Record({
    from_subaccount: I.Opt(Subaccount),
    spender: Account,
    amount: I.Nat,
    expected_allowance: I.Opt(I.Nat),
    expires_at: I.Opt(I.Nat64),
    fee: I.Opt(I.Nat),
    memo: I.Opt(I.Vec(I.Nat8)),
    created_at_time: I.Opt(I.Nat64),
  });
  const ApproveError = I.Variant({
    ...common,
    AllowanceChanged: I.Record({ current_allowance: I.Nat }),
    Expired: I.Record({ ledger_time: I.Nat64 }),
  });
  const TransferFromArgs = I.Record({
    spender_subaccount: I.Opt(Subaccount),
    from: Account,
    to: Account,
    amount: I.Nat,
    fee: I.Opt(I.Nat),
    memo: I.Opt(I.Vec(I.Nat8)),
    created_at_time: I.Opt(I.Nat64),
  });
  const TransferFromError = I.Variant({
    ...common,
    BadBurn: I.Record({ min_burn_amount: I.Nat }),
    InsufficientAllowance: I.Record({ allowance: I.Nat }),
  });
  const AllowanceArgs = I.Record({ account: Account, spender: Account });
  const Allowance = I.Record({ allowance: I.Nat, expires_at: I.Opt(I.Nat64) });
  // ICRC-3.
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
  const GetBlocksArgs = I.Vec(I.Record({ start: I.Nat, length: I.Nat }));
  const GetBlocksResult = I.Rec();
  GetBlocksResult.fill(
    I.Record({
      log_length: I.Nat,
      blocks: I.Vec(I.Record({ id: I.Nat, block: Value })),
      archived_blocks: I.Vec(
        I.Record({ args: GetBlocksArgs, callback: I.Func([GetBlocksArgs], [GetBlocksResult], ['query']) }),
      ),
    }),
  );
  const BlockType = I.Record({ block_type: I.Text, url: I.Text });
  const DataCertificate = I.Record({ certificate: I.Vec(I.Nat8), hash_tree: I.Vec(I.Nat8) });
  const GetArchivesArgs = I.Record({ from: I.Opt(I.Principal) });
  const GetArchivesResult = I.Vec(I.Record({ canister_id: I.Principal, start: I.Nat, end: I.Nat }));
  const InitArgs = I.Record({
    minting_account: Account,
    transfer_fee: I.Nat,
    token_name: I.Text,
    token_symbol: I.Text,
    decimals: I.Opt(I.Nat8),
    initial_balances: I.Vec(I.Tuple(Account, I.Nat)),
    // Archive mode (decision L43): absent on every real deployment.
    archive: I.Opt(I.Record({ local_blocks: I.Nat64 })),
  });
  return {
    Account,
    TransferArg,
    TransferError,
    MetadataValue,
    Standard,
    ApproveArgs,
    ApproveError,
    TransferFromArgs,
    TransferFromError,
    AllowanceArgs,
    Allowance,
    Value,
    GetBlocksArgs,
    GetBlocksResult,
    BlockType,
    DataCertificate,
    GetArchivesArgs,
    GetArchivesResult,
    InitArgs,
  };
}

export function ledgerMethods(I: Idl) {
  const t = ledgerTypes(I);
  return {
    icrc1_name: query([], I.Text),
    icrc1_symbol: query([], I.Text),
    icrc1_decimals: query([], I.Nat8),
    icrc1_fee: query([], I.Nat),
    icrc1_metadata: query([], I.Vec(I.Tuple(I.Text, t.MetadataValue))),
    icrc1_total_supply: query([], I.Nat),
    icrc1_minting_account: query([], I.Opt(t.Account)),
    icrc1_balance_of: query([t.Account], I.Nat),
    icrc1_transfer: update([t.TransferArg], I.Variant({ Ok: I.Nat, Err: t.TransferError })),
    icrc1_supported_standards: query([], I.Vec(t.Standard)),
    icrc2_approve: update([t.ApproveArgs], I.Variant({ Ok: I.Nat, Err: t.ApproveError })),
    icrc2_allowance: query([t.AllowanceArgs], t.Allowance),
    icrc2_transfer_from: update([t.TransferFromArgs], I.Variant({ Ok: I.Nat, Err: t.TransferFromError })),
    icrc3_get_blocks: query([t.GetBlocksArgs], t.GetBlocksResult),
    // The archive's icrc3_get_blocks in archive mode, the callback of `archived_blocks` (decision L43).
    get_archived_blocks: query([t.GetBlocksArgs], t.GetBlocksResult),
    icrc3_supported_block_types: query([], I.Vec(t.BlockType)),
    icrc3_get_tip_certificate: query([], I.Opt(t.DataCertificate)),
    icrc3_get_archives: query([t.GetArchivesArgs], t.GetArchivesResult),
    icrc10_supported_standards: query([], I.Vec(t.Standard)),
    // ICRC-21 consent messages (decision L36).
    ...icrc21Methods(I),
  } satisfies MethodTable;
}
