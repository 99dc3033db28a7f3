// What every Azle entry point shares: the CallContext from the IC, Candid ⇄ core value conversion
// for a method table, inter-canister calls through the callee's method table, and raw_rand.
import { call, IDL, msgCaller, performanceCounter, Principal, time } from 'azle';
import type { CallContext } from '../call.ts';
import type { Idl, IdlType, MethodTable } from '../candid/methods.ts';
import { fromCandid, toCandid, type PrincipalCodec } from '../candid/values.ts';

/** Azle's own copy of the candid library, typed as the one the method tables are written against. */
export const AzleIdl = IDL as unknown as Idl;

export const principals: PrincipalCodec = {
  fromText: (t) => Principal.fromText(t),
  toText: (p) => (p as Principal).toText(),
};

/**
 * The message's CallContext. The caller's text is made when a core first reads it: a principal's
 * textual form (base32 and a CRC-32 in QuickJS) costs about 2.2 M instructions, a fixed cost of every
 * message that never asks who called (decision W17).
 */
export function context(): CallContext {
  let caller: string | undefined;
  return {
    get caller(): string {
      return (caller ??= msgCaller().toText());
    },
    now: time(),
  };
}

/** Decorator arguments typed for Azle. */
export type AzleMethods<T extends MethodTable> = { [K in keyof T]: { args: IDL.Type[]; ret: IDL.Type } };
export function azleMethods<T extends MethodTable>(table: T): AzleMethods<T> {
  return table as unknown as AzleMethods<T>;
}

type CoreFn = (ctx: CallContext, ...args: unknown[]) => unknown;

/**
 * What the state transfer (decision W22) asks of every update call and timer: a fresh canister is in
 * use from its first update call, and while an import is under way other update calls are refused
 * and timers do nothing. Unset in a canister without the transfer.
 */
export const transferHold: { beforeUpdate?: () => void; timersHeld?: () => boolean } = {};

/** Runs `core[name]` for a Candid call: converts arguments in and the result out. */
export function dispatcher(table: MethodTable, core: object) {
  const fns = core as Record<string, CoreFn>;
  return {
    query(name: string, args: unknown[]): unknown {
      const m = table[name];
      const result = fns[name](context(), ...args.map((a, i) => fromCandid(m.args[i], a, principals)));
      return toCandid(m.ret, result, principals);
    },
    async update(name: string, args: unknown[], options: { transfer?: boolean } = {}): Promise<unknown> {
      if (!options.transfer) transferHold.beforeUpdate?.();
      const m = table[name];
      const result = await fns[name](context(), ...args.map((a, i) => fromCandid(m.args[i], a, principals)));
      return toCandid(m.ret, result, principals);
    },
  };
}

/** A typed inter-canister call: core values in, core values out (a rejection throws). */
export function interCanister(canister: () => string, table: MethodTable) {
  return async (name: string, ...args: unknown[]): Promise<never> => {
    const m = table[name];
    const raw: unknown = await call(canister(), name, {
      paramIdlTypes: m.args as unknown as IDL.Type[],
      returnIdlType: m.ret as unknown as IDL.Type,
      args: args.map((a, i) => toCandid(m.args[i], a, principals)),
    });
    return fromCandid(m.ret, raw, principals) as never;
  };
}

/** What the Azle entry points give the cores' wiring: raw_rand, the message's instruction counter and Azle's Candid library. */
export const hostServices = {
  randomBytes: rawRandBytes,
  instructions: (): bigint => performanceCounter(0),
  candid: AzleIdl,
};

/** 16 bytes from the management canister's raw_rand. */
export async function rawRandBytes(): Promise<Uint8Array> {
  const bytes = await call<undefined, Uint8Array>('aaaaa-aa', 'raw_rand', { returnIdlType: IDL.Vec(IDL.Nat8) });
  return bytes.subarray(0, 16);
}

/** Init arguments decoded by Azle, as the core expects them. */
export function fromCandidArgs<T>(type: unknown, value: unknown): T {
  return fromCandid(type as IdlType, value, principals) as T;
}
