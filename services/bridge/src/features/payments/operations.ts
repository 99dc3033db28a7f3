// The payment side's user canister operations (decision B27), run through the outbox: the upgrade to
// Active keyed by the payment intent (one intent, one upgrade) and the KYC decision; their answers are
// applied to payments and users once; a confirmed upgrade announces MembershipActivated (its emails follow).
import type { Transaction } from 'kysely';
import type { PaymentsContext } from './context.ts';
import type { Database } from '../../core/db/schema.ts';
import { refusal } from '../../core/outbox/user-operations.ts';
import { SYSTEM } from '../../core/audit/log.ts';

export const OP_UPGRADE = 'user.upgrade_membership_to_active';
export const OP_RECORD_KYC = 'user.record_kyc';
export const upgradeOpId = (paymentId: string) => `upgrade:${paymentId}`;
export type UpgradeAnswer = { Ok: null } | { Err: Record<string, unknown> };
/** The canister's answer and, after an Ok, the membership it left (read outside any transaction). */
export type UpgradeOutcome = { answer: UpgradeAnswer; token?: { token_id: bigint; expiration_date: bigint } };
export interface UpgradePayload {
  user_id: string;
  /** The membership was Expired before this payment (MembershipActivated, decision N13). */
  renewal: boolean;
  event_id: string;
  payment_id: string;
  principal: string;
  kyc_proof: string;
  payment_proof: string;
  receipt: { amount: number; currency: string };
  /** The webhook request that queued it, for the audit line (absent in rows written before it). */
  request_id?: string;
}

/** The upgrade and KYC operations (decision B27): answers applied to payments and users, once. */
export function registerPaymentOperations(ctx: PaymentsContext): void {
  const enc = (s: string) => new TextEncoder().encode(s);
  const settle = async (
    tx: Transaction<Database>,
    p: UpgradePayload,
    status: 'applied' | 'escrow',
    reason: string | null,
  ) => {
    await tx
      .updateTable('payments')
      .set({ status, reason })
      .where('event_id', '=', p.event_id)
      .where('status', '=', 'pending')
      .execute();
    await tx.updateTable('webhook_events').set({ outcome: status }).where('event_id', '=', p.event_id).execute();
  };
  ctx.outbox.register<UpgradePayload, UpgradeOutcome>(OP_UPGRADE, {
    async call(op) {
      const r = await ctx.canisters.user.upgrade_membership_to_active(
        {
          principal: op.payload.principal,
          kyc_proof: enc(op.payload.kyc_proof),
          payment_proof: enc(op.payload.payment_proof),
        },
        op.opId,
      );
      if ('Err' in r && 'InProgress' in r.Err) throw new Error('the user canister is still running this upgrade');
      if (!('Ok' in r)) return { answer: r };
      const token = await ctx.canisters.membership.get_membership_status(op.payload.principal).catch(() => undefined);
      return {
        answer: r,
        ...(token && { token: { token_id: token.token_id, expiration_date: token.expiration_date } }),
      };
    },
    async apply(tx, op, r) {
      if (!('Ok' in r.answer)) return settle(tx, op.payload, 'escrow', `upgrade refused: ${refusal(r.answer.Err)}`);
      await settle(tx, op.payload, 'applied', null);
      // Decision B61: audited in the transaction that records it, whoever ran it (the webhook or the reconciler).
      await ctx.audit.record(
        undefined,
        {
          event: 'membership.upgraded',
          actor: SYSTEM,
          subject: op.payload.user_id,
          outcome: 'success',
          requestId: op.payload.request_id,
          detail: { renewal: op.payload.renewal },
        },
        tx,
      );
      // Announced in the transaction that records it (decision N13): the feed and the member emails follow it.
      const p = op.payload;
      const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();
      await ctx.events.publish(
        'MembershipActivated',
        {
          user_id: p.user_id,
          payment_event_id: p.event_id,
          payment_id: p.payment_id,
          amount_minor: String(p.receipt.amount),
          currency: p.receipt.currency,
          activated_at: new Date(ctx.now()).toISOString(),
          expires_at:
            r.token && r.token.expiration_date > 0n ? iso(r.token.expiration_date) : new Date(ctx.now()).toISOString(),
          token_id: r.token ? String(r.token.token_id) : '',
          renewal: p.renewal,
        },
        { trx: tx, sourceId: `payment:${p.event_id}` },
      );
    },
    // Spec 2 rule 6: no automatic retry of an upgrade. Asking again under the same op id is not one (the
    // canister applies an op id once); after 20 unanswered attempts the payment goes to escrow.
    compensate: (tx, op, reason) =>
      settle(
        tx,
        op.payload,
        'escrow',
        `upgrade outcome unknown (the user canister did not answer; an admin checks the membership before acting): ${reason}`,
      ),
    after: async (op, r) => {
      if (!('Ok' in r.answer)) return;
      // membership-confirm + payment-receipt (or renewal-receipt) follow MembershipActivated
      // (member-emails/, decision N13): answered once they went out, 5 s at most.
      await ctx.events.settle();
    },
  });
  ctx.outbox.register<{ user_id: string; principal: string; approved: boolean; reference: string }, UpgradeAnswer>(
    OP_RECORD_KYC,
    {
      async call(op) {
        const r = await ctx.canisters.user.record_kyc(op.payload.principal, op.payload.approved, op.opId);
        if ('Err' in r && 'InProgress' in r.Err) throw new Error('the user canister is still running this operation');
        return r;
      },
      async apply(tx, op, r) {
        if ('Ok' in r)
          await tx
            .updateTable('users')
            .set({ kyc_status: op.payload.approved ? 'approved' : 'rejected', kyc_reference: op.payload.reference })
            .where('id', '=', op.payload.user_id)
            .execute();
      },
    },
  );
}
