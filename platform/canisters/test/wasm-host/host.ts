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
// Cycles are not accounted (balances report a constant); `raw_rand` on the management canister
// answers 32 random bytes; no other management method is offered.
import { createHash, randomBytes } from 'node:crypto';
import { IDL } from '@icp-sdk/core/candid';
import { Principal } from '@icp-sdk/core/principal';
import { CanisterCallError, type CandidTransport } from '../../src/ic/transport.ts';
import { meter } from './meter.ts';
import { exportTableAndGlobals, type ModuleShape } from './patch.ts';
import { TestSubnetKey } from './certification.ts';
import { copyBytes, StableUndo } from './stable-undo.ts';

const PAGE = 65_536;
const MAX_REPLY = 2 * 1024 * 1024;
/** The IC's instruction limits per message (decision W4): updates and their callbacks and timers, queries, install and upgrade. */
export const INSTRUCTION_LIMITS = { update: 40_000_000_000n, query: 5_000_000_000n, install: 300_000_000_000n } as const;
export type InstructionLimits = { -readonly [K in keyof typeof INSTRUCTION_LIMITS]: bigint };
/** The limit that applies to a message of `kind` (the IC's by default). */
export const limitOf = (kind: MessageState['kind'], limits: InstructionLimits = INSTRUCTION_LIMITS) =>
  kind === 'query' ? limits.query : kind === 'init' || kind === 'post_upgrade' || kind === 'pre_upgrade' ? limits.install : limits.update;
const MANAGEMENT = 'aaaaa-aa';
/** Reject codes of the IC interface specification. */
export const REJECT = { SYS_FATAL: 1, SYS_TRANSIENT: 2, DESTINATION_INVALID: 3, CANISTER_REJECT: 4, CANISTER_ERROR: 5 } as const;

/** A trap: ic0.trap, or a wasm runtime error (unreachable, out of bounds) inside a message. */
export class Trap extends Error {
  override name = 'Trap';
}

interface Prepared {
  module: WebAssembly.Module;
  shape: ModuleShape;
  /** The export of the metering counter (decision W4); none in an unmetered module. */
  counterExport: string | undefined;
}

/**
 * Patched (and metered, unless `metered` is false) and compiled once per distinct wasm: metering takes
 * most of a second. Both variants keep the module's own globals at the same indices (the counter is
 * appended after them), so a canister's state moves between them (decision W4).
 */
const compiled = new Map<string, Prepared>();
function prepare(wasm: Uint8Array, metered: boolean): Prepared {
  const key = `${createHash('sha256').update(wasm).digest('hex')}:${metered}`;
  let entry = compiled.get(key);
  if (!entry) {
    const counted = metered ? meter(wasm) : undefined;
    const patched = exportTableAndGlobals(counted?.wasm ?? wasm);
    entry = { module: new WebAssembly.Module(patched.wasm), shape: patched.shape, counterExport: counted && `__host_global_${counted.counter}` };
    compiled.set(key, entry);
  }
  return entry;
}

type Result = { reply: Uint8Array } | { rejectCode: number; rejectMessage: string };

/** One incoming call: answered once, by whichever of its messages replies or rejects first. */
class CallContext {
  outstanding = 0;
  answered = false;
  constructor(readonly answer: (r: Result) => void) {}
}

interface PendingCall {
  callee: string;
  method: string;
  data: number[];
  reply: [fun: number, env: number];
  reject: [fun: number, env: number];
  cleanup?: [fun: number, env: number];
}

export interface MessageState {
  kind: 'init' | 'post_upgrade' | 'pre_upgrade' | 'update' | 'query' | 'reply' | 'reject' | 'cleanup' | 'timer';
  arg: Uint8Array;
  caller: Uint8Array;
  method: string;
  context: CallContext | undefined;
  reply: Uint8Array[];
  replySize: number;
  rejectCode?: number;
  rejectMessage?: string;
  building?: PendingCall;
  performed: PendingCall[];
  /** Undo log of stable memory writes: a trap puts the old bytes back. */
  stableUndo: StableUndo;
  stablePagesBefore: number;
  replied?: Result;
  /** The counter's value when the message started (performance_counter counts from it). */
  counterStart: bigint;
  /** The data certificate an ingress query sees (decision W9); none in every other message. */
  certificate?: () => Uint8Array;
}

