// POST /test-email (spec 2): `Authorization: Bearer <ACCESS_TOKEN>`, JSON { email }; sends the
// welcome template through the notification service and reports what it answered (decision B13).
import { TokenRegistry } from '@domdao/service-kit';
import { Type } from '@sinclair/typebox';
import type { NotificationClient } from '@domdao/notification-client';
import type { BridgeConfig } from '../../config.ts';
import { HttpError } from '../../core/http/errors.ts';
import { isEmail } from '../../core/identity/email.ts';
import type { BridgeApp } from '../../core/http/typed.ts';
import { routeSchema } from '../../core/http/route-doc.ts';
import { sendTestEmailDoc } from './route-docs.ts';

export interface TestEmailOptions {
  /** ACCESS_TOKEN: the bearer token the endpoint takes; unset, it answers 503. */
  accessToken: BridgeConfig['ACCESS_TOKEN'];
  brandDomain: BridgeConfig['EMAIL_BRAND_DOMAIN'];
  notifier: NotificationClient;
}

export default async function testEmail(
  app: BridgeApp,
  { accessToken, brandDomain, notifier }: TestEmailOptions,
): Promise<void> {
  const tokens = new TokenRegistry('bridge', accessToken, []);
  app.post(
    '/test-email',
    {
      schema: {
        ...routeSchema(sendTestEmailDoc),
        body: Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }) }),
      },
    },
    async (req) => {
      if (!tokens.configured) throw new HttpError(503, 'NOT_CONFIGURED', 'ACCESS_TOKEN is not set');
      if (!tokens.check(req.headers.authorization).ok)
        throw new HttpError(401, 'UNAUTHORIZED', 'a valid bearer token is required', { 'www-authenticate': 'Bearer' });
      const { email } = req.body;
      if (!isEmail(email.trim())) throw new HttpError(400, 'VALIDATION_ERROR', 'email is not a valid email address');
      const r = await notifier.send(
        { type: 'welcome', to: email.trim(), domain: brandDomain, data: { user_name: 'DOM DAO test' } },
        { requestId: req.id },
      );
      if (!r.ok)
        throw new HttpError(
          502,
          'EMAIL_NOT_SENT',
          `the notification service did not send it (${r.reason}${r.error ? `: ${r.error}` : ''})`,
        );
      return { sent: true, id: r.id, stubbed: r.stubbed };
    },
  );
}
