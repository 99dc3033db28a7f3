// Decision W18: the management canister's methods a deployment needs, served by the test replica to
// ingress and canister calls alike: provisional_create_canister_with_cycles, install_code (install,
// reinstall, upgrade; a gzipped module is unpacked), update_settings (controllers) and canister_status,
// with the IC's controller check and reject forms; raw_rand answers 32 random bytes. The snapshot
// methods and stop/start (decision W26) are in snapshots.ts.
import { createHash, randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { IDL } from '@icp-sdk/core/candid';
import { Principal } from '@icp-sdk/core/principal';
import { managementTypes } from '@domdao/canisters/management';
import { notFound, type ManagementHost } from './management-host.ts';
import { SNAPSHOT_METHODS, snapshotCall } from './snapshots.ts';
import { ERROR_CODE, REJECT, type Result } from './types.ts';

/** An init, pre_upgrade or post_upgrade that trapped: the install fails with the IC's reject (decision W18). */
export class InstallTrap extends Error {
  override name = 'InstallTrap';
  constructor(
    message: string,
    readonly result: Result,
  ) {
    super(message);
  }
}

/** The next free id of the replica's range (decision W18: as a local replica numbers them, from 0). */
function nextCanisterId(replica: ManagementHost): string {
  for (let n = 0; n < 0x100000; n++) {
    const id = Principal.fromUint8Array(
      Uint8Array.from([0, 0, 0, 0, 0, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff, 1, 1]),
    ).toText();
    if (!replica.canisters.has(id) && !replica.empty.has(id)) return id;
  }
  throw new Error('the replica has no canister id left');
}

/**
 * Decision W18: the management canister's methods a deployment needs. Each is one message: it
 * changes what it says and answers, or rejects (as the IC words it) and changes nothing.
 */
export function managementCall(replica: ManagementHost, caller: string, method: string, arg: Uint8Array): Result {
  const t = managementTypes;
  const reply = (type: IDL.Type | undefined, value?: unknown): Result => ({
    reply: new Uint8Array(type ? IDL.encode([type], [value]) : IDL.encode([], [])),
  });
  const decode = <T>(type: IDL.Type): T => {
    const [v] = IDL.decode([type], Uint8Array.from(arg)); // a copy: the decoder reads from the buffer's start
    return v as T;
  };
  const controlled = (id: string): Result | string[] => {
    const controllers = replica.controllersOf(id);
    if (!controllers) return notFound(id);
    if (!controllers.includes(caller))
      return {
        rejectCode: REJECT.CANISTER_ERROR,
        rejectMessage: `Only the controllers of the canister ${id} can control it.\nCanister's controllers: ${controllers.join(' ')}\nSender's ID: ${caller}`,
        errorCode: ERROR_CODE.CANISTER_INVALID_CONTROLLER,
      };
    return controllers;
  };
  try {
    if (SNAPSHOT_METHODS.has(method)) {
      // Decision W26: controllers only, then the method itself (snapshots.ts).
      const controllers = controlled(decode<{ canister_id: Principal }>(t.canisterIdArg).canister_id.toText());
      if (!Array.isArray(controllers)) return controllers;
      return snapshotCall(replica, method, arg);
    }
    switch (method) {
      case 'raw_rand':
        return reply(IDL.Vec(IDL.Nat8), randomBytes(32));
      case 'provisional_create_canister_with_cycles': {
        type Settings = { controllers: [] | [Principal[]] };
        const a = decode<{ settings: [] | [Settings]; specified_id: [] | [Principal] }>(t.provisionalCreateArgs);
        const id = a.specified_id[0]?.toText() ?? nextCanisterId(replica);
        if (replica.controllersOf(id))
          return {
            rejectCode: REJECT.DESTINATION_INVALID,
            rejectMessage: `Canister ${id} is already installed.`,
            errorCode: ERROR_CODE.CANISTER_ALREADY_INSTALLED,
          };
        const controllers = a.settings[0]?.controllers[0]?.map((p) => p.toText()) ?? [caller];
        replica.empty.set(id, controllers);
        return reply(t.createResult, { canister_id: Principal.fromText(id) });
      }
      case 'install_code': {
        const a = decode<{
          mode: Record<string, unknown>;
          canister_id: Principal;
          wasm_module: Uint8Array | number[];
          arg: Uint8Array | number[];
        }>(t.installArgs);
        const id = a.canister_id.toText();
        const controllers = controlled(id);
        if (!Array.isArray(controllers)) return controllers;
        let wasm = Uint8Array.from(a.wasm_module);
        if (wasm[0] === 0x1f && wasm[1] === 0x8b) wasm = new Uint8Array(gunzipSync(wasm));
        const init = Uint8Array.from(a.arg);
        const mode = Object.keys(a.mode)[0];
        const installed = replica.canisters.get(id);
        if (mode === 'install' && installed)
          return {
            rejectCode: REJECT.CANISTER_ERROR,
            rejectMessage: `Canister ${id} cannot be installed because the canister is not empty. Try installing with mode='reinstall' instead.`,
            errorCode: ERROR_CODE.CANISTER_NON_EMPTY,
          };
        if (mode === 'upgrade' && !installed)
          return {
            rejectCode: REJECT.CANISTER_ERROR,
            rejectMessage: `Error from Canister ${id}: Attempted to execute a message, but the canister contains no Wasm module.`,
            errorCode: ERROR_CODE.CANISTER_WASM_MODULE_NOT_FOUND,
          };
        if (mode === 'upgrade') replica.upgradeNow(id, init, caller, wasm);
        else {
          // install or reinstall: a fresh canister (empty stable memory) keeping its controllers; a trap in init leaves
          // it as it was.
          const before = replica.canisters.get(id);
          replica.canisters.delete(id);
          try {
            replica.installNow(id, wasm, init, caller, [...controllers]);
          } catch (e) {
            if (before) replica.canisters.set(id, before);
            throw e;
          }
          if (before) replica.canisters.get(id)!.version = before.version + 1n;
        }
        return reply(undefined);
      }
      case 'update_settings': {
        const a = decode<{ canister_id: Principal; settings: { controllers: [] | [Principal[]] } }>(
          t.updateSettingsArgs,
        );
        const id = a.canister_id.toText();
        const controllers = controlled(id);
        if (!Array.isArray(controllers)) return controllers;
        const next = a.settings.controllers[0];
        if (next) controllers.splice(0, controllers.length, ...next.map((p) => p.toText()));
        return reply(undefined);
      }
      case 'canister_status': {
        const id = decode<{ canister_id: Principal }>(t.canisterIdArg).canister_id.toText();
        const controllers = controlled(id);
        if (!Array.isArray(controllers)) return controllers;
        const c = replica.canisters.get(id);
        return reply(t.statusResult, {
          status: replica.stopped.has(id) ? { stopped: null } : { running: null },
          settings: {
            controllers: controllers.map((p) => Principal.fromText(p)),
            compute_allocation: 0n,
            memory_allocation: 0n,
            freezing_threshold: 2_592_000n,
          },
          module_hash: c ? [createHash('sha256').update(c.wasm).digest()] : [],
          memory_size: BigInt(c ? c.live().heap.length + c.stable.length : 0),
          cycles: 100_000_000_000_000n,
        });
      }
    }
  } catch (e) {
    if (e instanceof InstallTrap) return e.result;
    return {
      rejectCode: REJECT.CANISTER_ERROR,
      rejectMessage: `Error from Canister aaaaa-aa: the arguments of ${method} could not be decoded: ${(e as Error).message}`,
      errorCode: ERROR_CODE.CANISTER_INVALID_ARGUMENT,
    };
  }
  return {
    rejectCode: REJECT.DESTINATION_INVALID,
    rejectMessage: `the test replica offers no management method ${method}`,
    errorCode: ERROR_CODE.CANISTER_METHOD_NOT_FOUND,
  };
}