export interface InstructionCount {
  canister: string;
  /** The method, or for a callback the method whose answer it handles, or canister_init etc. */
  method: string;
  kind: MessageState['kind'];
  instructions: bigint;
  trapped: boolean;
}

export interface CanisterLog {
  canister: string;
  message: string;
}

/** A canister between messages, as `WasmCanister.image` takes it (decision W10). */
export interface CanisterImage {
  wasm: Uint8Array;
  controllers: string[];
  heap: Uint8Array;
  /** The module's own mutable globals, by index (the metering counter is not one of them). */
  globals: Array<[index: number, value: number | bigint]>;
  /** Stable memory's length and its pages that are not all zeros (most of it is: kept sparse). */
  stable: { length: number; pages: Array<[offset: number, bytes: Uint8Array]> };
  stablePages: number;
  timer: bigint;
  version: bigint;
  certifiedData: Uint8Array;
}

const ZERO_PAGE = Buffer.alloc(PAGE);
/** The 64 KiB pages of `bytes` that hold anything but zeros, copied (compared natively: stable memory runs to hundreds of MiB). */
function nonZeroPages(bytes: Uint8Array): Array<[number, Uint8Array]> {
  const out: Array<[number, Uint8Array]> = [];
  for (let page = 0; page < bytes.length; page += PAGE) {
    const end = Math.min(page + PAGE, bytes.length);
    if (!Buffer.from(bytes.buffer, bytes.byteOffset + page, end - page).equals(ZERO_PAGE.subarray(0, end - page))) out.push([page, bytes.slice(page, end)]);
  }
  return out;
}

/** A whole replica between messages (decision W10). */
export interface ReplicaImage {
  time: bigint;
  canisters: Array<[id: string, image: CanisterImage]>;
  log: CanisterLog[];
  counts: InstructionCount[];
}

export class WasmCanister {
  private running!: WebAssembly.Instance;
  private memory!: WebAssembly.Memory;
  /** A view of the heap, made again when memory.grow has detached its buffer (decision W11). */
  private heapView = new Uint8Array(0);
  private prepared!: Prepared;
  private wasm!: Uint8Array;
  stable = new Uint8Array(0);
  stablePages = 0;
  timer = 0n;
  version = 0n;
  /** ic0.certified_data_set's last value (decision W9). */
  certifiedData: Uint8Array = new Uint8Array(0);
  private message: MessageState | undefined;
  /** The heap as it was before the running message (one buffer reused: a copy per message is the replica's main cost after execution). */
  private heapBefore = new Uint8Array(0);

  constructor(
    readonly id: string,
    readonly replica: WasmReplica,
    readonly controllers: string[],
  ) {}

  /** A fresh instance of `wasm` (install, upgrade), metered as the replica is. */
  load(wasm: Uint8Array): void {
    this.wasm = wasm;
    this.prepared = prepare(wasm, this.replica.metering);
    this.instance = new WebAssembly.Instance(this.prepared.module, { ic0: this.ic0() });
  }

  /**
   * What an upgrade that traps puts back besides what `execute` rolls back itself: stable memory is not
   * copied here (hundreds of MiB per canister), the trapped post_upgrade's undo log restores it.
   */
  saved() {
    return {
      instance: this.instance,
      prepared: this.prepared,
      wasm: this.wasm,
      timer: this.timer,
      version: this.version,
      certifiedData: this.certifiedData,
    };
  }
  restore(s: ReturnType<WasmCanister['saved']>): void {
    Object.assign(this, s);
  }

  /**
   * Moves the running state (heap, globals) into an instance of the other variant, metered or not: the
   * table is the module's own (its element segments; no code here writes it) and stable memory is the
   * host's, so heap and globals are the whole state.
   */
  remeter(metered: boolean): void {
    if ((this.prepared.counterExport !== undefined) === metered) return;
    const heap = new Uint8Array(this.memory.buffer);
    const globals = this.ownGlobals();
    this.prepared = prepare(this.wasm, metered);
    this.instance = new WebAssembly.Instance(this.prepared.module, { ic0: this.ic0() });
    this.setRunningState(heap, globals);
  }

