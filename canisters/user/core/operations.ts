// Idempotent operations (decision U5): a registrar names each mutating call with an
// operation id; the canister remembers op id → answer and gives a repeat the same answer without doing
// the work again, so the bridge can retry a call whose reply it never saw (a crash, a lost reply).
// Memory is bounded: an answer is kept OP_RETENTION (7 days) and at most MAX_OPS answers are kept
// (the oldest go first); a repeat after that runs again and meets the method's own checks.
import { Err, type CallContext, type Result } from '@domdao/canister-kit';
import { NS_PER_MINUTE, type OperationRecord, type UserError, type UserStores } from './types.ts';

export const OP_RETENTION = 7n * 24n * 60n * NS_PER_MINUTE;
export const MAX_OPS = 100_000;
/** At most this many old answers are dropped per call, so one call's work stays bounded. */
const PRUNE_PER_CALL = 64;
const OP_ID = /^[A-Za-z0-9:._-]{1,128}$/;

export function idempotentOperations(stores: Pick<UserStores, 'ops' | 'opOrder' | 'counters'>) {
  // Op ids whose first call is still awaiting another canister (only the IC interleaves messages).
  // Heap, not state: a trap rolls the heap back with the message, and nothing survives an upgrade
  // mid-call; a repeat meanwhile is told InProgress instead of doing the work a second time.
  const inflight = new Set<string>();
  const prune = (now: bigint) => {
    let n = 0;
    for (const [seq, opId] of stores.opOrder.entries({ limit: PRUNE_PER_CALL })) {
      const rec = stores.ops.get(opId);
      if (rec && stores.opOrder.size <= MAX_OPS && rec.at + OP_RETENTION > now) break;
      if (rec?.seq === seq) stores.ops.delete(opId);
      stores.opOrder.delete(seq);
      if (++n >= PRUNE_PER_CALL) break;
    }
  };

  return {
    /**
     * Runs `work` once per op id (absent: every time, as before). The answer is recorded after the
     * work's awaits, in the same atomic step as its writes; a repeat gets the recorded answer, or
     * InProgress while the first is still running. Reusing an op id for another method is refused.
     */
    async once<T>(
      ctx: CallContext,
      method: string,
      opId: string | undefined,
      work: () => Promise<Result<T, UserError>> | Result<T, UserError>,
    ): Promise<Result<T, UserError>> {
      if (opId === undefined) return work();
      if (!OP_ID.test(opId)) return Err({ InvalidRequest: 'op_id must be 1 to 128 characters of A-Z a-z 0-9 : . _ -' });
      const seen = (): Result<T, UserError> | undefined => {
        const rec = stores.ops.get(opId);
        if (!rec) return undefined;
        if (rec.method !== method) return Err({ InvalidRequest: `op_id ${opId} was used for ${rec.method}` });
        return rec.result as Result<T, UserError>;
      };
      const before = seen();
      if (before) return before;
      if (inflight.has(opId)) return Err({ InProgress: null });
      inflight.add(opId);
      let result: Result<T, UserError>;
      try {
        result = await work();
      } finally {
        inflight.delete(opId);
      }
      const seq = (stores.counters.get('op') ?? 0n) + 1n;
      stores.counters.set('op', seq);
      stores.ops.set(opId, { op_id: opId, method, seq, at: ctx.now, result });
      stores.opOrder.set(seq, opId);
      prune(ctx.now);
      return result;
    },
    /** The recorded answer of an op id, if still kept (tests and support). */
    recorded: (opId: string): OperationRecord | undefined => stores.ops.get(opId),
  };
}

export type IdempotentOperations = ReturnType<typeof idempotentOperations>;
