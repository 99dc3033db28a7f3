// The outbox's operations and their handlers (decisions B20–B23), as features write them.
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';

/**
 * Where a fault can be injected (tests only): a throw at `before-call` (after the enqueue commit),
 * `after-call` (the answer received, not applied) or `after-apply` (before the follow-up) is a crash of
 * the process; a throw at `lost-reply` is a call that did its work but whose reply never arrived.
 */
export type FaultPoint = 'before-call' | 'lost-reply' | 'after-call' | 'after-apply';
/** Test-only hook (never reachable from configuration): throwing leaves the row as a crash would. */
export type FaultHook = (point: FaultPoint, op: { operation: string; opId: string }) => void | Promise<void>;

export interface OutboxOp<P> {
  id: string;
  operation: string;
  opId: string;
  aggregate: string;
  payload: P;
  attempts: number;
}

export interface OperationHandler<P, R, A = unknown> {
  /** The cross-system call, idempotent under `op.opId`. A throw is transient: the row is retried. */
  call(op: OutboxOp<P>): Promise<R>;
  /** The bridge's own change for the answer (success or refusal), in the transaction that marks the row done. */
  apply(trx: Transaction<Database>, op: OutboxOp<P>, result: R): Promise<void>;
  /** Undoes the bridge's side when the call cannot be finished (cancelled, or attempts exhausted). */
  compensate?(trx: Transaction<Database>, op: OutboxOp<P>, reason: string): Promise<void>;
  /** After the commit (emails): at most once per completion, never retried; its value is handed to `run`'s caller. */
  after?(op: OutboxOp<P>, result: R): Promise<A>;
  /**
   * Attempts before `compensate` (default: the outbox's `maxAttempts`). `Infinity`: never given up, for
   * an operation whose call itself decides in the end (a member's DOM transfer, decision L41: the
   * ledger's TooOld after 24 hours is a definite answer, while compensating earlier could undo a
   * transfer the ledger made).
   */
  maxAttempts?: number;
}

export type RunOutcome<R, A = unknown> =
  | { state: 'done'; result: R; after?: A }
  | { state: 'pending'; error?: string }
  | { state: 'compensated'; error: string };
