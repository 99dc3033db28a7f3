// The inference circuit breaker (spec 2 "Inference circuit breaker"), on cockatiel's
// ConsecutiveBreaker: CLOSED → OPEN after `threshold` consecutive failures; OPEN fast-fails without
// calling the server; after `resetMs` HALF-OPEN lets one probe through (callers arriving meanwhile
// wait for its outcome); CLOSED on its success, OPEN again on its failure. Only failures that say
// the server is unwell count (InferenceError kind `unavailable`); a malformed or refused answer
// came from a live server (decision A5). Disabled under NODE_ENV=test unless a test asks for it.
import {
  BrokenCircuitError,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  handleWhen,
  type IBackoff,
  type IBackoffFactory,
} from 'cockatiel';
import { InferenceError } from './inference-client.ts';

export type CircuitName = 'CLOSED' | 'OPEN' | 'HALF-OPEN';

export class CircuitOpenError extends Error {
  constructor() {
    super('the inference circuit is open');
  }
}

export interface CircuitOptions {
  enabled: boolean;
  threshold: number;
  resetMs: number;
  /** The clock deciding when OPEN may turn HALF-OPEN (tests move it); Date.now by default. */
  now?: () => number;
  onChange?(from: CircuitName, to: CircuitName): void;
}

export interface Circuit {
  state(): CircuitName;
  /** Runs `fn` through the breaker; CircuitOpenError (no call made) while it is open. */
  execute<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * cockatiel compares Date.now() with the open time and the backoff's `duration`. To let the bridge's
 * own clock decide, the backoff records that clock when the circuit opens and reports a duration of
 * 0 (elapsed) or +∞ (still open) when asked, which is exactly when cockatiel decides.
 */
function clockedReset(resetMs: number, now: () => number): IBackoffFactory<unknown> {
  const make = (): IBackoff<unknown> => {
    const openedAt = now();
    return {
      get duration() {
        return now() - openedAt >= resetMs ? 0 : Number.POSITIVE_INFINITY;
      },
      next: () => make(),
    };
  };
  return { next: () => make() };
}

const NAMES: Record<number, CircuitName> = {
  [CircuitState.Closed]: 'CLOSED',
  [CircuitState.Open]: 'OPEN',
  [CircuitState.HalfOpen]: 'HALF-OPEN',
  [CircuitState.Isolated]: 'OPEN',
};

export function createCircuit(o: CircuitOptions): Circuit {
  if (!o.enabled) return { state: () => 'CLOSED', execute: (fn) => fn() };
  const now = o.now ?? Date.now;
  const policy = circuitBreaker(
    handleWhen((e) => e instanceof InferenceError && e.kind === 'unavailable'),
    { halfOpenAfter: clockedReset(o.resetMs, now), breaker: new ConsecutiveBreaker(o.threshold) },
  );
  let current: CircuitName = 'CLOSED';
  let openedAt = 0;
  policy.onStateChange((s) => {
    const next = NAMES[s] ?? 'OPEN';
    const from = current;
    current = next;
    if (next === 'OPEN') openedAt = now();
    if (from !== next) o.onChange?.(from, next);
  });
  return {
    state() {
      // OPEN whose reset time has passed is HALF-OPEN to an observer: the next call will probe.
      return current === 'OPEN' && now() - openedAt >= o.resetMs ? 'HALF-OPEN' : current;
    },
    async execute(fn) {
      try {
        return await policy.execute(() => fn());
      } catch (e) {
        if (e instanceof BrokenCircuitError) throw new CircuitOpenError();
        throw e;
      }
    },
  };
}
