// How Candid bytes reach a canister: a query or an update call with an encoded argument, answered by
// encoded reply bytes or a rejection. The IC agent implements it over HTTPS; tests implement it
// in-process to check every encoding against the committed .did files.
import { QueryResponseStatus, RejectError, type Agent } from '@icp-sdk/core/agent';

export interface CandidTransport {
  query(canisterId: string, method: string, arg: Uint8Array): Promise<Uint8Array>;
  update(canisterId: string, method: string, arg: Uint8Array): Promise<Uint8Array>;
}

/** A call the canister (or the IC) rejected: the reply's code and message, for logs and errors. */
export class CanisterCallError extends Error {
  override name = 'CanisterCallError';
  constructor(
    readonly canisterId: string,
    readonly method: string,
    message: string,
    readonly rejectCode?: number,
    /** The IC's error code (`IC0503` for a trap, decision W13), when the IC gave one. */
    readonly errorCode?: string,
  ) {
    super(`${method} on ${canisterId} was rejected: ${message}`);
  }
}

/** Over an @icp-sdk/core agent: queries answered by one replica, updates certified by the subnet. */
export function agentTransport(agent: Agent): CandidTransport {
  return {
    async query(canisterId, method, arg) {
      const r = await agent.query(canisterId, { methodName: method, arg });
      if (r.status === QueryResponseStatus.Replied) return r.reply.arg;
      throw new CanisterCallError(canisterId, method, r.reject_message, Number(r.reject_code), r.error_code);
    },
    async update(canisterId, method, arg) {
      try {
        const r = await agent.update(canisterId, { methodName: method, arg, effectiveCanisterId: canisterId });
        return r.reply;
      } catch (e) {
        // A reject the IC certified (or answered before running the call) keeps its code and text, as a query's does.
        if (e instanceof RejectError) {
          const r = e.code as unknown as { rejectCode: number; rejectMessage: string; rejectErrorCode?: string };
          throw new CanisterCallError(canisterId, method, r.rejectMessage, Number(r.rejectCode), r.rejectErrorCode);
        }
        throw new CanisterCallError(canisterId, method, e instanceof Error ? e.message : String(e));
      }
    },
  };
}
