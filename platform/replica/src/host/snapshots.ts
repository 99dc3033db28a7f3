// Decision W26: the management canister's canister snapshot methods and the stop/start they need, as the
// test replica serves them: take_canister_snapshot, load_canister_snapshot, list_canister_snapshots,
// delete_canister_snapshot, stop_canister, start_canister. The IC's rules: controllers only; at most
// MAX_SNAPSHOTS per canister (a full canister takes one more only by replacing one, `replace_snapshot`);
// load only on a stopped canister (its code, heap, stable memory, globals, timer and certified data come
// back; controllers stay, the version moves on); a stopped canister rejects every call and query. A
// snapshot id is the IC's form: the 8-byte big-endian local number, then the canister id's bytes.
import { IDL } from '@icp-sdk/core/candid';
import type { Principal } from '@icp-sdk/core/principal';
import { managementTypes } from '@domdao/canisters/management';
import { WasmCanister } from './canister.ts';
import { noModule, type ManagementHost } from './management-host.ts';
import { ERROR_CODE, REJECT, type CanisterImage, type CanisterSnapshot, type Result } from './types.ts';

/** The IC's limit of snapshots kept per canister (decision W26). */
export const MAX_SNAPSHOTS = 10;

export const SNAPSHOT_METHODS = new Set([
  'take_canister_snapshot',
  'load_canister_snapshot',
  'list_canister_snapshots',
  'delete_canister_snapshot',
  'stop_canister',
  'start_canister',
]);

/** What a call to a stopped canister gets (decision W26: the IC's IC0508). */
export const stoppedResult = (id: string): Result => ({
  rejectCode: REJECT.CANISTER_ERROR,
  rejectMessage: `Canister ${id} is stopped and therefore does not have a CallContextManager`,
  errorCode: ERROR_CODE.CANISTER_STOPPED,
});

const sizeOf = (image: CanisterImage) =>
  BigInt(
    image.wasm.length +
      image.heap.length +
      image.stable.pages.reduce((n, [, bytes]) => n + bytes.length, 0) +
      image.certifiedData.length,
  );

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/**
 * One snapshot or lifecycle call by `caller`, who `controlled` has already found a controller of the
 * named canister. Each changes what it says and answers, or rejects and changes nothing.
 */
export function snapshotCall(replica: ManagementHost, method: string, arg: Uint8Array): Result {
  const t = managementTypes;
  const reply = (type: IDL.Type | undefined, value?: unknown): Result => ({
    reply: new Uint8Array(type ? IDL.encode([type], [value]) : IDL.encode([], [])),
  });
  const [a] = IDL.decode([argType(method)], Uint8Array.from(arg)) as unknown as Array<{
    canister_id: Principal;
    snapshot_id?: Uint8Array | number[];
    replace_snapshot?: [] | [Uint8Array | number[]];
  }>;
  const id = a!.canister_id.toText();
  const kept = replica.snapshots.get(id) ?? [];
  const find = (sid: Uint8Array | number[]): CanisterSnapshot | Result => {
    const want = hex(Uint8Array.from(sid));
    return (
      kept.find((s) => hex(s.id) === want) ?? {
        rejectCode: REJECT.DESTINATION_INVALID,
        rejectMessage: `Could not find the snapshot ID ${want} for canister ${id}.`,
        errorCode: ERROR_CODE.CANISTER_SNAPSHOT_NOT_FOUND,
      }
    );
  };
  const canister = replica.canisters.get(id);
  switch (method) {
    case 'stop_canister':
      replica.stopped.add(id);
      return reply(undefined);
    case 'start_canister':
      replica.stopped.delete(id);
      return reply(undefined);
    case 'list_canister_snapshots':
      return reply(
        t.snapshotList,
        kept.map((s) => ({ id: s.id, taken_at_timestamp: s.takenAt, total_size: sizeOf(s.image) })),
      );
    case 'take_canister_snapshot': {
      if (!canister) return noModule(id);
      const replaced = a!.replace_snapshot?.[0];
      let replacing: CanisterSnapshot | undefined;
      if (replaced !== undefined) {
        const found = find(replaced);
        if (!('id' in found)) return found;
        replacing = found;
      } else if (kept.length >= replica.snapshotLimit)
        return {
          rejectCode: REJECT.CANISTER_ERROR,
          rejectMessage: `Canister ${id} has reached the maximum number of snapshots allowed: ${replica.snapshotLimit}.`,
          errorCode: ERROR_CODE.CANISTER_SNAPSHOT_LIMIT,
        };
      const local = (replica.snapshotCounter.get(id) ?? 0n) + 1n;
      replica.snapshotCounter.set(id, local);
      const sid = new Uint8Array(8 + a!.canister_id.toUint8Array().length);
      new DataView(sid.buffer).setBigUint64(0, local - 1n);
      sid.set(a!.canister_id.toUint8Array(), 8);
      const snapshot: CanisterSnapshot = { id: sid, takenAt: replica.time, image: canister.image() };
      replica.snapshots.set(id, [...kept.filter((s) => s !== replacing), snapshot]);
      return reply(t.snapshotInfo, {
        id: sid,
        taken_at_timestamp: snapshot.takenAt,
        total_size: sizeOf(snapshot.image),
      });
    }
    case 'load_canister_snapshot': {
      const found = find(a!.snapshot_id!);
      if (!('id' in found)) return found;
      if (!replica.stopped.has(id))
        return {
          rejectCode: REJECT.CANISTER_ERROR,
          rejectMessage: `Canister ${id} must be stopped before loading a snapshot.`,
          errorCode: ERROR_CODE.CANISTER_NOT_STOPPED,
        };
      loadSnapshot(replica, id, found);
      replica.loads.push([id, found.id]);
      return reply(undefined);
    }
    case 'delete_canister_snapshot': {
      const found = find(a!.snapshot_id!);
      if (!('id' in found)) return found;
      replica.snapshots.set(
        id,
        kept.filter((s) => s !== found),
      );
      return reply(undefined);
    }
  }
  throw new Error(`not a snapshot method: ${method}`);
}

/**
 * Puts snapshot `s` in canister `id`'s place: its code, heap, stable memory, globals, timer and certified
 * data; the controllers stay and the version moves on. The HTTP replica replays a journaled load with it
 * (decision W28).
 */
export function loadSnapshot(replica: ManagementHost, id: string, s: CanisterSnapshot): void {
  const controllers = replica.controllersOf(id)!;
  const version = (replica.canisters.get(id)?.version ?? 0n) + 1n;
  replica.canisters.set(
    id,
    WasmCanister.fromImage(id, replica, { ...s.image, controllers: [...controllers], version }),
  );
  replica.empty.delete(id);
  replica.modules.set(id, s.image.wasm);
}

function argType(method: string): IDL.Type {
  const t = managementTypes;
  if (method === 'take_canister_snapshot') return t.takeSnapshotArgs;
  if (method === 'load_canister_snapshot') return t.loadSnapshotArgs;
  if (method === 'delete_canister_snapshot') return t.deleteSnapshotArgs;
  return t.canisterIdArg;
}
