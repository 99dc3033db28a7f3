// Decisions W1–W3: a test replica that runs the canisters' real `.wasm` files (as `npm run build:canisters`
// makes them) in Node's WebAssembly, providing the `ic0` system API they import with the IC's message
// semantics. It stands in for PocketIC, which cannot be installed here (it downloads its binary); the
// tests reach it only through `CandidTransport` and the methods below, which a PocketIC adapter can
// provide in its place.
//
// What it keeps of the IC (interface specification, "Canister module format" and "System API"):
// - each message (method, callback, timer, init, post_upgrade) is atomic: a trap restores the heap,
//   the globals and stable memory to what they were before it, and drops the calls it made;
// - a call made by an update is sent only if the message that made it commits; awaiting its answer
//   ends the message, so everything before the await is committed (and a later trap keeps it);
// - queries never commit; the caller, time, self id and arguments are those of the message;
// - an upgrade keeps stable memory and starts a fresh heap (`canister_pre_upgrade`, then
//   `canister_post_upgrade` on a new instance), and deactivates the global timer;
// - the global timer fires `canister_global_timer` once the time reaches it (`tick`);
// - replies over 2 MiB trap (the IC's limit); a call to an unknown canister is rejected.
// - certified data is kept per canister and certified for ingress queries (certification.ts, W9);
// Cycles are not accounted (balances report a constant); `raw_rand` on the management canister answers 32 random bytes;
// provisional_create_canister_with_cycles, install_code (install, reinstall, upgrade; a gzipped module is unpacked),
// update_settings (controllers) and canister_status are served with the IC's controller check (decision W18); canister
// snapshots and stop/start (decision W26). Rejects carry the IC's reject codes, error codes and message forms (decision
// W13), which the HTTP interface (../http/) passes on.
import { Principal } from '@icp-sdk/core/principal';
import { CanisterCallError, type CandidTransport } from '@domdao/canisters/ic';
import { WasmCanister } from './canister.ts';
import { TestSubnetKey } from './certification.ts';
import { noModule, notFound, type ManagementHost } from './management-host.ts';
import { InstallTrap, managementCall } from './management.ts';
import { MAX_SNAPSHOTS, stoppedResult } from './snapshots.ts';
import {
  CallContext,
  ERROR_CODE,
  INSTRUCTION_LIMITS,
  REJECT,
  type CanisterLog,
  type CanisterSnapshot,
  type InstructionCount,
  type InstructionLimits,
  type PendingCall,
  type ReplicaImage,
  type Result,
  type Trap,
} from './types.ts';

const MANAGEMENT = 'aaaaa-aa';

/** The reject the IC gives for a trap in canister `id` (decision W13). */
export function trapResult(id: string, trap: Trap): Result {
  const rejectMessage =
    trap.code === ERROR_CODE.CANISTER_CALLED_TRAP
      ? `Error from Canister ${id}: Canister called \`ic0.trap\` with message: '${trap.message}'.\nConsider gracefully handling failures from this canister or altering the canister to handle exceptions. See documentation: https://internetcomputer.org/docs/current/references/execution-errors#trapped-explicitly`
      : `Error from Canister ${id}: Canister trapped: ${trap.message}`;
  return { rejectCode: REJECT.CANISTER_ERROR, rejectMessage, errorCode: trap.code };
}
const noMethod = (id: string, kind: 'query' | 'update', method: string): Result => ({
  rejectCode: REJECT.CANISTER_ERROR,
  rejectMessage: `Error from Canister ${id}: Canister has no ${kind} method '${method}'.`,
  errorCode: ERROR_CODE.CANISTER_METHOD_NOT_FOUND,
});
const noReply = (id: string): Result => ({
  rejectCode: REJECT.CANISTER_ERROR,
  rejectMessage: `Error from Canister ${id}: Canister did not reply to the call`,
  errorCode: ERROR_CODE.CANISTER_DID_NOT_REPLY,
});

type Task = () => void;

