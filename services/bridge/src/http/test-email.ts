// POST /test-email (spec 2): `Authorization: Bearer <ACCESS_TOKEN>`, JSON { email }; sends the
// welcome template through the notification service and reports what it answered (decision B13).
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { BridgeContext } from '../context.ts';
import { HttpError } from './errors.ts';
import { isEmail } from '../registration/rules.ts';

function bearerMatches(header: unknown, token: string): boolean {
  if (typeof header !== 'string' || !header.startsWith('Bearer ')) return false;
  const given = Buffer.alloc(512);
  const want = Buffer.alloc(512);
  given.write(header.slice(7), 'utf8');
  want.write(token, 'utf8');
  return timingSafeEqual(given, want) && header.length - 7 === Buffer.byteLength(token);
}

export function testEmailRoutes(app: FastifyInstance, ctx: BridgeContext): void {
  app.post('/test-email', { schema: { body: Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }) }) } }, async (req) => {
    const token = ctx.config.ACCESS_TOKEN;
    if (!token) throw new HttpError(503, 'NOT_CONFIGURED', 'ACCESS_TOKEN is not set');
    if (!bearerMatches(req.headers.authorization, token)) throw new HttpError(401, 'UNAUTHORIZED', 'a valid bearer token is required', { 'www-authenticate': 'Bearer' });
    const { email } = req.body as { email: string };
    if (!isEmail(email.trim())) throw new HttpError(400, 'VALIDATION_ERROR', 'email is not a valid email address');
    const r = await ctx.notifier.send({ type: 'welcome', to: email.trim(), domain: ctx.config.EMAIL_BRAND_DOMAIN, data: { user_name: 'DOM DAO test' } }, { requestId: req.id });
    if (!r.ok) throw new HttpError(502, 'EMAIL_NOT_SENT', `the notification service did not send it (${r.reason}${r.error ? `: ${r.error}` : ''})`);
    return { sent: true, id: r.id, stubbed: r.stubbed };
  });
}