  /** The module's own mutable globals by index, the metering counter not among them. */
  private ownGlobals(): Array<[index: number, value: number | bigint]> {
    return this.prepared.shape.mutableGlobals
      .filter((g) => `__host_global_${g.index}` !== this.prepared.counterExport)
      .map((g) => [g.index, (this.instance.exports[`__host_global_${g.index}`] as WebAssembly.Global).value as number | bigint]);
  }

  /** Puts a heap and the module's own globals into the current instance (remeter, fromImage). */
  private setRunningState(heap: Uint8Array, globals: Array<[index: number, value: number | bigint]>): void {
    const pages = heap.length / PAGE - this.memory.buffer.byteLength / PAGE;
    if (pages > 0) this.memory.grow(pages);
    new Uint8Array(this.memory.buffer).set(heap);
    for (const [index, value] of globals) (this.instance.exports[`__host_global_${index}`] as WebAssembly.Global).value = value;
  }

  /** Everything the canister is between messages (decision W10): heap, globals, stable memory and what the replica keeps of it. */
  image(): CanisterImage {
    if (this.message) throw new Error(`${this.id} is running a message`);
    return {
      wasm: this.wasm,
      controllers: [...this.controllers],
      heap: new Uint8Array(this.memory.buffer).slice(),
      globals: this.ownGlobals(),
      stable: { length: this.stable.length, pages: nonZeroPages(this.stable) },
      stablePages: this.stablePages,
      timer: this.timer,
      version: this.version,
      certifiedData: this.certifiedData.slice(),
    };
  }

  /** The canister an image was taken of, in `replica`, metered as the replica is. */
  static fromImage(id: string, replica: WasmReplica, image: CanisterImage): WasmCanister {
    const c = new WasmCanister(id, replica, [...image.controllers]);
    c.load(image.wasm);
    c.setRunningState(image.heap, image.globals);
    c.stable = new Uint8Array(image.stable.length);
    for (const [offset, bytes] of image.stable.pages) c.stable.set(bytes, offset);
    c.stablePages = image.stablePages;
    c.timer = image.timer;
    c.version = image.version;
    c.certifiedData = image.certifiedData.slice();
    return c;
  }

  get instance(): WebAssembly.Instance {
    return this.running;
  }
  /** Also what `restore` sets (Object.assign calls this setter). */
  set instance(instance: WebAssembly.Instance) {
    this.running = instance;
    this.memory = instance.exports.memory as WebAssembly.Memory;
    this.heapView = new Uint8Array(this.memory.buffer);
  }
  /** The heap as bytes: the ic0 calls read and write it millions of times in a wasm test. */
  private heap(): Uint8Array {
    if (this.heapView.byteLength === 0) this.heapView = new Uint8Array(this.memory.buffer);
    return this.heapView;
  }
  /**
   * `len` bytes of the heap at `ptr`, or a trap when they are not all in it. ic0's i32 arguments are
   * unsigned: one that arrives negative is 2 GiB or more, beyond any heap here.
   */
  private inHeap(ptr: number, len: number): Uint8Array {
    const heap = this.heap();
    if (ptr < 0 || len < 0 || ptr + len > heap.length) throw new Trap(`heap out of bounds: ${ptr} + ${len} > ${heap.length}`);
    return heap;
  }
  private bytes(ptr: number, len: number): Uint8Array {
    return this.inHeap(ptr, len).slice(ptr, ptr + len);
  }
  private put(dst: number, src: Uint8Array, offset: number, size: number): void {
    if (offset < 0 || size < 0 || offset + size > src.length) throw new Trap(`copy out of bounds: offset ${offset} + size ${size} > ${src.length}`);
    copyBytes(this.inHeap(dst, size), dst, src, offset, size);
  }
  private current(name: string): MessageState {
    if (!this.message) throw new Trap(`ic0.${name} called outside a message`);
    return this.message;
  }