export class WasmReplica implements ManagementHost {
  /** The key that signs this replica's certificates; `subnetKey.rootKey` verifies them (decision W9). */
  readonly subnetKey: TestSubnetKey;
  /** Nanoseconds since the epoch, as ic0.time returns them; tests move it. */
  time = BigInt(Date.parse('2026-03-10T12:00:00Z')) * 1_000_000n;
  readonly canisters = new Map<string, WasmCanister>();
  readonly log: CanisterLog[] = [];
  /** Every message's instruction count, in the order they ran (decision W4). */
  readonly counts: InstructionCount[] = [];
  /** The IC's by default; a test may lower them to see a message stopped at its limit. */
  readonly limits: InstructionLimits;
  constructor(options: { limits?: Partial<InstructionLimits>; subnetKey?: TestSubnetKey } = {}) {
    this.limits = { ...INSTRUCTION_LIMITS, ...options.limits };
    this.subnetKey = options.subnetKey ?? new TestSubnetKey();
  }
  /**
   * Whether messages are metered (decision W4): on by default. A benchmark turns it off to build large
   * stores at the unmetered speed (about twice as fast) and on again for the messages it measures;
   * unmetered messages are neither counted nor held to the limits.
   */
  get metering(): boolean {
    return this.meteringOn;
  }
  set metering(on: boolean) {
    this.meteringOn = on;
    for (const c of this.canisters.values()) c.remeter(on);
  }
  private meteringOn = true;
  /** Fault injection: a message that answers `method` traps at its reply, after all its writes. */
  trapAtReply: ((canister: string, method: string) => boolean) | undefined;
  private readonly queue: Task[] = [];
  /** What each installed canister's wasm is (for upgrades, and a loaded snapshot's). */
  readonly modules = new Map<string, Uint8Array>();
  /** Decision W26: stopped canisters (every call and query to them is rejected) and canister snapshots. */
  readonly stopped = new Set<string>();
  readonly snapshots = new Map<string, CanisterSnapshot[]>();
  /** The last local snapshot number per canister (ids are never reused), and the IC's limit (a test may lower it). */
  readonly snapshotCounter = new Map<string, bigint>();
  snapshotLimit = MAX_SNAPSHOTS;
  /** The snapshots loaded (canister, snapshot id) since the HTTP replica last took them for its journal (decision W28). */
  readonly loads: Array<[canister: string, snapshot: Uint8Array]> = [];

  /** Installs `wasm` as canister `id` and runs its `canister_init` with `arg` (Candid) as `installer`. */
  async install(id: string, wasm: Uint8Array, arg: Uint8Array, installer: string): Promise<void> {
    this.installNow(id, wasm, arg, installer, [installer]);
    await this.drain();
  }

  /** Canisters created and not (yet) given a module: their controllers (decision W18). */
  readonly empty = new Map<string, string[]>();

  /** Installs as `install_code` does (the caller drains the queue); throws InstallTrap if `canister_init` traps. */
  installNow(id: string, wasm: Uint8Array, arg: Uint8Array, installer: string, controllers: string[]): void {
    const canister = new WasmCanister(id, this, controllers);
    canister.load(wasm);
    const r = canister.execute(
      {
        kind: 'init',
        arg,
        caller: Principal.fromText(installer).toUint8Array(),
        method: 'canister_init',
        context: undefined,
      },
      () => canister.exported('canister_init')(),
      true,
    );
    if (r.trap) throw new InstallTrap(`install of ${id} trapped: ${r.trap.message}`, trapResult(id, r.trap));
    this.canisters.set(id, canister);
    this.empty.delete(id);
    this.modules.set(id, wasm);
    this.send(canister, undefined, r.performed);
  }

  /**
   * Upgrades `id` to `wasm` (default: the same module): `canister_pre_upgrade` on the old instance,
   * then `canister_post_upgrade` with `arg` on a fresh one over the same stable memory. A trap in
   * either leaves the canister as it was, except that a pre_upgrade's own writes stay when the
   * post_upgrade traps (the IC undoes them too; Azle exports no pre_upgrade, decision W2). The global
   * timer is deactivated, as on the IC.
   */
  async upgrade(id: string, arg: Uint8Array, installer: string, wasm = this.modules.get(id)!): Promise<void> {
    this.upgradeNow(id, arg, installer, wasm);
    await this.drain();
  }

  /** Upgrades as `install_code` does (the caller drains the queue); throws InstallTrap if an upgrade hook traps. */
  upgradeNow(id: string, arg: Uint8Array, installer: string, wasm: Uint8Array): void {
    const canister = this.canister(id);
    const caller = Principal.fromText(installer).toUint8Array();
    if (typeof canister.instance.exports.canister_pre_upgrade === 'function') {
      const pre = canister.execute(
        { kind: 'pre_upgrade', arg: new Uint8Array(), caller, method: 'canister_pre_upgrade', context: undefined },
        () => canister.exported('canister_pre_upgrade')(),
        true,
      );
      if (pre.trap)
        throw new InstallTrap(`pre_upgrade of ${id} trapped: ${pre.trap.message}`, trapResult(id, pre.trap));
    }
    const old = canister.saved();
    canister.load(wasm); // a fresh instance over the same stable memory
    canister.timer = 0n;
    canister.version += 1n;
    const r = canister.execute(
      { kind: 'post_upgrade', arg, caller, method: 'canister_post_upgrade', context: undefined },
      () => canister.exported('canister_post_upgrade')(),
      true,
    );
    if (r.trap) {
      canister.restore(old);
      throw new InstallTrap(`post_upgrade of ${id} trapped: ${r.trap.message}`, trapResult(id, r.trap));
    }
    this.modules.set(id, wasm);
    this.send(canister, undefined, r.performed);
  }

