// Decisions W1, W2, W4, W9–W11: one canister of the test replica: its wasm instance, heap, globals, stable
// memory, timer and certified data, and the atomic execution of one message (a trap restores them all).
import { prepare, type Prepared } from './compile.ts';
import { systemApi, type SystemApiCanister } from './ic0.ts';
import { copyBytes, StableUndo } from './stable-undo.ts';
import {
  ERROR_CODE,
  limitOf,
  nonZeroPages,
  PAGE,
  Trap,
  type CanisterHost,
  type CanisterImage,
  type CanisterPatch,
  type MessageState,
  type PendingCall,
  type Result,
} from './types.ts';

// Its replica is a CanisterHost, not WasmReplica: replica.ts creates canisters (decision S35: no import circle).
export class WasmCanister implements SystemApiCanister {
  private running!: WebAssembly.Instance;
  private memory!: WebAssembly.Memory;
  /** A view of the heap, made again when memory.grow has detached its buffer (decision W11). */
  private heapView = new Uint8Array(0);
  private prepared!: Prepared;
  /** The module it runs (its hash and custom sections are read over HTTP, decision W13). */
  wasm!: Uint8Array;
  stable = new Uint8Array(0);
  stablePages = 0;
  timer = 0n;
  version = 0n;
  /** ic0.certified_data_set's last value (decision W9). */
  certifiedData: Uint8Array = new Uint8Array(0);
  /** Told of every stable memory write (offset, size): the HTTP replica's journal keeps the pages written (decision W14). */
  written: ((offset: number, size: number) => void) | undefined;
  /** Set when a message commits; the HTTP replica's journal clears it once it has read the canister (decision W14). */
  committed = false;
  /** The message running now (ic0 reads it). */
  message: MessageState | undefined;
  /** The heap as it was before the running message (one buffer reused: a copy per message is the replica's main cost after execution). */
  private heapBefore = new Uint8Array(0);

  constructor(
    readonly id: string,
    readonly replica: CanisterHost,
    readonly controllers: string[],
  ) {}

  /** A fresh instance of `wasm` (install, upgrade), metered as the replica is. */
  load(wasm: Uint8Array): void {
    this.wasm = wasm;
    this.prepared = prepare(wasm, this.replica.metering);
    this.instance = new WebAssembly.Instance(this.prepared.module, { ic0: systemApi(this) });
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
    this.instance = new WebAssembly.Instance(this.prepared.module, { ic0: systemApi(this) });
    this.setRunningState(heap, globals);
  }

  /** The module's own mutable globals by index, the metering counter not among them. */
  private ownGlobals(): Array<[index: number, value: number | bigint]> {
    return this.prepared.shape.mutableGlobals
      .filter((g) => `__host_global_${g.index}` !== this.prepared.counterExport)
      .map((g) => [
        g.index,
        (this.instance.exports[`__host_global_${g.index}`] as WebAssembly.Global).value as number | bigint,
      ]);
  }

