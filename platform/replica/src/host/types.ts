// The test replica's shared types (decisions W1–W4, W9, W10): limits, reject codes, traps, messages and images.
import type { StableUndo } from './stable-undo.ts';

export const PAGE = 65_536;
export const MAX_REPLY = 2 * 1024 * 1024;
/** The IC's instruction limits per message (decision W4): updates and their callbacks and timers, queries, install and upgrade. */
export const INSTRUCTION_LIMITS = {
  update: 40_000_000_000n,
  query: 5_000_000_000n,
  install: 300_000_000_000n,
} as const;
export type InstructionLimits = { -readonly [K in keyof typeof INSTRUCTION_LIMITS]: bigint };
/** The limit that applies to a message of `kind` (the IC's by default). */
export const limitOf = (kind: MessageState['kind'], limits: InstructionLimits = INSTRUCTION_LIMITS) =>
  kind === 'query'
    ? limits.query
    : kind === 'init' || kind === 'post_upgrade' || kind === 'pre_upgrade'
      ? limits.install
      : limits.update;
/** Reject codes of the IC interface specification. */
export const REJECT = {
  SYS_FATAL: 1,
  SYS_TRANSIENT: 2,
  DESTINATION_INVALID: 3,
  CANISTER_REJECT: 4,
  CANISTER_ERROR: 5,
} as const;

/**
 * The IC's error codes for what the replica reports (decision W13): `IC0503` for `ic0.trap`, `IC0502` for a
 * wasm runtime error or a host check (out of bounds), `IC0522` for the instruction limit, `IC0504` for a
 * misuse of the system API (a reply too large or twice), `IC0506` for a call left without an answer.
 */
export const ERROR_CODE = {
  CANISTER_NOT_FOUND: 'IC0301',
  CANISTER_REJECTED_MESSAGE: 'IC0406',
  CANISTER_TRAPPED: 'IC0502',
  CANISTER_CALLED_TRAP: 'IC0503',
  CANISTER_CONTRACT_VIOLATION: 'IC0504',
  CANISTER_DID_NOT_REPLY: 'IC0506',
  CANISTER_INSTRUCTION_LIMIT_EXCEEDED: 'IC0522',
  CANISTER_METHOD_NOT_FOUND: 'IC0536',
  CANISTER_ALREADY_INSTALLED: 'IC0538',
  CANISTER_NON_EMPTY: 'IC0514',
  CANISTER_INVALID_CONTROLLER: 'IC0512',
  CANISTER_WASM_MODULE_NOT_FOUND: 'IC0537',
  CANISTER_INVALID_ARGUMENT: 'IC0517',
  /** Decision W26: a call to a stopped canister, a load into one that is not stopped, the snapshot errors. */
  CANISTER_STOPPED: 'IC0508',
  CANISTER_NOT_STOPPED: 'IC0510',
  CANISTER_SNAPSHOT_NOT_FOUND: 'IC0305',
  CANISTER_SNAPSHOT_LIMIT: 'IC0532',
} as const;
export type ErrorCode = (typeof ERROR_CODE)[keyof typeof ERROR_CODE];

/** A trap: ic0.trap, or a wasm runtime error (unreachable, out of bounds) inside a message; `code` says which (decision W13). */
export class Trap extends Error {
  override name = 'Trap';
  constructor(
    message: string,
    readonly code: ErrorCode = ERROR_CODE.CANISTER_TRAPPED,
  ) {
    super(message);
  }
}

/** A call's answer; a reject carries the IC's error code where the system made it (decision W13). */
export type Result = { reply: Uint8Array } | { rejectCode: number; rejectMessage: string; errorCode?: ErrorCode };

/** One incoming call: answered once, by whichever of its messages replies or rejects first. */
export class CallContext {
  outstanding = 0;
  answered = false;
  constructor(readonly answer: (r: Result) => void) {}
}

export interface PendingCall {
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

/**
 * What a canister and its `ic0` use of the replica that runs it. canister.ts and ic0.ts depend on this,
 * not on WasmReplica, which creates canisters: no import circle (decision S35).
 */
export interface CanisterHost {
  readonly metering: boolean;
  readonly limits: InstructionLimits;
  readonly counts: InstructionCount[];
  readonly log: CanisterLog[];
  readonly time: bigint;
  readonly trapAtReply: ((canister: string, method: string) => boolean) | undefined;
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
export function nonZeroPages(bytes: Uint8Array): Array<[number, Uint8Array]> {
  const out: Array<[number, Uint8Array]> = [];
  for (let page = 0; page < bytes.length; page += PAGE) {
    const end = Math.min(page + PAGE, bytes.length);
    if (!Buffer.from(bytes.buffer, bytes.byteOffset + page, end - page).equals(ZERO_PAGE.subarray(0, end - page)))
      out.push([page, bytes.slice(page, end)]);
  }
  return out;
}

/** One canister snapshot (decision W26): its IC-form id, when it was taken and the canister as it was then. */
export interface CanisterSnapshot {
  id: Uint8Array;
  takenAt: bigint;
  image: CanisterImage;
}

/** What changed in a canister in one round of the HTTP replica, as its journal records it (decision W14). */
export interface CanisterPatch {
  heapLength: number;
  heapPages: Array<[offset: number, bytes: Uint8Array]>;
  globals: Array<[index: number, value: number | bigint]>;
  stableLength: number;
  stablePages: number;
  stablePagesWritten: Array<[offset: number, bytes: Uint8Array]>;
  timer: bigint;
  version: bigint;
  certifiedData: Uint8Array;
}

/** A whole replica between messages (decision W10). */
export interface ReplicaImage {
  time: bigint;
  canisters: Array<[id: string, image: CanisterImage]>;
  /** Canisters created with no module yet, and their controllers (decision W18). */
  empty?: Array<[id: string, controllers: string[]]>;
  log: CanisterLog[];
  counts: InstructionCount[];
  /** Decision W26: stopped canisters, and each canister's snapshots with the last local number used. */
  stopped?: string[];
  snapshots?: Array<[id: string, snapshots: CanisterSnapshot[], counter: bigint]>;
}