  /** Every canister and what the replica recorded, with no message queued (decision W10). */
  image(): ReplicaImage {
    if (this.queue.length > 0) throw new Error('messages are queued');
    return {
      time: this.time,
      canisters: [...this.canisters].map(([id, c]) => [id, c.image()]),
      empty: [...this.empty].map(([id, controllers]) => [id, [...controllers]]),
      log: this.log.map((l) => ({ ...l })),
      counts: this.counts.map((c) => ({ ...c })),
      stopped: [...this.stopped],
      snapshots: [...this.snapshotCounter].map(([id, counter]) => [id, [...(this.snapshots.get(id) ?? [])], counter]),
    };
  }

  /** Puts this replica, which has no canister yet, in the state an image was taken of. */
  restore(image: ReplicaImage): void {
    if (this.canisters.size > 0) throw new Error('the replica already has canisters');
    this.time = image.time;
    for (const [id, c] of image.canisters) {
      this.canisters.set(id, WasmCanister.fromImage(id, this, c));
      this.modules.set(id, c.wasm);
    }
    for (const [id, controllers] of image.empty ?? []) this.empty.set(id, [...controllers]);
    this.log.push(...image.log.map((l) => ({ ...l })));
    this.counts.push(...image.counts.map((c) => ({ ...c })));
    for (const id of image.stopped ?? []) this.stopped.add(id);
    for (const [id, snapshots, counter] of image.snapshots ?? []) {
      this.snapshots.set(id, [...snapshots]);
      this.snapshotCounter.set(id, counter);
    }
  }

  canister(id: string): WasmCanister {
    const c = this.canisters.get(id);
    if (!c) throw new Error(`no canister ${id}`);
    return c;
  }

  /** A query call: runs on the current state and never commits. */
  async query(caller: string, id: string, method: string, arg: Uint8Array): Promise<Result> {
    const canister = this.canisters.get(id);
    if (!canister) return this.empty.has(id) ? noModule(id) : notFound(id);
    if (this.stopped.has(id)) return stoppedResult(id);
    const name = `canister_query ${method}`;
    if (typeof canister.instance.exports[name] !== 'function') return noMethod(id, 'query', method);
    // The answer is what the message replied; the context only lets it reply.
    const context = new CallContext(() => undefined);
    let certificate: Uint8Array | undefined;
    const certify = () => (certificate ??= this.subnetKey.certificate(id, canister.certifiedData, this.time));
    const r = canister.execute(
      { kind: 'query', arg, caller: Principal.fromText(caller).toUint8Array(), method, context, certificate: certify },
      () => canister.exported(name)(),
      false,
    );
    if (r.trap) return trapResult(id, r.trap);
    return r.replied ?? noReply(id);
  }

  /** An update call from outside (an ingress message): answered once every message it led to has run. */
  async update(caller: string, id: string, method: string, arg: Uint8Array): Promise<Result> {
    let result: Result | undefined;
    this.deliver(Principal.fromText(caller).toUint8Array(), id, method, arg, (r) => (result = r));
    await this.drain();
    return result ?? { rejectCode: REJECT.SYS_FATAL, rejectMessage: 'no answer (the call is still open)' };
  }

  /** Fires every global timer that is due, then runs what they led to. */
  async tick(): Promise<void> {
    for (const canister of this.canisters.values()) {
      if (canister.timer !== 0n && canister.timer <= this.time) {
        canister.timer = 0n;
        this.queue.push(() => {
          const r = canister.execute(
            {
              kind: 'timer',
              arg: new Uint8Array(),
              caller: new Uint8Array(),
              method: 'canister_global_timer',
              context: undefined,
            },
            () => canister.exported('canister_global_timer')(),
            true,
          );
          if (r.trap) this.log.push({ canister: canister.id, message: `timer trapped: ${r.trap.message}` });
          this.send(canister, undefined, r.performed);
        });
      }
    }
    await this.drain();
  }