  /** Puts a heap and the module's own globals into the current instance (remeter, fromImage). */
  private setRunningState(heap: Uint8Array, globals: Array<[index: number, value: number | bigint]>): void {
    const pages = heap.length / PAGE - this.memory.buffer.byteLength / PAGE;
    if (pages > 0) this.memory.grow(pages);
    new Uint8Array(this.memory.buffer).set(heap);
    for (const [index, value] of globals)
      (this.instance.exports[`__host_global_${index}`] as WebAssembly.Global).value = value;
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
  static fromImage(id: string, replica: CanisterHost, image: CanisterImage): WasmCanister {
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

  /** What the HTTP replica's journal reads after a round (decision W14): the heap as it is (no copy) and the small state beside it. */
  live(): Omit<CanisterImage, 'heap' | 'stable' | 'wasm' | 'controllers'> & { heap: Uint8Array } {
    return {
      heap: new Uint8Array(this.memory.buffer),
      globals: this.ownGlobals(),
      stablePages: this.stablePages,
      timer: this.timer,
      version: this.version,
      certifiedData: this.certifiedData,
    };
  }

  /** Applies a journal record (decision W14): the heap and stable memory pages written, the rest as it was then. */
  patch(p: CanisterPatch): void {
    const grow = (p.heapLength - this.memory.buffer.byteLength) / PAGE;
    if (grow > 0) this.memory.grow(grow);
    const heap = new Uint8Array(this.memory.buffer);
    for (const [offset, bytes] of p.heapPages) heap.set(bytes, offset);
    for (const [index, value] of p.globals)
      (this.instance.exports[`__host_global_${index}`] as WebAssembly.Global).value = value;
    if (p.stableLength > this.stable.length) {
      const grown = new Uint8Array(p.stableLength);
      grown.set(this.stable);
      this.stable = grown;
    }
    for (const [offset, bytes] of p.stablePagesWritten) this.stable.set(bytes, offset);
    this.stablePages = p.stablePages;
    this.timer = p.timer;
    this.version = p.version;
    this.certifiedData = p.certifiedData;
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
  heap(): Uint8Array {
    if (this.heapView.byteLength === 0) this.heapView = new Uint8Array(this.memory.buffer);
    return this.heapView;
  }
  /**
   * `len` bytes of the heap at `ptr`, or a trap when they are not all in it. ic0's i32 arguments are
   * unsigned: one that arrives negative is 2 GiB or more, beyond any heap here.
   */
  inHeap(ptr: number, len: number): Uint8Array {
    const heap = this.heap();
    if (ptr < 0 || len < 0 || ptr + len > heap.length)
      throw new Trap(`heap out of bounds: ${ptr} + ${len} > ${heap.length}`);
    return heap;
  }
  bytes(ptr: number, len: number): Uint8Array {
    return this.inHeap(ptr, len).slice(ptr, ptr + len);
  }
  put(dst: number, src: Uint8Array, offset: number, size: number): void {
    if (offset < 0 || size < 0 || offset + size > src.length)
      throw new Trap(`copy out of bounds: offset ${offset} + size ${size} > ${src.length}`);
    copyBytes(this.inHeap(dst, size), dst, src, offset, size);
  }
  current(name: string): MessageState {
    if (!this.message) throw new Trap(`ic0.${name} called outside a message`, ERROR_CODE.CANISTER_CONTRACT_VIOLATION);
    return this.message;
  }

  dataCertificate(name: string): Uint8Array {
    const make = this.current(name).certificate;
    if (!make)
      throw new Trap(
        `ic0.${name}: no data certificate outside a query call from outside`,
        ERROR_CODE.CANISTER_CONTRACT_VIOLATION,
      );
    return make();
  }

  answer(name: string, result: Result): void {
    const m = this.current(name);
    if (!m.context || m.context.answered || m.replied)
      throw new Trap(
        `${name}: this call was already answered, or has no caller to answer`,
        ERROR_CODE.CANISTER_CONTRACT_VIOLATION,
      );
    m.replied = result;
  }

  /**
   * Runs one message: `run` calls into the module. A trap restores heap, globals and stable memory
   * and drops the calls the message made. Returns what it answered and the calls it made.
   */
  counter(): bigint {
    const name = this.prepared.counterExport;
    return name === undefined ? 0n : ((this.instance.exports[name] as WebAssembly.Global).value as bigint);
  }

  execute(
    state: Omit<
      MessageState,
      'reply' | 'replySize' | 'performed' | 'stableUndo' | 'stablePagesBefore' | 'counterStart'
    >,
    run: () => void,
    commit: boolean,
  ): { trap?: Trap; replied?: Result; performed: PendingCall[] } {
    const heap = new Uint8Array(this.memory.buffer);
    if (this.heapBefore.length < heap.length) this.heapBefore = new Uint8Array(heap.length);
    this.heapBefore.set(heap);
    const heapLength = heap.length;
    const shape = this.prepared.shape;
    const globals = shape.mutableGlobals.map(
      (g) => (this.instance.exports[`__host_global_${g.index}`] as WebAssembly.Global).value as unknown,
    );
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
      if (!trap && instructions > limit)
        trap = new Trap(
          `instruction limit exceeded: ${instructions} > ${limit} for ${state.kind} ${state.method}`,
          ERROR_CODE.CANISTER_INSTRUCTION_LIMIT_EXCEEDED,
        );
      this.replica.counts.push({
        canister: this.id,
        method: state.method,
        kind: state.kind,
        instructions,
        trapped: trap !== undefined,
      });
    }
    if (trap || !commit) {
      const memory = new Uint8Array(this.memory.buffer);
      memory.set(this.heapBefore.subarray(0, heapLength));
      // Memory cannot shrink in wasm: pages grown by the rolled-back message stay, zeroed.
      memory.fill(0, heapLength);
      shape.mutableGlobals.forEach(
        (g, i) => ((this.instance.exports[`__host_global_${g.index}`] as WebAssembly.Global).value = globals[i]),
      );
      m.stableUndo.undo(this.stable);
      this.stablePages = m.stablePagesBefore;
      this.timer = timerBefore;
      this.certifiedData = certifiedBefore;
      return trap ? { trap, performed: [] } : { ...(m.replied && { replied: m.replied }), performed: [] };
    }
    this.committed = true;
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