  private ic0(): Record<string, (...a: never[]) => unknown> {
    const text = (p: number, l: number) => Buffer.from(this.bytes(p, l)).toString('utf8');
    const selfBytes = () => Principal.fromText(this.id).toUint8Array();
    const write128 = (dst: number, value: bigint) => {
      const b = new Uint8Array(16);
      new DataView(b.buffer).setBigUint64(0, value & 0xffff_ffff_ffff_ffffn, true);
      new DataView(b.buffer).setBigUint64(8, value >> 64n, true);
      this.put(dst, b, 0, 16);
    };
    const api = {
      msg_arg_data_size: () => this.current('msg_arg_data_size').arg.length,
      msg_arg_data_copy: (dst: number, offset: number, size: number) => this.put(dst, this.current('msg_arg_data_copy').arg, offset, size),
      msg_caller_size: () => this.current('msg_caller_size').caller.length,
      msg_caller_copy: (dst: number, offset: number, size: number) => this.put(dst, this.current('msg_caller_copy').caller, offset, size),
      msg_method_name_size: () => Buffer.byteLength(this.current('msg_method_name_size').method),
      msg_method_name_copy: (dst: number, offset: number, size: number) =>
        this.put(dst, Buffer.from(this.current('msg_method_name_copy').method), offset, size),
      msg_reject_code: () => this.current('msg_reject_code').rejectCode ?? 0,
      msg_reject_msg_size: () => Buffer.byteLength(this.current('msg_reject_msg_size').rejectMessage ?? ''),
      msg_reject_msg_copy: (dst: number, offset: number, size: number) =>
        this.put(dst, Buffer.from(this.current('msg_reject_msg_copy').rejectMessage ?? ''), offset, size),
      msg_reply_data_append: (src: number, size: number) => {
        const m = this.current('msg_reply_data_append');
        if (this.replica.trapAtReply?.(this.id, m.method)) throw new Trap(`injected trap at the reply of ${m.method}`);
        if (m.replySize + size > MAX_REPLY) throw new Trap(`reply of more than ${MAX_REPLY} bytes (the IC's limit)`);
        m.reply.push(this.bytes(src, size));
        m.replySize += size;
      },
      // A copy with its own ArrayBuffer: decoders that read `.buffer` must not see Node's shared pool.
      msg_reply: () => this.answer('msg_reply', { reply: new Uint8Array(Buffer.concat(this.current('msg_reply').reply)) }),
      msg_reject: (src: number, size: number) => this.answer('msg_reject', { rejectCode: REJECT.CANISTER_REJECT, rejectMessage: text(src, size) }),
      msg_cycles_available128: (dst: number) => write128(dst, 0n),
      msg_cycles_refunded128: (dst: number) => write128(dst, 0n),
      msg_cycles_accept128: (_h: bigint, _l: bigint, dst: number) => write128(dst, 0n),
      cycles_burn128: (_h: bigint, _l: bigint, dst: number) => write128(dst, 0n),
      canister_cycle_balance128: (dst: number) => write128(dst, 10n ** 13n),
      canister_liquid_cycle_balance128: (dst: number) => write128(dst, 10n ** 13n),
      canister_self_size: () => selfBytes().length,
      canister_self_copy: (dst: number, offset: number, size: number) => this.put(dst, selfBytes(), offset, size),
      canister_version: () => this.version,
      accept_message: () => undefined,
      is_controller: (src: number, size: number) =>
        this.controllers.some((c) => Buffer.from(Principal.fromText(c).toUint8Array()).equals(Buffer.from(this.bytes(src, size)))) ? 1 : 0,
      in_replicated_execution: () => (this.current('in_replicated_execution').kind === 'query' ? 0 : 1),
      time: () => this.replica.time,
      global_timer_set: (at: bigint) => {
        const previous = this.timer;
        this.timer = at;
        return previous;
      },
      // Type 0 (this message) and 1 (the call context): both from the message's start here.
      performance_counter: () => this.counter() - this.current('performance_counter').counterStart,
      cost_call: (_m: bigint, _p: bigint, dst: number) => write128(dst, 0n),
      certified_data_set: (src: number, size: number) => {
        const kind = this.current('certified_data_set').kind;
        if (kind === 'query' || kind === 'cleanup') throw new Trap(`ic0.certified_data_set called from a ${kind}`);
        if (size > 32) throw new Trap(`certified data of ${size} bytes (at most 32)`);
        this.certifiedData = this.bytes(src, size);
      },
      data_certificate_present: () => (this.current('data_certificate_present').certificate ? 1 : 0),
      data_certificate_size: () => this.dataCertificate('data_certificate_size').length,
      data_certificate_copy: (dst: number, offset: number, size: number) => this.put(dst, this.dataCertificate('data_certificate_copy'), offset, size),
      debug_print: (src: number, size: number) => this.replica.log.push({ canister: this.id, message: text(src, size) }),
      trap: (src: number, size: number) => {
        throw new Trap(text(src, size));
      },
      call_new: (
        calleeSrc: number,
        calleeSize: number,
        nameSrc: number,
        nameSize: number,
        replyFun: number,
        replyEnv: number,
        rejectFun: number,
        rejectEnv: number,
      ) => {
        const m = this.current('call_new');
        if (m.kind === 'query') throw new Trap('a query may not make calls');
        m.building = {
          callee: Principal.fromUint8Array(this.bytes(calleeSrc, calleeSize)).toText(),
          method: text(nameSrc, nameSize),
          data: [],
          reply: [replyFun, replyEnv],
          reject: [rejectFun, rejectEnv],
        };
      },
      call_on_cleanup: (fun: number, env: number) => {
        const b = this.current('call_on_cleanup').building;
        if (!b) throw new Trap('call_on_cleanup without call_new');
        b.cleanup = [fun, env];
      },
      call_data_append: (src: number, size: number) => {
        const b = this.current('call_data_append').building;
        if (!b) throw new Trap('call_data_append without call_new');
        for (const x of this.bytes(src, size)) b.data.push(x);
      },
      call_cycles_add128: () => undefined,
      call_with_best_effort_response: () => undefined,
      call_perform: () => {
        const m = this.current('call_perform');
        if (!m.building) throw new Trap('call_perform without call_new');
        m.performed.push(m.building);
        m.building = undefined;
        return 0;
      },
      stable64_size: () => BigInt(this.stablePages),
      stable64_grow: (pages: bigint) => {
        const before = this.stablePages;
        const after = before + Number(pages);
        if (after > 65_536 * 8) return -1n; // 32 GiB cap, far above what a test needs
        if (after * PAGE > this.stable.length) {
          const grown = new Uint8Array(Math.max(after * PAGE, this.stable.length * 2));
          grown.set(this.stable);
          this.stable = grown;
        }
        this.stablePages = after;
        return BigInt(before);
      },
      stable64_read: (dst: bigint, offset: bigint, size: bigint) => {
        const o = Number(offset);
        const n = Number(size);
        // A negative i64 is 2^63 or more as the unsigned value it stands for: out of bounds too.
        if (o < 0 || n < 0 || o + n > this.stablePages * PAGE) throw new Trap('stable memory read out of bounds');
        const d = Number(dst);
        copyBytes(this.inHeap(d, n), d, this.stable, o, n);
      },
      stable64_write: (offset: bigint, src: bigint, size: bigint) => {
        const m = this.current('stable64_write');
        const o = Number(offset);
        const n = Number(size);
        if (o < 0 || n < 0 || o + n > this.stablePages * PAGE) throw new Trap('stable memory write out of bounds');
        const s = Number(src);
        const heap = this.inHeap(s, n);
        m.stableUndo.record(this.stable, o, n);
        copyBytes(this.stable, o, heap, s, n);
      },
    };
    return api;
  }

