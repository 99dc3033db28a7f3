// Decisions W1, W2, W9, W11: the `ic0` system API the canisters' wasm imports (the 44 functions Azle 0.33
// uses), over one canister of the test replica.
import { Principal } from '@icp-sdk/core/principal';
import { copyBytes } from './stable-undo.ts';
import {
  ERROR_CODE,
  MAX_REPLY,
  PAGE,
  REJECT,
  Trap,
  type CanisterHost,
  type MessageState,
  type Result,
} from './types.ts';

/**
 * What the system API reads and writes of its canister; WasmCanister implements it. Named here rather
 * than imported from canister.ts, which imports this file (decision S35: no import circle).
 */
export interface SystemApiCanister {
  readonly id: string;
  readonly replica: CanisterHost;
  readonly controllers: string[];
  readonly version: bigint;
  timer: bigint;
  certifiedData: Uint8Array;
  stable: Uint8Array;
  stablePages: number;
  readonly written: ((offset: number, size: number) => void) | undefined;
  bytes(ptr: number, len: number): Uint8Array;
  put(dst: number, src: Uint8Array, offset: number, size: number): void;
  inHeap(ptr: number, len: number): Uint8Array;
  current(name: string): MessageState;
  dataCertificate(name: string): Uint8Array;
  answer(name: string, result: Result): void;
  counter(): bigint;
}

