// POST /api/webhooks/payments (spec 2, decision B11): the card processor's signed event. The signature
// is checked on the raw body (signature.ts) before the JSON is read; the event id is claimed in the
// same transaction as its effects, so a replay is answered as a duplicate. A paid, verified, adult,
// KYC-approved user's upgrade is an outbox operation (operations.ts); anything else waits in escrow.
import type { PaymentsContext } from './context.ts';
import { isUniqueViolation } from '../../core/db/errors.ts';
import { HttpError } from '../../core/http/errors.ts';
import { USER_ID_PATTERN as UUID } from '../../core/identity/user-id.ts';
import { refusal, userAggregate } from '../../core/outbox/user-operations.ts';
import { OP_UPGRADE, upgradeOpId, type UpgradeOutcome, type UpgradePayload } from './operations.ts';
import { verifySignature } from './signature.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import { receivePaymentWebhookDoc } from './route-docs.ts';

export const HANDLED_EVENT = 'payment_intent.succeeded';

interface PaymentEvent {
  id: string;
  type: string;
  data: { object: { id: string; amount: number; currency: string; metadata: { user_id: string } } };
}

/** The event, or an event of a type the bridge does not handle (recorded and acknowledged), or why it is refused. */
function parseEvent(raw: Buffer): PaymentEvent | { id: string; type: string; unhandled: true } | string {
  let e: unknown;
  try {
    e = JSON.parse(raw.toString('utf8'));
  } catch {
    return 'the body is not JSON';
  }
  const ev = e as Partial<PaymentEvent>;
  if (typeof ev?.id !== 'string' || !/^[\w-]{1,128}$/.test(ev.id)) return 'id must be 1 to 128 word characters';
  if (typeof ev.type !== 'string' || ev.type.length > 128) return 'type must be a string';
  if (ev.type !== HANDLED_EVENT) return { id: ev.id, type: ev.type, unhandled: true };
  const o = ev.data?.object;
  if (!o || typeof o.id !== 'string' || o.id.length === 0 || o.id.length > 128)
    return 'data.object.id must be the payment id';
  if (!Number.isSafeInteger(o.amount) || o.amount < 1)
    return 'data.object.amount must be a positive integer in minor units';
  if (typeof o.currency !== 'string' || !/^[a-zA-Z]{3}$/.test(o.currency))
    return 'data.object.currency must be an ISO 4217 code';
  if (typeof o.metadata?.user_id !== 'string' || !new RegExp(UUID).test(o.metadata.user_id))
    return 'data.object.metadata.user_id must be the bridge user id';
  return ev as PaymentEvent;
}