  private dataCertificate(name: string): Uint8Array {
    const make = this.current(name).certificate;
    if (!make) throw new Trap(`ic0.${name}: no data certificate outside a query call from outside`);
    return make();
  }

  private answer(name: string, result: Result): void {
    const m = this.current(name);
    if (!m.context || m.context.answered || m.replied) throw new Trap(`${name}: this call was already answered, or has no caller to answer`);
    m.replied = result;
  }

  /**
   * Runs one message: `run` calls into the module. A trap restores heap, globals and stable memory
   * and drops the calls the message made. Returns what it answered and the calls it made.
   */
  private counter(): bigint {
    const name = this.prepared.counterExport;
    return name === undefined ? 0n : ((this.instance.exports[name] as WebAssembly.Global).value as bigint);
  }

  execute(
    state: Omit<MessageState, 'reply' | 'replySize' | 'performed' | 'stableUndo' | 'stablePagesBefore' | 'counterStart'>,
    run: () => void,
    commit: boolean,
  ): { trap?: Trap; replied?: Result; performed: PendingCall[] } {
    const heap = new Uint8Array(this.memory.buffer);
    if (this.heapBefore.length < heap.length) this.heapBefore = new Uint8Array(heap.length);
    this.heapBefore.set(heap);
    const heapLength = heap.length;
    const shape = this.prepared.shape;
    const globals = shape.mutableGlobals.map((g) => (this.instance.exports[`__host_global_${g.index}`] as WebAssembly.Global).value as unknown);
    const timerBefore = this.timer;
    const certifiedBefore = this.certifiedData;
    const m: MessageState = {
      ...state,
      reply: [],
      replySize: 0,
      performed: [],
      stableUndo: new StableUndo(),
      stablePagesBefore: this.stablePages,
      counterStart: this.counter(),
    };
    this.message = m;
    let trap: Trap | undefined;
    try {
      run();
    } catch (e) {
      trap = e instanceof Trap ? e : new Trap(e instanceof Error ? e.message : String(e));
    } finally {
      this.message = undefined;
    }
    // Counted before a rollback (a trapped message used its instructions too). The IC stops a message
    // at its limit; here it is stopped after, with the same outcome: a trap and nothing kept.
    const instructions = this.counter() - m.counterStart;
    if (this.prepared.counterExport !== undefined) {
      const limit = limitOf(state.kind, this.replica.limits);
      if (!trap && instructions > limit) trap = new Trap(`instruction limit exceeded: ${instructions} > ${limit} for ${state.kind} ${state.method}`);
      this.replica.counts.push({ canister: this.id, method: state.method, kind: state.kind, instructions, trapped: trap !== undefined });
    }
    if (trap || !commit) {
      const memory = new Uint8Array(this.memory.buffer);
      memory.set(this.heapBefore.subarray(0, heapLength));
      // Memory cannot shrink in wasm: pages grown by the rolled-back message stay, zeroed.
      memory.fill(0, heapLength);
      shape.mutableGlobals.forEach((g, i) => ((this.instance.exports[`__host_global_${g.index}`] as WebAssembly.Global).value = globals[i]));
      m.stableUndo.undo(this.stable);
      this.stablePages = m.stablePagesBefore;
      this.timer = timerBefore;
      this.certifiedData = certifiedBefore;
      return trap ? { trap, performed: [] } : { ...(m.replied && { replied: m.replied }), performed: [] };
    }
    return { ...(m.replied && { replied: m.replied }), performed: m.performed };
  }

