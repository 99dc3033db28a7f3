// A canister's wiring (../wiring.ts) on the IC: its calls go to the principals in its init arguments
// through the callees' method tables, and its timers are armed with setTimerInterval.
import { canisterSelf, setTimerInterval, time } from 'azle';
import type { MethodTable } from '../candid/methods.ts';
import type { CanisterCall, CanisterTimer } from '../wiring.ts';
import { interCanister, transferHold } from './entry.ts';

/** Calls to each callee named in `tables`, at the principal `canisterOf` gives when the call is made. */
export function canisterCalls<To extends string>(
  tables: Record<To, MethodTable>,
  canisterOf: (to: To) => string,
): CanisterCall<To> {
  const clients = new Map<To, ReturnType<typeof interCanister>>();
  for (const to of Object.keys(tables) as To[])
    clients.set(
      to,
      interCanister(() => canisterOf(to), tables[to]),
    );
  return (to, method, ...args) => clients.get(to)!(method, ...args);
}

/** Arms the canister's timers (after init and after each upgrade: timers do not survive an upgrade). */
export function armTimers<Core>(timers: readonly CanisterTimer<Core>[], core: Core): void {
  for (const timer of timers) {
    setTimerInterval(timer.every_seconds, async () => {
      if (transferHold.timersHeld?.()) return; // an import under way (decision W22)
      await timer.run(core, { caller: canisterSelf().toText(), now: time() });
    });
  }
}
