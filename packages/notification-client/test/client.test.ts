// Spec 3 "Caller contract", against the real notification service on 127.0.0.1.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startRecorder } from '@domdao/test-helpers';
import { buildApp } from '@domdao/notification-service';
import { loadNotificationConfig } from '@domdao/notification-service/config';
import { captureLogs } from '@domdao/test-helpers';
import { createNotificationClient, notificationClientFromEnv, type WarnLogger } from '../src/index.ts';

const TOKEN = 'client-test-token-0123456789abcdef';

function memoryLogger() {
  const lines: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  const logger: WarnLogger = { warn: (obj, msg) => lines.push({ obj, msg }) };
  return { logger, lines };
}

const welcome = {
  type: 'welcome' as const,
  to: 'ada@example.com',
  domain: 'domdao.example',
  data: { user_name: 'Ada' },
};

describe('notification client', () => {
  let url: string;
  let app: Awaited<ReturnType<typeof buildApp>>;
  before(async () => {
    app = await buildApp({
      config: loadNotificationConfig({ NODE_ENV: 'test', SERVICE_TOKEN: TOKEN }),
      logStream: captureLogs().stream,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/`;
  });
  after(() => app.close());

  it('sends and surfaces stubbed (stub mode is never a delivery confirmation)', async () => {
    const { logger, lines } = memoryLogger();
    const client = createNotificationClient({ baseUrl: url, token: TOKEN, logger });
    const out = await client.send(welcome);
    assert.equal(out.ok, true);
    assert.ok(out.ok && out.stubbed === true && out.id.startsWith('stub_') && out.requestId.length === 36);
    assert.equal(lines.length, 0);
  });

  it('propagates X-Request-Id and Idempotency-Key', async () => {
    const client = createNotificationClient({ baseUrl: url, token: TOKEN, logger: memoryLogger().logger });
    const requestId = '7d9f1a52-3c4b-4e8d-9a1f-2b3c4d5e6f99';
    const a = await client.send(welcome, { requestId, idempotencyKey: 'client-idem-1' });
    const b = await client.send(welcome, { idempotencyKey: 'client-idem-1' });
    assert.ok(a.ok && b.ok);
    assert.equal(a.ok && a.requestId, requestId);
    assert.equal(a.ok && b.ok && a.id === b.id, true);
  });

  it('rule 1: a rejected request resolves with reason rejected, details, and one warning; it never throws', async () => {
    const { logger, lines } = memoryLogger();
    const client = createNotificationClient({ baseUrl: url, token: TOKEN, logger });
    const out = await client.send({ ...welcome, data: {} as never });
    assert.equal(out.ok, false);
    assert.ok(!out.ok && out.reason === 'rejected' && out.status === 400 && out.error === 'invalid_template_data');
    assert.ok(!out.ok && out.details?.[0]?.field === 'data.user_name');
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.obj.event, 'notification.send_failed');
    assert.ok(!JSON.stringify(lines).includes('ada@example.com'), 'recipient addresses are not logged');
  });

  it('a wrong token is rejected (401) and the token is not logged', async () => {
    const { logger, lines } = memoryLogger();
    const out = await createNotificationClient({ baseUrl: url, token: 'wrong-token-wrong-token-000', logger }).send(
      welcome,
    );
    assert.ok(!out.ok && out.status === 401 && out.error === 'unauthorized');
    assert.ok(!JSON.stringify(lines).includes('wrong-token'));
  });

  it('an unreachable service resolves with reason unavailable', async () => {
    const { logger, lines } = memoryLogger();
    const out = await createNotificationClient({ baseUrl: 'http://127.0.0.1:9', token: TOKEN, logger }).send(welcome);
    assert.ok(!out.ok && out.reason === 'unavailable' && out.error === 'network_error');
    assert.equal(lines.length, 1);
  });

  it('a service that does not answer in time resolves with reason unavailable (timeout)', async () => {
    const slow = await startRecorder(() => ({ status: 200, body: { id: 'x' }, delayMs: 1000 }));
    const out = await createNotificationClient({
      baseUrl: slow.url,
      token: TOKEN,
      logger: memoryLogger().logger,
      timeoutMs: 200,
    }).send(welcome);
    assert.ok(!out.ok && out.reason === 'unavailable' && out.error === 'timeout');
    await slow.close();
  });

  it('a 503 (service fail-closed) or a non-JSON gateway page is unavailable', async () => {
    const gateway = await startRecorder(() => ({ status: 502, body: '<html>bad gateway</html>' }));
    const out = await createNotificationClient({
      baseUrl: gateway.url,
      token: TOKEN,
      logger: memoryLogger().logger,
    }).send(welcome);
    assert.ok(!out.ok && out.reason === 'unavailable' && out.status === 502);
    await gateway.close();
  });

  it('rule 2: without URL or token it is a no-op that warns on every call', async () => {
    for (const env of [{}, { NOTIFICATION_SERVICE_URL: url }, { NOTIFICATION_SERVICE_TOKEN: TOKEN }]) {
      const { logger, lines } = memoryLogger();
      const client = notificationClientFromEnv(logger, env);
      assert.equal(client.configured, false);
      assert.deepEqual(await client.send(welcome), { ok: false, reason: 'not_configured' });
      await client.send(welcome);
      assert.equal(lines.length, 2);
      assert.equal(lines[0]!.obj.event, 'notification.not_configured');
    }
  });

  it('reads NOTIFICATION_SERVICE_URL (trailing slash tolerated) and NOTIFICATION_SERVICE_TOKEN', async () => {
    const client = notificationClientFromEnv(memoryLogger().logger, {
      NOTIFICATION_SERVICE_URL: url,
      NOTIFICATION_SERVICE_TOKEN: TOKEN,
    });
    assert.equal(client.configured, true);
    assert.equal((await client.send(welcome)).ok, true);
  });
});