export default async function paymentWebhook(app: BridgeApp, { ctx }: { ctx: PaymentsContext }): Promise<void> {
  // Raw body for the signature: this scope parses JSON itself, after verifying.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 * 1024 }, (_req, body, done) =>
      done(null, body),
    );
    scope.post('/api/webhooks/payments', { schema: routeSchema(receivePaymentWebhookDoc) }, async (req, reply) => {
      const secret = ctx.config.PAYMENT_WEBHOOK_SECRET;
      if (!secret) throw new HttpError(503, 'WEBHOOK_NOT_CONFIGURED', 'PAYMENT_WEBHOOK_SECRET is not set');
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const header = req.headers['payment-signature'];
      const problem = verifySignature(
        typeof header === 'string' ? header : undefined,
        raw,
        secret,
        Math.floor(ctx.now() / 1000),
        ctx.config.PAYMENT_WEBHOOK_TOLERANCE_SECONDS,
      );
      if (problem) {
        req.log.warn({ event: 'webhook.signature_rejected', reason: problem }, 'payment webhook signature rejected');
        throw new HttpError(400, 'SIGNATURE_INVALID', `webhook signature ${problem}`);
      }
      const ev = parseEvent(raw);
      if (typeof ev === 'string') throw new HttpError(400, 'VALIDATION_ERROR', ev);
      if ('unhandled' in ev) {
        await ctx.db
          .insertInto('webhook_events')
          .values({ event_id: ev.id, type: ev.type, outcome: 'ignored' })
          .onConflict((oc) => oc.doNothing())
          .execute();
        return reply.send({ received: true, handled: false });
      }
      const o = ev.data.object;
      // Read before the transaction: no canister call ever runs inside one (decision B20).
      const principal = (
        await ctx.db.selectFrom('users').select('principal').where('id', '=', o.metadata.user_id).executeTakeFirst()
      )?.principal;
      const active = principal
        ? await ctx.canisters.membership.get_membership_status(principal).catch(() => undefined)
        : undefined;
      let outcome: { status: 'pending' | 'applied' | 'escrow'; reason?: string };
      try {
        outcome = await ctx.db.transaction().execute(async (tx) => {
          // The event id is claimed first, in the same transaction as its effects: a replay waits, then finds it.
          await tx
            .insertInto('webhook_events')
            .values({ event_id: ev.id, type: ev.type, outcome: 'processing' })
            .execute();
          const user = await tx
            .selectFrom('users')
            .select(['id', 'principal', 'is_minor', 'email_verified_at', 'kyc_status', 'kyc_reference'])
            .where('id', '=', o.metadata.user_id)
            .executeTakeFirst();
          let reason: string | undefined;
          // One intent, one upgrade (B19): another event of a recorded intent is a duplicate.
          if (await tx.selectFrom('payments').select('id').where('payment_id', '=', o.id).executeTakeFirst())
            throw Object.assign(new Error('duplicate payment intent'), { code: '23505' });
          const price = { amount: ctx.config.MEMBERSHIP_PRICE_MINOR, currency: ctx.config.MEMBERSHIP_PRICE_CURRENCY };
          if (o.currency.toUpperCase() !== price.currency || o.amount !== price.amount)
            reason = `price mismatch: paid ${o.amount} ${o.currency.toUpperCase()}, the membership costs ${price.amount} ${price.currency}`;
          else if (!user) reason = 'unknown user';
          else if (active?.status === 'Active') reason = 'already Active: a renewal is reviewed by an admin';
          else if (!user.email_verified_at) reason = 'not Registered: email not verified';
          else if (user.is_minor) reason = 'under 18';
          else if (user.kyc_status !== 'approved') reason = 'KYC not approved';
          const status = reason === undefined ? 'pending' : 'escrow';
          await tx
            .insertInto('payments')
            .values({
              event_id: ev.id,
              user_id: user?.id ?? null,
              payment_id: o.id,
              amount_minor: String(o.amount),
              currency: o.currency.toUpperCase(),
              status,
              reason: reason ?? null,
              created_at: new Date(ctx.now()), // the bridge's clock (decision B81)
            })
            .execute();
          await tx.updateTable('webhook_events').set({ outcome: status }).where('event_id', '=', ev.id).execute();
          // Decision B27: the upgrade is an outbox operation keyed by the payment intent: one intent, one upgrade.
          if (status === 'pending' && user) {
            const payload: UpgradePayload = {
              user_id: user.id,
              renewal: active?.status === 'Expired',
              event_id: ev.id,
              payment_id: o.id,
              principal: user.principal,
              kyc_proof: user.kyc_reference ?? 'approved',
              payment_proof: `${ev.id}:${o.id}:${o.amount}:${o.currency}`,
              receipt: { amount: o.amount, currency: o.currency.toUpperCase() },
              request_id: req.id,
            };
            await ctx.outbox.enqueue(tx, {
              operation: OP_UPGRADE,
              opId: upgradeOpId(o.id),
              aggregate: userAggregate(user.id),
              payload,
            });
          }
          return { status, ...(reason !== undefined && { reason }) };
        });
      } catch (e) {
        if (isUniqueViolation(e)) return reply.send({ received: true, duplicate: true });
        throw e;
      }
      if (outcome.status === 'pending') {
        const out = await ctx.outbox.run<UpgradeOutcome>(upgradeOpId(o.id));
        if (out.state === 'done')
          outcome =
            'Ok' in out.result.answer
              ? { status: 'applied' }
              : { status: 'escrow', reason: `upgrade refused: ${refusal(out.result.answer.Err)}` };
        else if (out.state === 'compensated') outcome = { status: 'escrow', reason: out.error };
      }
      req.log.info(
        { event: 'payment.processed', event_id: ev.id, status: outcome.status, reason: outcome.reason },
        'payment webhook processed',
      );
      return reply.send({
        received: true,
        status: outcome.status,
        ...(outcome.reason !== undefined && { reason: outcome.reason }),
      });
    });
  });
}
