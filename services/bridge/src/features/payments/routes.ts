// Spec 2 upgrade to Active, the payment side: KYC approval (admin endpoint, decision B12), the
// card-processor payment webhook (POST /api/webhooks/payments, decision B11, webhook.ts), the escrow
// list for admins, and the user canister operations they go through (operations.ts, decision B27).
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { signedIn, type Guards } from '../../core/auth/guards.ts';
import type { PaymentsContext } from './context.ts';
import { HttpError } from '../../core/http/errors.ts';
import { USER_ID_PATTERN as UUID } from '../../core/identity/user-id.ts';
import { userAggregate } from '../../core/outbox/user-operations.ts';
import { OP_RECORD_KYC, registerPaymentOperations } from './operations.ts';
import checkout from './checkout.ts';
import paymentWebhook from './webhook.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import { recordKycDecisionDoc, listPaymentsDoc } from './route-docs.ts';

export interface PaymentsOptions {
  ctx: PaymentsContext;
  guards: Pick<Guards, 'admin' | 'requireMember'>;
}

const PaymentsQuery = Type.Object(
  {
    status: Type.Optional(
      Type.Union([Type.Literal('pending'), Type.Literal('escrow'), Type.Literal('applied')], {
        description: 'only payments in this state',
      }),
    ),
  },
  { additionalProperties: false },
);

export default async function payments(app: BridgeApp, { ctx, guards }: PaymentsOptions): Promise<void> {
  registerPaymentOperations(ctx);
  // Admin only: one guard for the scope (decision S2).
  await app.register(async (scope: BridgeApp) => {
    scope.addHook('preHandler', guards.admin);
    scope.post(
      '/api/admin/users/:user_id/kyc',
      {
        schema: {
          ...routeSchema(recordKycDecisionDoc),
          params: Type.Object({ user_id: Type.String({ pattern: UUID }) }),
          body: Type.Object({
            approved: Type.Boolean(),
            reference: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          }),
        },
      },
      async (req, reply) => {
        const admin = signedIn(req);
        const { user_id } = req.params;
        const { approved, reference } = req.body;
        const u = await ctx.db.selectFrom('users').select(['principal']).where('id', '=', user_id).executeTakeFirst();
        if (!u) throw new HttpError(404, 'NOT_FOUND', 'no such user');
        const ref = reference ?? `admin:${admin.user_id}:${new Date(ctx.now()).toISOString()}`;
        // Decision B27: the decision and its operation commit together; the canister hears it after the
        // commit, in order with the user's other operations, and the bridge records it once it has.
        const opId = `kyc:${randomUUID()}`;
        await ctx.db.transaction().execute((tx) =>
          ctx.outbox.enqueue(tx, {
            operation: OP_RECORD_KYC,
            opId,
            aggregate: userAggregate(user_id),
            payload: { user_id, principal: u.principal, approved, reference: ref },
          }),
        );
        const out = await ctx.outbox.run<{ Ok: null } | { Err: Record<string, unknown> }>(opId);
        // Decision B61: the admin's decision is audited whether the canister has it yet or refused it.
        const refused = out.state === 'done' && 'Err' in out.result ? Object.keys(out.result.Err)[0] : undefined;
        await ctx.audit.record(req, {
          event: approved ? 'kyc.approved' : 'kyc.rejected',
          actor: admin.user_id,
          subject: user_id,
          outcome: refused === undefined ? 'success' : 'failure',
          detail: { state: out.state === 'done' ? 'recorded' : 'pending', ...(refused !== undefined && { refused }) },
        });
        if (out.state !== 'done') {
          return reply.code(202).send({
            user_id,
            kyc_status: 'pending',
            message: 'the decision is saved and reaches the user canister as soon as it answers',
          });
        }
        if ('Err' in out.result)
          throw new HttpError(409, 'KYC_NOT_RECORDED', `the user canister refused: ${Object.keys(out.result.Err)[0]}`);
        return { user_id, kyc_status: approved ? 'approved' : 'rejected' };
      },
    );

    // Decision S28: the filter typed by the route's schema; one the list does not know is 400, no longer ignored.
    scope.get(
      '/api/admin/payments',
      { schema: { ...routeSchema(listPaymentsDoc), querystring: PaymentsQuery } },
      async (req) => {
        const { status } = req.query;
        let q = ctx.db.selectFrom('payments').selectAll().orderBy('id', 'desc').limit(100);
        if (status !== undefined) q = q.where('status', '=', status);
        const rows = await q.execute();
        // bigint columns come back as strings from pg and as numbers from PGlite: answer strings either way.
        return {
          payments: rows.map((p) => ({
            ...p,
            id: String(p.id),
            amount_minor: String(p.amount_minor),
            created_at: new Date(p.created_at).toISOString(),
          })),
        };
      },
    );
  });

  await app.register(paymentWebhook, { ctx });
  await app.register(checkout, { ctx, guards });
}
