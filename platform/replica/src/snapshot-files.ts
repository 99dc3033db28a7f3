// Decision W28: canister snapshots (W26) on disk, each in a file of its own, `snapshots/<id in hex>.bin`,
// written and synced once, when it is taken. The journal's record of a take, load or delete carries only
// what changed (the canister's list of snapshot ids and its counter, the snapshot loaded), and `state.bin`
// names the snapshots instead of holding their images: a snapshot used to end its round with a whole
// `state.bin` (every canister's heap and every snapshot's image, ~14 s each on the loaded test machine).
// A file no longer named by `state.bin` is removed after the next one is written (a journaled load may
// still need a deleted snapshot's file until then).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { syncDir, writeSynced } from './durable-file.ts';
import { deserialize, serialize } from 'node:v8';
import type { WasmReplica } from './host/index.ts';
import { loadSnapshot } from './host/snapshots.ts';
import type { CanisterImage, CanisterSnapshot, ReplicaImage } from './host/types.ts';

/** A snapshot as `state.bin` and the journal name it (an image inline is a `state.bin` of an earlier release). */
export interface SnapshotRef {
  id: Uint8Array;
  takenAt: bigint;
  image?: CanisterImage;
}
export type StoredImage = Omit<ReplicaImage, 'snapshots'> & {
  snapshots?: Array<[id: string, snapshots: SnapshotRef[], counter: bigint]>;
};

/** What a round changed in the canister snapshots (a journal record's `snapshots`). */
export interface SnapshotChange {
  /** The canisters whose list or counter changed: the list after the round, and the counter. */
  lists: Array<[canister: string, snapshots: SnapshotRef[], counter: bigint]>;
  /** The snapshots loaded, in order. */
  loads: Array<[canister: string, snapshot: Uint8Array]>;
}

const hex = (id: Uint8Array) => Buffer.from(id).toString('hex');
const refOf = (s: CanisterSnapshot): SnapshotRef => ({ id: s.id, takenAt: s.takenAt });

export class SnapshotFiles {
  readonly folder: string;
  /** Snapshots whose file is written (an image is never changed once taken). */
  private readonly onDisk = new WeakSet<CanisterSnapshot>();
  /** Each canister's list and counter as last journaled (the replica replaces a list when it changes it). */
  private readonly lists = new Map<string, CanisterSnapshot[]>();
  private readonly counters = new Map<string, bigint>();

  constructor(
    dir: string,
    private readonly replica: WasmReplica,
  ) {
    this.folder = join(dir, 'snapshots');
  }

  private file(id: Uint8Array): string {
    return join(this.folder, `${hex(id)}.bin`);
  }

  /** Writes the images not on disk yet (synced, and the folder after them); true if it wrote any. */
  private writeNew(snapshots: CanisterSnapshot[]): boolean {
    let wrote = false;
    for (const s of snapshots) {
      if (this.onDisk.has(s)) continue;
      mkdirSync(this.folder, { recursive: true, mode: 0o700 });
      const file = this.file(s.id);
      writeSynced(file, serialize(s.image));
      this.onDisk.add(s);
      wrote = true;
    }
    if (wrote) syncDir(this.folder);
    return wrote;
  }

  private remember(canister: string, list: CanisterSnapshot[], counter: bigint): void {
    this.lists.set(canister, list);
    this.counters.set(canister, counter);
  }

  /** What this round changed, the new snapshots' files written first; undefined if it changed nothing. */
  changes(): SnapshotChange | undefined {
    const lists: SnapshotChange['lists'] = [];
    for (const [canister, counter] of this.replica.snapshotCounter) {
      const list = this.replica.snapshots.get(canister) ?? [];
      if (list === this.lists.get(canister) && counter === this.counters.get(canister)) continue;
      this.writeNew(list);
      lists.push([canister, list.map(refOf), counter]);
      this.remember(canister, list, counter);
    }
    const loads = this.replica.loads.splice(0);
    return lists.length > 0 || loads.length > 0 ? { lists, loads } : undefined;
  }

  /** A journaled round's changes, replayed on the replica at a start. */
  replay(change: SnapshotChange): void {
    for (const [canister, id] of change.loads) {
      const found = this.replica.snapshots.get(canister)?.find((s) => hex(s.id) === hex(id));
      if (!found)
        throw new Error(`the journal loads snapshot ${hex(id)} of ${canister}, which the replica does not have`);
      loadSnapshot(this.replica, canister, found);
    }
    for (const [canister, refs, counter] of change.lists) {
      const kept = new Map((this.replica.snapshots.get(canister) ?? []).map((s) => [hex(s.id), s]));
      const list = refs.map((r) => kept.get(hex(r.id)) ?? this.read(r));
      this.replica.snapshots.set(canister, list);
      this.replica.snapshotCounter.set(canister, counter);
      this.remember(canister, list, counter);
    }
  }

  private read(r: SnapshotRef): CanisterSnapshot {
    const s = {
      id: r.id,
      takenAt: r.takenAt,
      image: r.image ?? (deserialize(readFileSync(this.file(r.id))) as CanisterImage),
    };
    if (!r.image) this.onDisk.add(s);
    return s;
  }

  /** The image for `state.bin`: every snapshot named, its file written if it was not yet. */
  toDisk(image: ReplicaImage): StoredImage {
    const snapshots = (image.snapshots ?? []).map(([canister, list, counter]): [string, SnapshotRef[], bigint] => {
      this.writeNew(list);
      this.remember(canister, this.replica.snapshots.get(canister) ?? list, counter);
      return [canister, list.map(refOf), counter];
    });
    return { ...image, snapshots };
  }

  /** An image read from `state.bin` with its snapshots' images read from their files. */
  fromDisk(image: StoredImage): ReplicaImage {
    const snapshots = (image.snapshots ?? []).map(([canister, refs, counter]): [string, CanisterSnapshot[], bigint] => [
      canister,
      refs.map((r) => this.read(r)),
      counter,
    ]);
    return { ...image, snapshots };
  }

  /** After the replica is restored from `state.bin`: its lists are the journaled ones. */
  restored(): void {
    for (const [canister, counter] of this.replica.snapshotCounter)
      this.remember(canister, this.replica.snapshots.get(canister) ?? [], counter);
  }

  /** Removes the files `state.bin` (just written from `named`) does not name. */
  prune(named: StoredImage): void {
    if (!existsSync(this.folder)) return;
    const keep = new Set((named.snapshots ?? []).flatMap(([, refs]) => refs.map((r) => `${hex(r.id)}.bin`)));
    for (const f of readdirSync(this.folder)) if (!keep.has(f)) rmSync(join(this.folder, f), { force: true });
  }
}
