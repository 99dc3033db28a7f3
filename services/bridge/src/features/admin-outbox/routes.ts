// GET /api/admin/outbox (decision B29): the cross-system operations of the outbox (decisions B20–B23),
// newest first, for the admin who follows up on what is still pending or was compensated. Payloads
// are never shown (they hold password hashes and tokens); the state, attempts and last error are.
import { Type } from '@sinclair/typebox';
import type { Guards } from '../../core/auth/guards.ts';
import type { Outbox } from '../../core/outbox/queue.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import { listOutboxDoc } from './route-docs.ts';

export interface AdminOutboxOptions {
  outbox: Pick<Outbox, 'list'>;
  guards: Pick<Guards, 'admin'>;
}

const Query = Type.Object(
  {
    state: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('done'), Type.Literal('compensated')])),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  },
  { additionalProperties: false },
);

export default async function adminOutbox(app: BridgeApp, { outbox, guards }: AdminOutboxOptions): Promise<void> {
  app.addHook('preHandler', guards.admin);
  app.get('/api/admin/outbox', { schema: { ...routeSchema(listOutboxDoc), querystring: Query } }, async (req) => {
    const { state, limit = 100 } = req.query;
    const rows = await outbox.list({ ...(state && { state }), newestFirst: true, limit });
    const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
    return {
      operations: rows.map((r) => ({
        ...r,
        next_attempt_at: iso(r.next_attempt_at),
        created_at: iso(r.created_at),
        updated_at: iso(r.updated_at),
      })),
    };
  });
}
