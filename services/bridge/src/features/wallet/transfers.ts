// A member's DOM transfer through the outbox (decision L41). The route writes the transfer and its
// outbox row in one transaction; the call is then one icrc1_transfer signed as the member with the
// record's own created_at_time and memo (`dom-wallet:<id>`), so every attempt (the route's, the
// reconciler's after a crash or a lost reply) sends the very same transaction: the first one the ledger
// accepts makes the block, a repeat within the ledger's 24-hour window answers Duplicate {duplicate_of}
// and is recorded as that block. Past the window the ledger answers TooOld, which is final too: the
// ledger can no longer accept the transaction, so the wallet index (brought up to the ledger's tip) either
// holds the member's block with this memo (it was made) or it never will (nothing moved). The operation
// is never given up before one of those answers (the outbox's per-operation `maxAttempts: Infinity`).
import type { CanisterClients } from '@domdao/canisters';
import type { Outbox } from '../../core/outbox/queue.ts';
import type { LedgerIndex } from './ledger-index.ts';
import { errorCode } from '../../core/http/error-codes.ts';

export const OP_TRANSFER = 'wallet.transfer';
export const transferOpId = (id: string) => `wallet-transfer:${id}`;
/** At most 32 bytes (the ledger's memo limit, decision L2): "dom-wallet:" and a bigint id are at most 30. */
export const transferMemo = (id: string) => new TextEncoder().encode(`dom-wallet:${id}`);

export interface TransferPayload {
  transfer_id: string;
  user_id: string;
  /** The sender's principal (its default account). */
  from: string;
  to: string;
  amount_e8s: string;
  fee_e8s: string;
  /** ns, decimal. */
  created_at_time: string;
}

/** A refusal recorded on the transfer: nothing moved. */
export interface TransferRefusal {
  code: string;
  message: string;
}
export type TransferAnswer = { Ok: string } | { Err: TransferRefusal };

/** The HTTP status of each recorded refusal (decision B75), as the registry gives it (decision B125). */
export const REFUSAL_STATUS: Record<string, number> = Object.fromEntries(
  (['InsufficientFunds', 'BadFee', 'TooOld', 'CANCELLED', 'LedgerError'] as const).map((c) => [
    c,
    errorCode(c).status[0]!,
  ]),
);

const text = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));

export interface TransferOperationDeps {
  outbox: Outbox;
  index: Pick<LedgerIndex, 'catchUp' | 'findSent' | 'skipped'>;
  /** The member's own ledger client (the call carries the member's principal). */
  ledgerAs(member: { user_id: string; principal: string }): Promise<Pick<CanisterClients['ledger'], 'icrc1_transfer'>>;
  now(): number;
}

export function registerTransferOperation(d: TransferOperationDeps): void {
  d.outbox.register<TransferPayload, TransferAnswer>(OP_TRANSFER, {
    maxAttempts: Infinity,
    async call(op) {
      const p = op.payload;
      const memo = transferMemo(p.transfer_id);
      const ledger = await d.ledgerAs({ user_id: p.user_id, principal: p.from });
      const r = await ledger.icrc1_transfer({
        to: { owner: p.to },
        amount: BigInt(p.amount_e8s),
        fee: BigInt(p.fee_e8s),
        memo,
        created_at_time: BigInt(p.created_at_time),
      });
      if ('Ok' in r) return { Ok: String(r.Ok) };
      const e = r.Err;
      if ('Duplicate' in e) return { Ok: String(e.Duplicate.duplicate_of) };
      // Nothing decided yet: the row stays pending and is tried again with the same transaction.
      if ('TemporarilyUnavailable' in e) throw new Error('the ledger is temporarily unavailable');
      if ('CreatedInFuture' in e)
        throw new Error(`the ledger's clock is behind the bridge's (ledger_time ${e.CreatedInFuture.ledger_time})`);
      if ('TooOld' in e) {
        // Only an index holding the whole log can say the transfer is not in it.
        if (!(await d.index.catchUp()))
          throw new Error('TooOld: the wallet index is still reading the ledger; tried again later');
        const block = await d.index.findSent(p.from, memo);
        if (block !== undefined) return { Ok: block };
        // Blocks the index never read (archived on the IC before it followed them) could hold it: an operator decides.
        if ((await d.index.skipped()) > 0n)
          throw new Error(
            `TooOld and the wallet index skipped archived blocks: look for memo dom-wallet:${p.transfer_id} in the ledger (decision L41)`,
          );
        return {
          Err: {
            code: 'TooOld',
            message:
              'the ledger could not be reached for 24 hours and no longer accepts this transfer; nothing was sent',
          },
        };
      }
      if ('InsufficientFunds' in e)
        return {
          Err: {
            code: 'InsufficientFunds',
            message: `not enough DOM in your account (amount plus the ledger fee) ${text({ balance: e.InsufficientFunds.balance, required: BigInt(p.amount_e8s) + BigInt(p.fee_e8s) })}`,
          },
        };
      if ('BadFee' in e)
        return {
          Err: { code: 'BadFee', message: `the ledger's fee is now ${e.BadFee.expected_fee} e8s; nothing was sent` },
        };
      return { Err: { code: 'LedgerError', message: `the DOM ledger refused the transfer: ${text(e)}` } };
    },
    async apply(trx, op, r) {
      const now = new Date(d.now());
      const done = 'Ok' in r;
      await trx
        .updateTable('wallet_transfers')
        .set({
          state: done ? 'done' : 'failed',
          block_index: done ? r.Ok : null,
          error_code: done ? null : r.Err.code,
          error_message: done ? null : r.Err.message,
          updated_at: now,
        })
        .where('id', '=', op.payload.transfer_id)
        .where('state', '=', 'pending')
        .execute();
    },
    // Only an operator's Outbox.cancel reaches this (the operation is never given up on its own): they
    // cancel after finding no block with the memo in the ledger.
    async compensate(trx, op, reason) {
      await trx
        .updateTable('wallet_transfers')
        .set({
          state: 'failed',
          error_code: 'CANCELLED',
          error_message: `cancelled by an operator: ${reason}`.slice(0, 1000),
          updated_at: new Date(d.now()),
        })
        .where('id', '=', op.payload.transfer_id)
        .where('state', '=', 'pending')
        .execute();
    },
  });
}