  /** Clients' transport: every call made as `caller`. */
  transport(caller: string): CandidTransport {
    const settle = (id: string, method: string, r: Result) => {
      if ('reply' in r) return r.reply;
      throw new CanisterCallError(id, method, r.rejectMessage, r.rejectCode);
    };
    return {
      query: async (id, method, arg) => settle(id, method, await this.query(caller, id, method, arg)),
      update: async (id, method, arg) => settle(id, method, await this.update(caller, id, method, arg)),
    };
  }

  private deliver(caller: Uint8Array, id: string, method: string, arg: Uint8Array, answer: (r: Result) => void): void {
    this.queue.push(() => {
      if (id === MANAGEMENT) return answer(this.management(Principal.fromUint8Array(caller).toText(), method, arg));
      const canister = this.canisters.get(id);
      if (!canister) return answer(this.empty.has(id) ? noModule(id) : notFound(id));
      if (this.stopped.has(id)) return answer(stoppedResult(id));
      // A query method may be called as an update (other canisters do so): it runs, but commits nothing.
      const exports = canister.instance.exports;
      const asQuery =
        typeof exports[`canister_update ${method}`] !== 'function' &&
        typeof exports[`canister_query ${method}`] === 'function';
      const name = asQuery ? `canister_query ${method}` : `canister_update ${method}`;
      if (typeof exports[name] !== 'function') return answer(noMethod(id, 'update', method));
      const context = new CallContext(answer);
      const r = canister.execute(
        { kind: asQuery ? 'query' : 'update', arg, caller, method, context },
        () => canister.exported(name)(),
        !asQuery,
      );
      this.finish(canister, context, r);
    });
  }

  /** After a message of `context`: its answer (or trap) and the calls it made. */
  private finish(
    canister: WasmCanister,
    context: CallContext | undefined,
    r: ReturnType<WasmCanister['execute']>,
  ): void {
    if (context && !context.answered) {
      if (r.trap) this.respond(context, trapResult(canister.id, r.trap));
      else if (r.replied) this.respond(context, r.replied);
    }
    this.send(canister, context, r.performed);
    if (context && !context.answered && context.outstanding === 0) this.respond(context, noReply(canister.id));
  }

  private respond(context: CallContext, r: Result): void {
    context.answered = true;
    context.answer(r);
  }

  /** Sends the calls a committed message made; their answers run as callbacks of `from`. */
  private send(from: WasmCanister, context: CallContext | undefined, calls: PendingCall[]): void {
    const ctx = context ?? new CallContext(() => undefined);
    for (const call of calls) {
      ctx.outstanding += 1;
      this.deliver(
        Principal.fromText(from.id).toUint8Array(),
        call.callee,
        call.method,
        Uint8Array.from(call.data),
        (result) => {
          this.queue.push(() => {
            ctx.outstanding -= 1;
            const [fun, env] = 'reply' in result ? call.reply : call.reject;
            const state =
              'reply' in result
                ? { kind: 'reply' as const, arg: result.reply }
                : {
                    kind: 'reject' as const,
                    arg: new Uint8Array(),
                    rejectCode: result.rejectCode,
                    rejectMessage: result.rejectMessage,
                  };
            const r = from.execute(
              { ...state, caller: Principal.fromText(call.callee).toUint8Array(), method: call.method, context: ctx },
              from.callback(fun, env),
              true,
            );
            if (r.trap && call.cleanup) {
              const [cf, ce] = call.cleanup;
              const c = from.execute(
                {
                  kind: 'cleanup',
                  arg: new Uint8Array(),
                  caller: new Uint8Array(),
                  method: call.method,
                  context: undefined,
                },
                from.callback(cf, ce),
                true,
              );
              if (c.trap) this.log.push({ canister: from.id, message: `cleanup trapped: ${c.trap.message}` });
            }
            if (r.trap)
              this.log.push({ canister: from.id, message: `callback of ${call.method} trapped: ${r.trap.message}` });
            this.finish(from, context, r);
          });
        },
      );
    }
  }

  /** The controllers of `id` (installed or empty), undefined if there is no such canister. */
  controllersOf(id: string): string[] | undefined {
    return this.canisters.get(id)?.controllers ?? this.empty.get(id);
  }

  /** A call to the management canister (decision W18, management.ts). */
  private management(caller: string, method: string, arg: Uint8Array): Result {
    return managementCall(this, caller, method, arg);
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      this.queue.shift()!();
      // Let other callers' promises (the test's) interleave between messages, as the IC would.
      await Promise.resolve();
    }
  }
}
