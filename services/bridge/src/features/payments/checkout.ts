// The upgrade to Active as a member sees it (decision F8): GET /api/me/membership-upgrade says what is still needed
// (KYC, the payment); GET /api/me/membership the term and the latest payment (F50); in development, POST
// /api/dev/checkout is a clearly labelled simulated checkout: the bridge signs a card processor's
// `payment_intent.succeeded` event for the signed-in member with PAYMENT_WEBHOOK_SECRET and delivers it to its own
// webhook, so the same code path as a real payment runs (decision F8). Refused in production.
import { randomUUID } from 'node:crypto';
import type { Guards } from '../../core/auth/guards.ts';
import type { PaymentsContext } from './context.ts';
import { HttpError } from '../../core/http/errors.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { signPayload } from './signature.ts';
import { HANDLED_EVENT } from './webhook.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import { getMembershipUpgradeDoc, getMyMembershipDoc, simulateCheckoutDoc } from './route-docs.ts';

const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();

export default async function checkout(
  app: BridgeApp,
  { ctx, guards }: { ctx: PaymentsContext; guards: Pick<Guards, 'requireMember'> },
): Promise<void> {
  app.get('/api/me/membership-upgrade', { schema: routeSchema(getMembershipUpgradeDoc) }, async (req) => {
    const s = await guards.requireMember(req);
    const user = await ctx.db
      .selectFrom('users')
      .select(['kyc_status', 'is_minor'])
      .where('id', '=', s.user_id)
      .executeTakeFirstOrThrow();
    return {
      kyc_status: user.kyc_status,
      adult: !user.is_minor,
      price_minor: String(ctx.config.MEMBERSHIP_PRICE_MINOR),
      currency: ctx.config.MEMBERSHIP_PRICE_CURRENCY,
      simulated_checkout: ctx.config.DEV_CHECKOUT && !!ctx.config.PAYMENT_WEBHOOK_SECRET,
    };
  });

  // Decision F50: the membership's term and the member's latest payment, from the membership canister
  // and the payments table, so what /me says after a payment survives a reload (it was a message held
  // in the page's memory).
  app.get('/api/me/membership', { schema: routeSchema(getMyMembershipDoc) }, async (req, reply) => {
    const s = await guards.requireMember(req);
    let token;
    try {
      token = await ctx.canisters.membership.get_membership_status(s.principal);
    } catch (e) {
      req.log.warn(
        { event: 'canister.unavailable', canister: 'membership', err: e instanceof Error ? e.message : String(e) },
        'membership status unavailable',
      );
      throw new HttpError(503, 'MEMBERSHIP_UNAVAILABLE', 'the membership canister did not answer; try again');
    }
    const paid = await ctx.db
      .selectFrom('payments')
      .select(['amount_minor', 'currency', 'status', 'created_at'])
      .where('user_id', '=', s.user_id)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    reply.header('cache-control', 'private, no-cache');
    return {
      status: token?.status ?? null,
      joined_at: token ? iso(token.join_date) : null,
      active_until: token && token.expiration_date > 0n ? iso(token.expiration_date) : null,
      payment: paid
        ? {
            amount_minor: String(paid.amount_minor),
            currency: paid.currency,
            received_at: new Date(paid.created_at).toISOString(),
            // Escrow's reason is for the admins who review it (GET /api/admin/payments); the member hears that it is
            // held.
            state: paid.status === 'applied' ? 'applied' : paid.status === 'escrow' ? 'held' : 'processing',
          }
        : null,
    };
  });

  app.post('/api/dev/checkout', { schema: routeSchema(simulateCheckoutDoc), bodyLimit: 1024 }, async (req, reply) => {
    const s = await guards.requireMember(req);
    const secret = ctx.config.PAYMENT_WEBHOOK_SECRET;
    if (!ctx.config.DEV_CHECKOUT || !secret)
      throw new HttpError(404, 'NOT_FOUND', 'the simulated checkout is off (DEV_CHECKOUT, development only)');
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
      headers: {
        'content-type': 'application/json',
        'payment-signature': signPayload(secret, Math.floor(ctx.now() / 1000), raw),
      },
      payload: raw,
    });
    req.log.info(
      { event: 'dev.checkout', user_id: s.user_id, event_id: id, status: r.statusCode },
      'simulated checkout',
    );
    return reply.code(r.statusCode).send({ simulated: true, event_id: id, webhook: r.json<unknown>() });
  });
}
