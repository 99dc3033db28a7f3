// Spec 2 upgrade to Active: KYC approval (admin endpoint, decision B12), the card-processor payment
// webhook (POST /api/webhooks/payments, decision B11) and the escrow list for admins.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { BridgeContext } from '../context.ts';
import { HttpError } from '../http/errors.ts';
import { requireAdmin } from '../roles/routes.ts';
import { verifySignature } from './webhook.ts';
import { isUniqueViolation, USER_ID_PATTERN as UUID } from '../db/errors.ts';

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
  if (!o || typeof o.id !== 'string' || o.id.length === 0 || o.id.length > 128) return 'data.object.id must be the payment id';
  if (!Number.isSafeInteger(o.amount) || o.amount < 1) return 'data.object.amount must be a positive integer in minor units';
  if (typeof o.currency !== 'string' || !/^[a-zA-Z]{3}$/.test(o.currency)) return 'data.object.currency must be an ISO 4217 code';
  if (typeof o.metadata?.user_id !== 'string' || !new RegExp(UUID).test(o.metadata.user_id)) return 'data.object.metadata.user_id must be the bridge user id';
  return ev as PaymentEvent;
}

export function membershipRoutes(app: FastifyInstance, ctx: BridgeContext): void {
  app.post(
    '/api/admin/users/:user_id/kyc',
    { schema: { params: Type.Object({ user_id: Type.String({ pattern: UUID }) }), body: Type.Object({ approved: Type.Boolean(), reference: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }) } },
    async (req) => {
      const admin = await requireAdmin(ctx, req);
      const { user_id } = req.params as { user_id: string };
      const { approved, reference } = req.body as { approved: boolean; reference?: string };
      const u = await ctx.db.selectFrom('users').select(['principal']).where('id', '=', user_id).executeTakeFirst();
      if (!u) throw new HttpError(404, 'NOT_FOUND', 'no such user');
      const r = await ctx.canisters.user.record_kyc(u.principal, approved);
      if ('Err' in r) throw new HttpError(409, 'KYC_NOT_RECORDED', `the user canister refused: ${Object.keys(r.Err)[0]}`);
      const ref = reference ?? `admin:${admin.user_id}:${new Date(ctx.now()).toISOString()}`;
      await ctx.db.updateTable('users').set({ kyc_status: approved ? 'approved' : 'rejected', kyc_reference: ref }).where('id', '=', user_id).execute();
      return { user_id, kyc_status: approved ? 'approved' : 'rejected' };
    },
  );

  app.get('/api/admin/payments', async (req) => {
    await requireAdmin(ctx, req);
    const status = (req.query as { status?: string }).status;
    let q = ctx.db.selectFrom('payments').selectAll().orderBy('id', 'desc').limit(100);
    if (status === 'escrow' || status === 'applied') q = q.where('status', '=', status);
    const rows = await q.execute();
    // bigint columns come back as strings from pg and as numbers from PGlite: answer strings either way.
    return { payments: rows.map((p) => ({ ...p, id: String(p.id), amount_minor: String(p.amount_minor), created_at: new Date(p.created_at).toISOString() })) };
  });

  /** Spec 2 admin notifications (`membership_mint_failed`) raised by the user canister after 10 failed mints. */
  app.get('/api/admin/notifications', async (req) => {
    await requireAdmin(ctx, req);
    const after = (req.query as { after_id?: string }).after_id;
    const afterId = after !== undefined && /^\d{1,19}$/.test(after) ? BigInt(after) : undefined;
    const list = await ctx.canisters.user.list_admin_notifications(afterId, 100);
    const users = await Promise.all(list.map((n) => ctx.db.selectFrom('users').select('id').where('principal', '=', n.user_principal).executeTakeFirst()));
    return {
      notifications: list.map((n, i) => ({
        id: String(n.id),
        type: n.type,
        user_principal: n.user_principal,
        user_id: users[i]?.id ?? null,
        email_encrypted: n.email_encrypted,
        attempts: n.attempts,
        last_error: n.last_error,
        at: new Date(Number(n.at / 1_000_000n)).toISOString(),
      })),
    };
  });

  // Raw body for the signature: this scope parses JSON itself, after verifying.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 * 1024 }, (_req, body, done) => done(null, body));
    scope.post('/api/webhooks/payments', async (req, reply) => {
      const secret = ctx.config.PAYMENT_WEBHOOK_SECRET;
      if (!secret) throw new HttpError(503, 'WEBHOOK_NOT_CONFIGURED', 'PAYMENT_WEBHOOK_SECRET is not set');
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const header = req.headers['payment-signature'];
      const problem = verifySignature(typeof header === 'string' ? header : undefined, raw, secret, Math.floor(ctx.now() / 1000), ctx.config.PAYMENT_WEBHOOK_TOLERANCE_SECONDS);
      if (problem) {
        req.log.warn({ event: 'webhook.signature_rejected', reason: problem }, 'payment webhook signature rejected');
        throw new HttpError(400, 'SIGNATURE_INVALID', `webhook signature ${problem}`);
      }
      const ev = parseEvent(raw);
      if (typeof ev === 'string') throw new HttpError(400, 'VALIDATION_ERROR', ev);
      if ('unhandled' in ev) {
        await ctx.db.insertInto('webhook_events').values({ event_id: ev.id, type: ev.type, outcome: 'ignored' }).onConflict((oc) => oc.doNothing()).execute();
        return reply.send({ received: true, handled: false });
      }
      let outcome: { status: 'applied' | 'escrow'; reason?: string; user?: { principal: string; email_encrypted: string; name_encrypted: string } };
      try {
        outcome = await ctx.db.transaction().execute(async (tx) => {
          // The event id is claimed first, in the same transaction as its effects: a replay waits, then finds it.
          await tx.insertInto('webhook_events').values({ event_id: ev.id, type: ev.type, outcome: 'processing' }).execute();
          const o = ev.data.object;
          const user = await tx.selectFrom('users').select(['id', 'principal', 'is_minor', 'email_verified_at', 'kyc_status', 'kyc_reference', 'email_encrypted', 'name_encrypted']).where('id', '=', o.metadata.user_id).executeTakeFirst();
          let status: 'applied' | 'escrow' = 'escrow';
          let reason: string | undefined;
          // One intent, one upgrade (B19): another event of a recorded intent is a duplicate.
          if (await tx.selectFrom('payments').select('id').where('payment_id', '=', o.id).executeTakeFirst()) throw Object.assign(new Error('duplicate payment intent'), { code: '23505' });
          const price = { amount: ctx.config.MEMBERSHIP_PRICE_MINOR, currency: ctx.config.MEMBERSHIP_PRICE_CURRENCY };
          const active = user ? await ctx.canisters.membership.get_membership_status(user.principal).catch(() => undefined) : undefined;
          if (o.currency.toUpperCase() !== price.currency || o.amount !== price.amount) reason = `price mismatch: paid ${o.amount} ${o.currency.toUpperCase()}, the membership costs ${price.amount} ${price.currency}`;
          else if (!user) reason = 'unknown user';
          else if (active?.status === 'Active') reason = 'already Active: a renewal is reviewed by an admin';
          else if (!user.email_verified_at) reason = 'not Registered: email not verified';
          else if (user.is_minor) reason = 'under 18';
          else if (user.kyc_status !== 'approved') reason = 'KYC not approved';
          else {
            try {
              const r = await ctx.canisters.user.upgrade_membership_to_active({
                principal: user.principal,
                kyc_proof: new TextEncoder().encode(user.kyc_reference ?? 'approved'),
                payment_proof: new TextEncoder().encode(`${ev.id}:${o.id}:${o.amount}:${o.currency}`),
              });
              if ('Ok' in r) status = 'applied';
              else reason = `upgrade refused: ${Object.entries(r.Err).map(([k, v]) => (v === null ? k : `${k}: ${String(v)}`))[0]}`;
            } catch (e) {
              reason = `upgrade failed: ${e instanceof Error ? e.message : String(e)}`;
            }
          }
          await tx
            .insertInto('payments')
            .values({ event_id: ev.id, user_id: user?.id ?? null, payment_id: o.id, amount_minor: String(o.amount), currency: o.currency.toUpperCase(), status, reason: reason ?? null })
            .execute();
          await tx.updateTable('webhook_events').set({ outcome: status }).where('event_id', '=', ev.id).execute();
          return { status, ...(reason !== undefined && { reason }), ...(user && { user }) };
        });
      } catch (e) {
        if (isUniqueViolation(e)) return reply.send({ received: true, duplicate: true });
        throw e;
      }
      req.log.info({ event: 'payment.processed', event_id: ev.id, status: outcome.status, reason: outcome.reason }, 'payment webhook processed');
      if (outcome.status === 'applied' && outcome.user) await confirm(ctx, outcome.user, ev, req.id);
      return reply.send({ received: true, status: outcome.status, ...(outcome.reason !== undefined && { reason: outcome.reason }) });
    });
  });
}