  exported(name: string): (...a: number[]) => void {
    const f = this.instance.exports[name];
    if (typeof f !== 'function') throw new Error(`${this.id} exports no ${name}`);
    return f as (...a: number[]) => void;
  }

  callback(fun: number, env: number): () => void {
    const table = this.instance.exports.__host_table as WebAssembly.Table;
    return () => (table.get(fun) as (env: number) => void)(env);
  }
}

type Task = () => void;

export class WasmReplica {
  /** The key that signs this replica's certificates; `subnetKey.rootKey` verifies them (decision W9). */
  readonly subnetKey = new TestSubnetKey();
  /** Nanoseconds since the epoch, as ic0.time returns them; tests move it. */
  time = BigInt(Date.parse('2026-03-10T12:00:00Z')) * 1_000_000n;
  readonly canisters = new Map<string, WasmCanister>();
  readonly log: CanisterLog[] = [];
  /** Every message's instruction count, in the order they ran (decision W4). */
  readonly counts: InstructionCount[] = [];
  /** The IC's by default; a test may lower them to see a message stopped at its limit. */
  readonly limits: InstructionLimits;
  constructor(options: { limits?: Partial<InstructionLimits> } = {}) {
    this.limits = { ...INSTRUCTION_LIMITS, ...options.limits };
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
  /** What each installed canister's wasm is (for upgrades). */
  private readonly modules = new Map<string, Uint8Array>();

  /** Installs `wasm` as canister `id` and runs its `canister_init` with `arg` (Candid) as `installer`. */
  async install(id: string, wasm: Uint8Array, arg: Uint8Array, installer: string): Promise<void> {
    const canister = new WasmCanister(id, this, [installer]);
    canister.load(wasm);
    const r = canister.execute(
      { kind: 'init', arg, caller: Principal.fromText(installer).toUint8Array(), method: 'canister_init', context: undefined },
      () => canister.exported('canister_init')(),
      true,
    );
    if (r.trap) throw new Error(`install of ${id} trapped: ${r.trap.message}`);
    this.canisters.set(id, canister);
    this.modules.set(id, wasm);
    this.send(canister, undefined, r.performed);
    await this.drain();
  }

  /**
   * Upgrades `id` to `wasm` (default: the same module): `canister_pre_upgrade` on the old instance,
   * then `canister_post_upgrade` with `arg` on a fresh one over the same stable memory. A trap in
   * either leaves the canister as it was, except that a pre_upgrade's own writes stay when the
   * post_upgrade traps (the IC undoes them too; Azle exports no pre_upgrade, decision W2). The global
   * timer is deactivated, as on the IC.
   */
  async upgrade(id: string, arg: Uint8Array, installer: string, wasm = this.modules.get(id)!): Promise<void> {
    const canister = this.canister(id);
    const caller = Principal.fromText(installer).toUint8Array();
    if (typeof canister.instance.exports.canister_pre_upgrade === 'function') {
      const pre = canister.execute(
        { kind: 'pre_upgrade', arg: new Uint8Array(), caller, method: 'canister_pre_upgrade', context: undefined },
        () => canister.exported('canister_pre_upgrade')(),
        true,
      );
      if (pre.trap) throw new Error(`pre_upgrade of ${id} trapped: ${pre.trap.message}`);
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
      throw new Error(`post_upgrade of ${id} trapped: ${r.trap.message}`);
    }
    this.modules.set(id, wasm);
    this.send(canister, undefined, r.performed);
    await this.drain();
  }

  /** Every canister and what the replica recorded, with no message queued (decision W10). */
  image(): ReplicaImage {
    if (this.queue.length > 0) throw new Error('messages are queued');
    return {
      time: this.time,
      canisters: [...this.canisters].map(([id, c]) => [id, c.image()]),
      log: this.log.map((l) => ({ ...l })),
      counts: this.counts.map((c) => ({ ...c })),
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
    this.log.push(...image.log.map((l) => ({ ...l })));
    this.counts.push(...image.counts.map((c) => ({ ...c })));
  }

  canister(id: string): WasmCanister {
    const c = this.canisters.get(id);
    if (!c) throw new Error(`no canister ${id}`);
    return c;
  }

  /** A query call: runs on the current state and never commits. */
  async query(caller: string, id: string, method: string, arg: Uint8Array): Promise<Result> {
    const canister = this.canisters.get(id);
    if (!canister) return { rejectCode: REJECT.DESTINATION_INVALID, rejectMessage: `canister ${id} not found` };
    const name = `canister_query ${method}`;
    if (typeof canister.instance.exports[name] !== 'function')
      return { rejectCode: REJECT.DESTINATION_INVALID, rejectMessage: `${id} has no query method '${method}'` };
    // The answer is what the message replied; the context only lets it reply.
    const context = new CallContext(() => undefined);
    let certificate: Uint8Array | undefined;
    const certify = () => (certificate ??= this.subnetKey.certificate(id, canister.certifiedData, this.time));
    const r = canister.execute(
      { kind: 'query', arg, caller: Principal.fromText(caller).toUint8Array(), method, context, certificate: certify },
      () => canister.exported(name)(),
      false,
    );
    if (r.trap) return { rejectCode: REJECT.CANISTER_ERROR, rejectMessage: `${id} trapped: ${r.trap.message}` };
    return r.replied ?? { rejectCode: REJECT.CANISTER_ERROR, rejectMessage: `${id} did not reply to ${method}` };
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
            { kind: 'timer', arg: new Uint8Array(), caller: new Uint8Array(), method: 'canister_global_timer', context: undefined },
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
      if (id === MANAGEMENT) return answer(this.management(method, arg));
      const canister = this.canisters.get(id);
      if (!canister) return answer({ rejectCode: REJECT.DESTINATION_INVALID, rejectMessage: `canister ${id} not found` });
      // A query method may be called as an update (other canisters do so): it runs, but commits nothing.
      const exports = canister.instance.exports;
      const asQuery = typeof exports[`canister_update ${method}`] !== 'function' && typeof exports[`canister_query ${method}`] === 'function';
      const name = asQuery ? `canister_query ${method}` : `canister_update ${method}`;
      if (typeof exports[name] !== 'function')
        return answer({ rejectCode: REJECT.DESTINATION_INVALID, rejectMessage: `${id} has no update method '${method}'` });
      const context = new CallContext(answer);
      const r = canister.execute({ kind: asQuery ? 'query' : 'update', arg, caller, method, context }, () => canister.exported(name)(), !asQuery);
      this.finish(canister, context, r, method);
    });
  }

