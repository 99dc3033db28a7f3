// The IC's prices and the fits docs/ic-cost.md's tables use (decision W21): what bench/ic-cost.ts and
// bench/ic-cost-transfer.ts both read, so neither imports the other.
import type { CostCall } from './cost-types.ts';

export const AT = 10_000;
/** The IC's fees on a 13-node application subnet, in cycles (docs/ic-cost.md cites the page). */
export const FEES = {
  ingressMessage: 1_200_000,
  ingressByte: 2_000,
  updateMessage: 5_000_000,
  instruction: 1,
  interCanisterCall: 260_000,
} as const;
/** 1 T cycles = 1 XDR; the cited page's XDR rate in USD. */
export const USD_PER_XDR = 1.35;
/** Short messages of one canister run about 7 B − 5 B = 2 B instructions a round, each execution counted 2 M more. */
export const ROUND_INSTRUCTIONS = 2_000_000_000;
export const EXECUTION_OVERHEAD = 2_000_000;
export const QUERY_LIMIT = 5_000_000_000;
/** dfinity/ic subnet_config.rs: MAX_INSTRUCTIONS_PER_MESSAGE (an update, with time slicing) and MAX_INSTRUCTIONS_PER_SLICE. */
export const UPDATE_LIMIT = 40_000_000_000;
export const SLICE_INSTRUCTIONS = 2_000_000_000;

export interface Fit {
  value: number;
  /** measured (at 10,000), constant, linear or log; a page or chunk: per entry (bench/ic-cost-transfer.ts). */
  fit: 'measured' | 'constant' | 'linear' | 'log' | 'per entry';
}

/** The value at AT from (size, value) points, the largest two extrapolated; with three, linear or log by the middle point. */
export function fitAt(points: Array<[number, number]>): Fit {
  const sorted = [...points].sort((a, b) => a[0] - b[0]);
  const exact = sorted.find(([n]) => n === AT);
  if (exact) return { value: exact[1], fit: 'measured' };
  const [n2, v2] = sorted.at(-1)!;
  const [n1, v1] = sorted.at(-2) ?? sorted.at(-1)!;
  // Within 3 % (or 50,000 instructions) between the sizes: the same cost, what the store holds does not matter.
  if (n1 === n2 || Math.abs(v2 - v1) <= Math.max(0.03 * v1, 50_000))
    return { value: Math.max(v1, v2), fit: 'constant' };
  let log = false;
  if (sorted.length >= 3) {
    const [a, va] = sorted[0]!;
    const [b, vb] = sorted.at(-1)!;
    const [mid, vm] = sorted[sorted.length - 2]!;
    const linear = va + ((vb - va) * (mid - a)) / (b - a);
    const logarithmic = va + ((vb - va) * Math.log(mid / a)) / Math.log(b / a);
    log = Math.abs(logarithmic - vm) < Math.abs(linear - vm);
  }
  const value = log
    ? v2 + ((v2 - v1) * Math.log(AT / n2)) / Math.log(n2 / n1)
    : v2 + ((v2 - v1) * (AT - n2)) / (n2 - n1);
  return { value, fit: log ? 'log' : 'linear' };
}

/**
 * An ingress update: reception and its bytes, then every message of its chain executed and every call it
 * makes. A method another canister calls (a query too: between canisters it runs replicated and is
 * charged): its execution plus the call, which the caller pays. A query from outside: free.
 */
export function cyclesOf(
  c: Pick<CostCall, 'kind' | 'how' | 'argBytes' | 'messages' | 'interCanisterCalls'>,
  chainInstructions: number,
): number {
  if (c.how === 'callee') return FEES.interCanisterCall + FEES.updateMessage + FEES.instruction * chainInstructions;
  if (c.kind === 'query') return 0;
  return (
    FEES.ingressMessage +
    FEES.ingressByte * c.argBytes +
    FEES.updateMessage * c.messages +
    FEES.instruction * chainInstructions +
    FEES.interCanisterCall * c.interCanisterCalls
  );
}

export const millions = (n: number) => (n / 1e6).toFixed(2);
export const usd = (cycles: number) => (cycles / 1e12) * USD_PER_XDR;
export const money = (x: number) => (x === 0 ? '0 (free)' : `$${x < 0.001 ? x.toExponential(2) : x.toFixed(4)}`);
