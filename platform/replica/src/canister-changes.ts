// Decision W34: a round that creates, installs, reinstalls or upgrades a canister, or changes controllers,
// is an ordinary journaled round. The record carries only what changed: each canister given a new module
// (or a new instance of one), whole, its module named by its SHA-256, and every canister's controllers
// and the empty canisters after the round. A module is written once to `modules/<sha256>.wasm` (synced,
// then the folder) before the record that names it; `state.bin` holds the modules inline, so the folder
// is emptied after each new `state.bin`. Such a round used to end with a whole `state.bin` (every
// canister's heap and module serialized and synced): a deploy of the six canisters wrote 14 of them.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { syncDir, writeSynced } from './durable-file.ts';
import { WasmCanister, type WasmReplica } from './host/index.ts';
import type { CanisterImage } from './host/types.ts';

/** A canister's whole state in a journal record, its module by hash (a file of `modules/`). */
export type JournaledCanister = Omit<CanisterImage, 'wasm'> & { module: string };

/** What a round changed in the canisters themselves (a journal record's `installs`). */
export interface CanisterChange {
  /** The canisters given a module or a new instance of one (install, reinstall, upgrade), as they are after the round. */
  installed: Array<[id: string, canister: JournaledCanister]>;
  /** Every installed canister's controllers after the round. */
  controllers: Array<[id: string, controllers: string[]]>;
  /** The canisters created with no module yet, after the round. */
  empty: Array<[id: string, controllers: string[]]>;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export class CanisterChanges {
  readonly folder: string;
  /** The modules written since the last `state.bin`. */
  private readonly onDisk = new Set<string>();
  /** Each canister (and its instance) as last journaled: another object or instance is a new install. */
  private readonly seen = new Map<string, { canister: WasmCanister; instance: WebAssembly.Instance }>();
  /** The controllers and the empty canisters as last journaled. */
  private settings = '';

  constructor(
    dir: string,
    private readonly replica: WasmReplica,
  ) {
    this.folder = join(dir, 'modules');
  }

  private settingsNow(): { key: string; controllers: CanisterChange['controllers']; empty: CanisterChange['empty'] } {
    const controllers: CanisterChange['controllers'] = [...this.replica.canisters].map(([id, c]) => [
      id,
      [...c.controllers],
    ]);
    const empty: CanisterChange['empty'] = [...this.replica.empty].map(([id, list]) => [id, [...list]]);
    return { key: JSON.stringify([controllers, empty]), controllers, empty };
  }

  /** What the replica holds now counts as journaled (after a start or a new `state.bin`). */
  journaled(): void {
    this.seen.clear();
    this.loaded(this.replica.canisters.keys());
    this.settings = this.settingsNow().key;
  }

  /** These canisters count as journaled: a snapshot's load (W28), which its own record carries. */
  loaded(ids: Iterable<string>): void {
    for (const id of ids) {
      const canister = this.replica.canisters.get(id);
      if (canister) this.seen.set(id, { canister, instance: canister.instance });
    }
  }

  private writeModule(wasm: Uint8Array): string {
    const hash = sha256(wasm);
    if (this.onDisk.has(hash)) return hash;
    mkdirSync(this.folder, { recursive: true, mode: 0o700 });
    const file = join(this.folder, `${hash}.wasm`);
    writeSynced(file, wasm);
    syncDir(this.folder);
    this.onDisk.add(hash);
    return hash;
  }

  /** What this round changed, new modules written first; undefined if it changed no canister, controller or empty canister. */
  changes(): CanisterChange | undefined {
    const installed: CanisterChange['installed'] = [];
    for (const [id, c] of this.replica.canisters) {
      const seen = this.seen.get(id);
      if (seen?.canister === c && seen.instance === c.instance) continue;
      const { wasm, ...image } = c.image();
      installed.push([id, { ...image, module: this.writeModule(wasm) }]);
    }
    const now = this.settingsNow();
    if (installed.length === 0 && now.key === this.settings) return undefined;
    this.loaded(installed.map(([id]) => id));
    this.settings = now.key;
    return { installed, controllers: now.controllers, empty: now.empty };
  }

  /** A journaled round's changes, replayed on the replica at a start. */
  replay(change: CanisterChange): void {
    for (const [id, { module, ...image }] of change.installed) {
      const file = join(this.folder, `${module}.wasm`);
      if (!existsSync(file)) throw new Error(`the journal installs module ${module} in ${id}, and ${file} is missing`);
      const wasm = new Uint8Array(readFileSync(file));
      this.replica.canisters.set(id, WasmCanister.fromImage(id, this.replica, { ...image, wasm }));
      this.replica.modules.set(id, wasm);
      this.onDisk.add(module);
    }
    for (const [id, controllers] of change.controllers)
      this.replica.canisters.get(id)?.controllers.splice(0, Infinity, ...controllers);
    this.replica.empty.clear();
    for (const [id, controllers] of change.empty)
      if (!this.replica.canisters.has(id)) this.replica.empty.set(id, [...controllers]);
  }

  /** After a new `state.bin` (which holds every module): the module files are not needed any more. */
  prune(): void {
    if (!existsSync(this.folder)) return;
    for (const f of readdirSync(this.folder)) rmSync(join(this.folder, f), { force: true });
    this.onDisk.clear();
  }
}
