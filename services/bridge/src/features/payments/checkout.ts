// The upgrade to Active as a member sees it (decision F8): GET /api/me/membership-upgrade says what
// is still needed (KYC, the payment); in development, POST /api/dev/checkout is a clearly labelled
// simulated checkout: the bridge signs a card processor's `payment_intent.succeeded` event for the
// signed-in member with PAYMENT_WEBHOOK_SECRET and delivers it to its own webhook, so the same
// code path as a real payment runs (decision F8). Refused in production.
import { randomUUID } from 'node:crypto';
import type { Guards } from '../../core/auth/guards.ts';
import type { PaymentsContext } from './context.ts';
import { HttpError } from '../../core/http/errors.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { signPayload } from './signature.ts';
import { HANDLED_EVENT } from './webhook.ts';

export default async function checkout(app: BridgeApp, { ctx, guards }: { ctx: PaymentsContext; guards: Pick<Guards, 'requireMember'> }): Promise<void> {
  app.get('/api/me/membership-upgrade', async (req) => {
    const s = await guards.requireMember(req);
    const user = await ctx.db.selectFrom('users').select(['kyc_status', 'is_minor']).where('id', '=', s.user_id).executeTakeFirstOrThrow();
    return {
      kyc_status: user.kyc_status,
      adult: !user.is_minor,
      price_minor: String(ctx.config.MEMBERSHIP_PRICE_MINOR),
      currency: ctx.config.MEMBERSHIP_PRICE_CURRENCY,
      simulated_checkout: ctx.config.DEV_CHECKOUT && !!ctx.config.PAYMENT_WEBHOOK_SECRET,
    };
  });

  app.post(
    '/api/dev/checkout',
    {
      bodyLimit: 1024,
    },
    async (req, reply) => {
      const s = await guards.requireMember(req);
      const secret = ctx.config.PAYMENT_WEBHOOK_SECRET;
      if (!ctx.config.DEV_CHECKOUT || !secret) throw new HttpError(404, 'NOT_FOUND', 'the simulated checkout is off (DEV_CHECKOUT, development only)');
      const id = `evt_dev_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
      const raw = JSON.stringify({
        id,
        type: HANDLED_EVENT,
        data: {
          object: {
            id: `pi_dev_${id.slice(8)}`,
            amount: ctx.config.MEMBERSHIP_PRICE_MINOR,
            currency: ctx.config.MEMBERSHIP_PRICE_CURRENCY.toLowerCase(),
            metadata: { user_id: s.user_id },
          },
        },
      });
      const r = await app.inject({
        method: 'POST',
        url: '/api/webhooks/payments',
        headers: { 'content-type': 'application/json', 'payment-signature': signPayload(secret, Math.floor(ctx.now() / 1000), raw) },
        payload: raw,
      });
      req.log.info({ event: 'dev.checkout', user_id: s.user_id, event_id: id, status: r.statusCode }, 'simulated checkout');
      return reply.code(r.statusCode).send({ simulated: true, event_id: id, webhook: r.json<unknown>() });
    },
  );
}