  /** After a message of `context`: its answer (or trap) and the calls it made. */
  private finish(canister: WasmCanister, context: CallContext | undefined, r: ReturnType<WasmCanister['execute']>, what: string): void {
    if (context && !context.answered) {
      if (r.trap) this.respond(context, { rejectCode: REJECT.CANISTER_ERROR, rejectMessage: `${canister.id} trapped: ${r.trap.message}` });
      else if (r.replied) this.respond(context, r.replied);
    }
    this.send(canister, context, r.performed);
    if (context && !context.answered && context.outstanding === 0)
      this.respond(context, { rejectCode: REJECT.CANISTER_ERROR, rejectMessage: `${canister.id} did not reply to ${what}` });
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
      this.deliver(Principal.fromText(from.id).toUint8Array(), call.callee, call.method, Uint8Array.from(call.data), (result) => {
        this.queue.push(() => {
          ctx.outstanding -= 1;
          const [fun, env] = 'reply' in result ? call.reply : call.reject;
          const state =
            'reply' in result
              ? { kind: 'reply' as const, arg: result.reply }
              : { kind: 'reject' as const, arg: new Uint8Array(), rejectCode: result.rejectCode, rejectMessage: result.rejectMessage };
          const r = from.execute(
            { ...state, caller: Principal.fromText(call.callee).toUint8Array(), method: call.method, context: ctx },
            from.callback(fun, env),
            true,
          );
          if (r.trap && call.cleanup) {
            const [cf, ce] = call.cleanup;
            const c = from.execute(
              { kind: 'cleanup', arg: new Uint8Array(), caller: new Uint8Array(), method: call.method, context: undefined },
              from.callback(cf, ce),
              true,
            );
            if (c.trap) this.log.push({ canister: from.id, message: `cleanup trapped: ${c.trap.message}` });
          }
          if (r.trap) this.log.push({ canister: from.id, message: `callback of ${call.method} trapped: ${r.trap.message}` });
          this.finish(from, context, r, call.method);
        });
      });
    }
  }

  private management(method: string, arg: Uint8Array): Result {
    void arg;
    if (method === 'raw_rand') return { reply: new Uint8Array(IDL.encode([IDL.Vec(IDL.Nat8)], [randomBytes(32)])) };
    return { rejectCode: REJECT.DESTINATION_INVALID, rejectMessage: `the test replica offers no management method ${method}` };
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      this.queue.shift()!();
      // Let other callers' promises (the test's) interleave between messages, as the IC would.
      await Promise.resolve();
    }
  }
}