export function systemApi(c: SystemApiCanister): Record<string, (...a: never[]) => unknown> {
  const text = (p: number, l: number) => Buffer.from(c.bytes(p, l)).toString('utf8');
  const selfBytes = () => Principal.fromText(c.id).toUint8Array();
  const write128 = (dst: number, value: bigint) => {
    const b = new Uint8Array(16);
    new DataView(b.buffer).setBigUint64(0, value & 0xffff_ffff_ffff_ffffn, true);
    new DataView(b.buffer).setBigUint64(8, value >> 64n, true);
    c.put(dst, b, 0, 16);
  };
  const api = {
    msg_arg_data_size: () => c.current('msg_arg_data_size').arg.length,
    msg_arg_data_copy: (dst: number, offset: number, size: number) =>
      c.put(dst, c.current('msg_arg_data_copy').arg, offset, size),
    msg_caller_size: () => c.current('msg_caller_size').caller.length,
    msg_caller_copy: (dst: number, offset: number, size: number) =>
      c.put(dst, c.current('msg_caller_copy').caller, offset, size),
    msg_method_name_size: () => Buffer.byteLength(c.current('msg_method_name_size').method),
    msg_method_name_copy: (dst: number, offset: number, size: number) =>
      c.put(dst, Buffer.from(c.current('msg_method_name_copy').method), offset, size),
    msg_reject_code: () => c.current('msg_reject_code').rejectCode ?? 0,
    msg_reject_msg_size: () => Buffer.byteLength(c.current('msg_reject_msg_size').rejectMessage ?? ''),
    msg_reject_msg_copy: (dst: number, offset: number, size: number) =>
      c.put(dst, Buffer.from(c.current('msg_reject_msg_copy').rejectMessage ?? ''), offset, size),
    msg_reply_data_append: (src: number, size: number) => {
      const m = c.current('msg_reply_data_append');
      if (c.replica.trapAtReply?.(c.id, m.method)) throw new Trap(`injected trap at the reply of ${m.method}`);
      if (m.replySize + size > MAX_REPLY)
        throw new Trap(
          `reply of more than ${MAX_REPLY} bytes (the IC's limit)`,
          ERROR_CODE.CANISTER_CONTRACT_VIOLATION,
        );
      m.reply.push(c.bytes(src, size));
      m.replySize += size;
    },
    // A copy with its own ArrayBuffer: decoders that read `.buffer` must not see Node's shared pool.
    msg_reply: () => c.answer('msg_reply', { reply: new Uint8Array(Buffer.concat(c.current('msg_reply').reply)) }),
    msg_reject: (src: number, size: number) =>
      c.answer('msg_reject', {
        rejectCode: REJECT.CANISTER_REJECT,
        rejectMessage: text(src, size),
        errorCode: ERROR_CODE.CANISTER_REJECTED_MESSAGE,
      }),
    msg_cycles_available128: (dst: number) => write128(dst, 0n),
    msg_cycles_refunded128: (dst: number) => write128(dst, 0n),
    msg_cycles_accept128: (_h: bigint, _l: bigint, dst: number) => write128(dst, 0n),
    cycles_burn128: (_h: bigint, _l: bigint, dst: number) => write128(dst, 0n),
    canister_cycle_balance128: (dst: number) => write128(dst, 10n ** 13n),
    canister_liquid_cycle_balance128: (dst: number) => write128(dst, 10n ** 13n),
    canister_self_size: () => selfBytes().length,
    canister_self_copy: (dst: number, offset: number, size: number) => c.put(dst, selfBytes(), offset, size),
    canister_version: () => c.version,
    accept_message: () => undefined,
    is_controller: (src: number, size: number) =>
      c.controllers.some((p) =>
        Buffer.from(Principal.fromText(p).toUint8Array()).equals(Buffer.from(c.bytes(src, size))),
      )
        ? 1
        : 0,
    in_replicated_execution: () => (c.current('in_replicated_execution').kind === 'query' ? 0 : 1),
    time: () => c.replica.time,
    global_timer_set: (at: bigint) => {
      const previous = c.timer;
      c.timer = at;
      return previous;
    },
    // Type 0 (this message) and 1 (the call context): both from the message's start here.
    performance_counter: () => c.counter() - c.current('performance_counter').counterStart,
    cost_call: (_m: bigint, _p: bigint, dst: number) => write128(dst, 0n),
    certified_data_set: (src: number, size: number) => {
      const kind = c.current('certified_data_set').kind;
      if (kind === 'query' || kind === 'cleanup')
        throw new Trap(`ic0.certified_data_set called from a ${kind}`, ERROR_CODE.CANISTER_CONTRACT_VIOLATION);
      if (size > 32)
        throw new Trap(`certified data of ${size} bytes (at most 32)`, ERROR_CODE.CANISTER_CONTRACT_VIOLATION);
      c.certifiedData = c.bytes(src, size);
    },
    data_certificate_present: () => (c.current('data_certificate_present').certificate ? 1 : 0),
    data_certificate_size: () => c.dataCertificate('data_certificate_size').length,
    data_certificate_copy: (dst: number, offset: number, size: number) =>
      c.put(dst, c.dataCertificate('data_certificate_copy'), offset, size),
    debug_print: (src: number, size: number) => c.replica.log.push({ canister: c.id, message: text(src, size) }),
    trap: (src: number, size: number) => {
      throw new Trap(text(src, size), ERROR_CODE.CANISTER_CALLED_TRAP);
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
      const m = c.current('call_new');
      if (m.kind === 'query') throw new Trap('a query may not make calls', ERROR_CODE.CANISTER_CONTRACT_VIOLATION);
      m.building = {
        callee: Principal.fromUint8Array(c.bytes(calleeSrc, calleeSize)).toText(),
        method: text(nameSrc, nameSize),
        data: [],
        reply: [replyFun, replyEnv],
        reject: [rejectFun, rejectEnv],
      };
    },
    call_on_cleanup: (fun: number, env: number) => {
      const b = c.current('call_on_cleanup').building;
      if (!b) throw new Trap('call_on_cleanup without call_new', ERROR_CODE.CANISTER_CONTRACT_VIOLATION);
      b.cleanup = [fun, env];
    },
    call_data_append: (src: number, size: number) => {
      const b = c.current('call_data_append').building;
      if (!b) throw new Trap('call_data_append without call_new', ERROR_CODE.CANISTER_CONTRACT_VIOLATION);
      for (const x of c.bytes(src, size)) b.data.push(x);
    },
    call_cycles_add128: () => undefined,
    call_with_best_effort_response: () => undefined,
    call_perform: () => {
      const m = c.current('call_perform');
      if (!m.building) throw new Trap('call_perform without call_new', ERROR_CODE.CANISTER_CONTRACT_VIOLATION);
      m.performed.push(m.building);
      m.building = undefined;
      return 0;
    },
    stable64_size: () => BigInt(c.stablePages),
    stable64_grow: (pages: bigint) => {
      const before = c.stablePages;
      const after = before + Number(pages);
      if (after > 65_536 * 8) return -1n; // 32 GiB cap, far above what a test needs
      if (after * PAGE > c.stable.length) {
        const grown = new Uint8Array(Math.max(after * PAGE, c.stable.length * 2));
        grown.set(c.stable);
        c.stable = grown;
      }
      c.stablePages = after;
      return BigInt(before);
    },
    stable64_read: (dst: bigint, offset: bigint, size: bigint) => {
      const o = Number(offset);
      const n = Number(size);
      // A negative i64 is 2^63 or more as the unsigned value it stands for: out of bounds too.
      if (o < 0 || n < 0 || o + n > c.stablePages * PAGE) throw new Trap('stable memory read out of bounds');
      const d = Number(dst);
      copyBytes(c.inHeap(d, n), d, c.stable, o, n);
    },
    stable64_write: (offset: bigint, src: bigint, size: bigint) => {
      const m = c.current('stable64_write');
      const o = Number(offset);
      const n = Number(size);
      if (o < 0 || n < 0 || o + n > c.stablePages * PAGE) throw new Trap('stable memory write out of bounds');
      const s = Number(src);
      const heap = c.inHeap(s, n);
      m.stableUndo.record(c.stable, o, n);
      copyBytes(c.stable, o, heap, s, n);
      c.written?.(o, n);
    },
  };
  return api;
}