/** membership-confirm and payment-receipt (spec 2): failures are logged by the client, never undo the upgrade. */
async function confirm(ctx: BridgeContext, user: { principal: string; email_encrypted: string; name_encrypted: string }, ev: PaymentEvent, requestId: string): Promise<void> {
  const [email, name] = await Promise.all([ctx.opener.open('email', user.email_encrypted), ctx.opener.open('name', user.name_encrypted)]).catch(() => ['', '']);
  if (!email) return;
  const status = await ctx.canisters.membership.get_membership_status(user.principal).catch(() => undefined);
  const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const now = iso(BigInt(ctx.now()) * 1_000_000n);
  const domain = ctx.config.EMAIL_BRAND_DOMAIN;
  const o = ev.data.object;
  if (status && status.expiration_date > 0n) {
    await ctx.notifier.send(
      { type: 'membership-confirm', to: email, domain, data: { member_name: name, activated_at: now, expires_at: iso(status.expiration_date), membership_tier: 'Active', sbt_token_id: String(status.token_id) } },
      { idempotencyKey: `membership-confirm:${ev.id}`, requestId },
    );
  }
  const amount = (o.amount / 100).toFixed(2);
  await ctx.notifier.send(
    { type: 'payment-receipt', to: email, domain, data: { payment_id: o.id, amount_display: amount, currency: o.currency.toUpperCase(), type_label: 'Annual membership', user_name: name, payment_date: now } },
    { idempotencyKey: `payment-receipt:${ev.id}`, requestId },
  );
}
