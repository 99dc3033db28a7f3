// How a canister declares its wiring, once, in canisters/<name>/wiring.ts: the canisters it calls and
// how its core's dependencies map onto their methods, and its timers. Both hosts read it: the Azle
// entry point (inter-canister calls, setTimerInterval) and the embedded platform (in-process calls,
// its scheduler), so the two cannot drift apart.
import type { CallContext } from './call.ts';
import type { Idl } from './candid/methods.ts';

/**
 * A call to another canister's method, made with the calling canister's principal. The reply is the
 * callee's result; its type comes from the dependency interface the call implements.
 */
export type CanisterCall<To extends string> = (to: To, method: string, ...args: unknown[]) => Promise<never>;

/** What the host itself provides (not another canister). */
export interface HostServices {
  /** 16 random bytes: raw_rand on the IC, the OS generator embedded. */
  randomBytes(): Promise<Uint8Array>;
  /**
   * Instructions the current message has run so far, where the host counts them (the IC's
   * performance_counter); absent on the embedded host, which has no per-message limit.
   */
  instructions?(): bigint;
  /**
   * The host's Candid library (Azle's copy in the wasm, @icp-sdk/core's embedded): consent messages
   * decode the argument of the call they describe with it (decision L36).
   */
  candid: Idl;
}

/** A canister timer: `run` every `every_seconds` on the IC (setTimerInterval). */
export interface CanisterTimer<Core> {
  name: string;
  every_seconds: number;
  run(core: Core, ctx: CallContext): Promise<unknown>;
  /**
   * When its work is next due, if the core knows. The embedded scheduler runs a timer with `due` at
   * every step and wakes at the earliest due time; one without runs once its period has elapsed.
   */
  due?(core: Core, ctx: CallContext): bigint | undefined;
}

export interface CanisterWiring<To extends string, Deps, Core> {
  /** The canisters this one calls. */
  calls: readonly To[];
  /** The core's dependencies, as calls to those canisters' methods. */
  deps(call: CanisterCall<To>, host: HostServices): Deps;
  timers: readonly CanisterTimer<Core>[];
}
