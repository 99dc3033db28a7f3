// Decision W18: the management canister's (`aaaaa-aa`) methods the deploy tool (and, W26, the backup tool's canister
// snapshots) calls and the test replica serves, as Candid (the interface specification's ic.did, the fields used here).
// Records are Candid records: a network answering with more fields (a newer ic.did) still decodes into these.
import { IDL } from '@icp-sdk/core/candid';
import type { Principal } from '@icp-sdk/core/principal';

export const MANAGEMENT_CANISTER_ID = 'aaaaa-aa';

const settings = IDL.Record({
  controllers: IDL.Opt(IDL.Vec(IDL.Principal)),
  compute_allocation: IDL.Opt(IDL.Nat),
  memory_allocation: IDL.Opt(IDL.Nat),
  freezing_threshold: IDL.Opt(IDL.Nat),
});
const upgradeOptions = IDL.Record({ skip_pre_upgrade: IDL.Opt(IDL.Bool) });
/** Decision W26: a canister snapshot as ic.did lists it. */
const snapshot = IDL.Record({ id: IDL.Vec(IDL.Nat8), taken_at_timestamp: IDL.Nat64, total_size: IDL.Nat64 });

export const managementTypes = {
  settings,
  provisionalCreateArgs: IDL.Record({
    amount: IDL.Opt(IDL.Nat),
    settings: IDL.Opt(settings),
    specified_id: IDL.Opt(IDL.Principal),
    sender_canister_version: IDL.Opt(IDL.Nat64),
  }),
  createArgs: IDL.Record({ settings: IDL.Opt(settings), sender_canister_version: IDL.Opt(IDL.Nat64) }),
  createResult: IDL.Record({ canister_id: IDL.Principal }),
  installArgs: IDL.Record({
    mode: IDL.Variant({ install: IDL.Null, reinstall: IDL.Null, upgrade: IDL.Opt(upgradeOptions) }),
    canister_id: IDL.Principal,
    wasm_module: IDL.Vec(IDL.Nat8),
    arg: IDL.Vec(IDL.Nat8),
    sender_canister_version: IDL.Opt(IDL.Nat64),
  }),
  updateSettingsArgs: IDL.Record({ canister_id: IDL.Principal, settings, sender_canister_version: IDL.Opt(IDL.Nat64) }),
  canisterIdArg: IDL.Record({ canister_id: IDL.Principal }),
  snapshotInfo: snapshot,
  snapshotList: IDL.Vec(snapshot),
  takeSnapshotArgs: IDL.Record({
    canister_id: IDL.Principal,
    replace_snapshot: IDL.Opt(IDL.Vec(IDL.Nat8)),
    uninstall_code: IDL.Opt(IDL.Bool),
    sender_canister_version: IDL.Opt(IDL.Nat64),
  }),
  loadSnapshotArgs: IDL.Record({
    canister_id: IDL.Principal,
    snapshot_id: IDL.Vec(IDL.Nat8),
    sender_canister_version: IDL.Opt(IDL.Nat64),
  }),
  deleteSnapshotArgs: IDL.Record({ canister_id: IDL.Principal, snapshot_id: IDL.Vec(IDL.Nat8) }),
  statusResult: IDL.Record({
    status: IDL.Variant({ running: IDL.Null, stopping: IDL.Null, stopped: IDL.Null }),
    settings: IDL.Record({
      controllers: IDL.Vec(IDL.Principal),
      compute_allocation: IDL.Nat,
      memory_allocation: IDL.Nat,
      freezing_threshold: IDL.Nat,
    }),
    module_hash: IDL.Opt(IDL.Vec(IDL.Nat8)),
    memory_size: IDL.Nat,
    cycles: IDL.Nat,
  }),
};

/** The management canister's service, for `Actor.createActor` (the deploy tool). */
export const managementIdl: IDL.InterfaceFactory = () =>
  IDL.Service({
    provisional_create_canister_with_cycles: IDL.Func(
      [managementTypes.provisionalCreateArgs],
      [managementTypes.createResult],
      [],
    ),
    install_code: IDL.Func([managementTypes.installArgs], [], []),
    update_settings: IDL.Func([managementTypes.updateSettingsArgs], [], []),
    canister_status: IDL.Func([managementTypes.canisterIdArg], [managementTypes.statusResult], []),
    stop_canister: IDL.Func([managementTypes.canisterIdArg], [], []),
    start_canister: IDL.Func([managementTypes.canisterIdArg], [], []),
    take_canister_snapshot: IDL.Func([managementTypes.takeSnapshotArgs], [managementTypes.snapshotInfo], []),
    load_canister_snapshot: IDL.Func([managementTypes.loadSnapshotArgs], [], []),
    list_canister_snapshots: IDL.Func([managementTypes.canisterIdArg], [managementTypes.snapshotList], []),
    delete_canister_snapshot: IDL.Func([managementTypes.deleteSnapshotArgs], [], []),
  });

export type InstallMode =
  { install: null } | { reinstall: null } | { upgrade: [] | [{ skip_pre_upgrade: [] | [boolean] }] };
export interface CanisterSettings {
  controllers: [] | [Principal[]];
  compute_allocation: [] | [bigint];
  memory_allocation: [] | [bigint];
  freezing_threshold: [] | [bigint];
}
export interface CanisterStatus {
  status: { running: null } | { stopping: null } | { stopped: null };
  settings: {
    controllers: Principal[];
    compute_allocation: bigint;
    memory_allocation: bigint;
    freezing_threshold: bigint;
  };
  module_hash: [] | [Uint8Array | number[]];
  memory_size: bigint;
  cycles: bigint;
}
export interface ManagementService {
  provisional_create_canister_with_cycles(a: {
    amount: [] | [bigint];
    settings: [] | [CanisterSettings];
    specified_id: [] | [Principal];
    sender_canister_version: [] | [bigint];
  }): Promise<{ canister_id: Principal }>;
  install_code(a: {
    mode: InstallMode;
    canister_id: Principal;
    wasm_module: Uint8Array;
    arg: Uint8Array;
    sender_canister_version: [] | [bigint];
  }): Promise<void>;
  update_settings(a: {
    canister_id: Principal;
    settings: CanisterSettings;
    sender_canister_version: [] | [bigint];
  }): Promise<void>;
  canister_status(a: { canister_id: Principal }): Promise<CanisterStatus>;
  stop_canister(a: { canister_id: Principal }): Promise<void>;
  start_canister(a: { canister_id: Principal }): Promise<void>;
  take_canister_snapshot(a: {
    canister_id: Principal;
    replace_snapshot: [] | [Uint8Array];
    uninstall_code: [] | [boolean];
    sender_canister_version: [] | [bigint];
  }): Promise<CanisterSnapshotInfo>;
  load_canister_snapshot(a: {
    canister_id: Principal;
    snapshot_id: Uint8Array;
    sender_canister_version: [] | [bigint];
  }): Promise<void>;
  list_canister_snapshots(a: { canister_id: Principal }): Promise<CanisterSnapshotInfo[]>;
  delete_canister_snapshot(a: { canister_id: Principal; snapshot_id: Uint8Array }): Promise<void>;
}
export interface CanisterSnapshotInfo {
  id: Uint8Array | number[];
  taken_at_timestamp: bigint;
  total_size: bigint;
}
