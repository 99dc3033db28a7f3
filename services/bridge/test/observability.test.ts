// The operator's view across gateway → bridge → notification (decisions D50, E16, B69, B70, B72, B73):
// one request followed by its trace id, the metrics scraped from their own listeners, readiness, and
// the dashboard and alert rules checked against what the running services export.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp as buildNotification } from '@domdao/notification-service';
import { loadNotificationConfig } from '@domdao/notification-service/config';
import { createNotificationClient } from '@domdao/notification-client';
import { serveMetrics, type MetricsListener } from '@domdao/service-kit';
import { captureLogs } from '@domdao/test-helpers';
import type { FastifyInstance } from 'fastify';
import { buildGateway } from '@domdao/gateway';
import { loadGatewayConfig } from '@domdao/gateway/config';
import { openBridge } from '../src/compose/open-bridge.ts';
import { loadBridgeConfig } from '../src/config.ts';
import { seedEmbeddedDatabase } from './embedded-template.ts';

const root = new URL('../../..', import.meta.url).pathname;
const TOKEN = 'observability-test-token-0123';
const ACCESS = 'observability-access-token-0123';
const METRICS_TOKEN = 'observability-metrics-token-0123';

describe('observability across the three services', () => {
  const logs = { gateway: captureLogs(), bridge: captureLogs(), notification: captureLogs() };
  let notification: FastifyInstance;
  let bridge: FastifyInstance;
  let gateway: FastifyInstance;
  const scrapes: Record<string, MetricsListener> = {};
  let dir: string;
  let home: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'domdao-observability-'));
    notification = await buildNotification({
      config: loadNotificationConfig({ NODE_ENV: 'test', SERVICE_TOKEN: TOKEN, LOG_LEVEL: 'info' }),
      logStream: logs.notification.stream,
    });
    await notification.listen({ port: 0, host: '127.0.0.1' });
    const notificationUrl = `http://127.0.0.1:${(notification.server.address() as AddressInfo).port}`;
    const env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATA_DIR: dir,
      PUBLIC_URL: 'http://127.0.0.1',
      ACCESS_TOKEN: ACCESS,
      LOGIN_MAX_FAILURES: '3',
    };
    await seedEmbeddedDatabase(join(dir, 'pglite'));
    const notifier = createNotificationClient({
      baseUrl: notificationUrl,
      token: TOKEN,
      logger: { warn: () => undefined },
    });
    bridge = (
      await openBridge(loadBridgeConfig(env), env, {
        scheduler: false,
        logStream: logs.bridge.stream,
        notifier,
        jobTimer: false,
      })
    ).app;
    await bridge.listen({ port: 0, host: '127.0.0.1' });
    const bridgeUrl = `http://127.0.0.1:${(bridge.server.address() as AddressInfo).port}`;
    gateway = await buildGateway({
      config: loadGatewayConfig({
        LOG_LEVEL: 'info',
        BRIDGE_URL: bridgeUrl,
        NOTIFICATION_URL: notificationUrl,
        NOTIFICATION_SERVICE_TOKEN: TOKEN,
      }),
      logStream: logs.gateway.stream,
    });
    await gateway.listen({ port: 0, host: '127.0.0.1' });
    home = `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`;
    for (const [name, app] of [
      ['gateway', gateway],
      ['bridge', bridge],
      ['notification', notification],
    ] as const)
      scrapes[name] = await serveMetrics({
        metrics: app.metrics,
        host: '127.0.0.1',
        port: 0,
        ...(name === 'bridge' && { token: METRICS_TOKEN }),
      });
  });
  after(async () => {
    for (const s of Object.values(scrapes)) await s.close();
    await gateway?.close();
    await bridge?.close();
    await notification?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const scrape = async (name: string) => {
    const res = await fetch(
      scrapes[name]!.url,
      name === 'bridge' ? { headers: { authorization: `Bearer ${METRICS_TOKEN}` } } : {},
    );
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return res.text();
  };
  const sendTestEmail = (headers: Record<string, string> = {}) =>
    fetch(`${home}/test-email`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ACCESS}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ email: 'ada@example.org' }),
    });

  it('decision E16: one request is followed through gateway, bridge and notification by the trace id its traceparent gave', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await sendTestEmail({ traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
    assert.equal(res.status, 200, await res.clone().text());
    const requestId = res.headers.get('x-request-id')!;
    for (const [service, captured] of Object.entries(logs)) {
      const lines = captured.lines().filter((l) => l.request_id === requestId);
      assert.ok(lines.length > 0, `${service} logged the request`);
      for (const l of lines) assert.equal(l.trace_id, traceId, `${service}: ${JSON.stringify(l)}`);
      assert.ok(
        lines.some((l) => l.event === 'request.completed'),
        `${service} wrote its access line`,
      );
    }
    assert.ok(logs.notification.lines().some((l) => l.event === 'email.stub_send' && l.trace_id === traceId));
  });

  it('decision E16: without a traceparent (or with a malformed one) the gateway starts a trace the services continue', async () => {
    for (const header of [undefined, '00-00000000000000000000000000000000-00f067aa0ba902b7-01', 'garbage']) {
      const res = await sendTestEmail(header === undefined ? {} : { traceparent: header });
      assert.equal(res.status, 200);
      const requestId = res.headers.get('x-request-id')!;
      const ids = new Set(
        Object.values(logs)
          .flatMap((c) => c.lines())
          .filter((l) => l.request_id === requestId)
          .map((l) => l.trace_id),
      );
      assert.equal(ids.size, 1, JSON.stringify([...ids]));
      assert.match(String([...ids][0]), /^[0-9a-f]{32}$/);
      assert.notEqual([...ids][0], '0'.repeat(32));
    }
  });

  it('decision D50: the access line has method, route template, status, ms, bytes and the address class; health checks that pass leave none', async () => {
    const res = await fetch(`${home}/api/no/such/route?token=secret`);
    assert.equal(res.status, 404);
    const id = res.headers.get('x-request-id')!;
    const line = logs.bridge.lines().find((l) => l.request_id === id && l.event === 'request.completed')!;
    assert.equal(line.method, 'GET');
    assert.equal(line.route, '(unmatched)');
    assert.equal(line.status, 404);
    assert.equal(typeof line.ms, 'number');
    assert.equal(typeof line.bytes, 'number');
    assert.equal(line.source_ip_class, 'loopback');
    assert.ok(!JSON.stringify(line).includes('secret'), 'no path or query in the line');
    const health = await fetch(`${home}/health`);
    const hid = health.headers.get('x-request-id')!;
    assert.equal(logs.bridge.lines().filter((l) => l.request_id === hid && l.event === 'request.completed').length, 0);
  });

  it('decisions B69, B70: metrics are on their own listener (token-protected where set), never on the public origin', async () => {
    assert.equal((await fetch(`${home}/metrics`)).status, 404, 'the public origin has no /metrics');
    const noToken = await fetch(scrapes.bridge!.url);
    assert.equal(noToken.status, 401);
    await noToken.body?.cancel();
    const wrong = await fetch(scrapes.bridge!.url, { headers: { authorization: `Bearer ${METRICS_TOKEN}x` } });
    assert.equal(wrong.status, 401);
    await wrong.body?.cancel();
    const other = await fetch(scrapes.gateway!.url.replace('/metrics', '/other'));
    assert.equal(other.status, 404);
    await other.body?.cancel();
    const text = await scrape('bridge');
    assert.match(
      text,
      /^http_requests_total\{service="bridge",method="POST",route="\/test-email",status="200"\} \d+$/m,
    );
    assert.match(
      await scrape('notification'),
      /^notification_sends_total\{template="welcome",result="stubbed"\} \d+$/m,
    );
    assert.match(
      await scrape('gateway'),
      /^http_requests_total\{service="gateway",method="POST",route="\/\*",status="200"\} \d+$/m,
    );
    assert.match(text, /^process_resident_memory_bytes \d+/m);
  });

  it('decision B69: sign-in failures are counted up to LOGIN_MAX_FAILURES, and the attempt one past is a lockout', async () => {
    const value = async (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(await scrape('bridge'))?.[1]);
    const before = {
      failed: await value('bridge_sign_in_failures_total'),
      locked: await value('bridge_sign_in_lockouts_total'),
    };
    const login = () =>
      fetch(`${home}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'nobody@example.org', password: 'wrong' }),
      });
    for (let i = 0; i < 3; i++) assert.equal((await login()).status, 401);
    assert.equal(await value('bridge_sign_in_failures_total'), before.failed + 3);
    assert.equal(await value('bridge_sign_in_lockouts_total'), before.locked);
    assert.equal((await login()).status, 429);
    assert.equal(await value('bridge_sign_in_failures_total'), before.failed + 3);
    assert.equal(await value('bridge_sign_in_lockouts_total'), before.locked + 1);
  });

  it('decision B73: every metric the dashboard and the alert rules use is exported, and promtool accepts the rules', async () => {
    const exported = new Set<string>();
    for (const name of ['gateway', 'bridge', 'notification'])
      for (const m of (await scrape(name)).matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
        exported.add(m[1]!);
        if (m[2] === 'histogram') for (const s of ['_bucket', '_sum', '_count']) exported.add(m[1]! + s);
      }
    const rules = readFileSync(join(root, 'deploy/prometheus/alerts.yml'), 'utf8');
    const dashboard = JSON.parse(readFileSync(join(root, 'deploy/grafana/dashboard.json'), 'utf8')) as {
      panels: Array<{ targets: Array<{ expr: string }> }>;
    };
    const exprs = [...rules.matchAll(/^\s+expr: (.+)$/gm)]
      .map((m) => m[1]!)
      .concat(dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)));
    const used = new Set(
      exprs.flatMap((e) =>
        [...e.matchAll(/\b((?:http|bridge|notification|gateway|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1]!),
      ),
    );
    assert.ok(used.size >= 20, [...used].join(' '));
    for (const name of used) assert.ok(exported.has(name), `${name} is used but not exported`);
    const promtool = spawnSync('promtool', ['check', 'rules', join(root, 'deploy/prometheus/alerts.yml')], {
      encoding: 'utf8',
    });
    assert.equal(promtool.status, 0, promtool.stdout + promtool.stderr);
  });

  it('decision B117: promtool check metrics accepts a real scrape of each service (no gauge named like a counter)', async () => {
    for (const name of ['gateway', 'bridge', 'notification']) {
      const text = await scrape(name);
      assert.match(text, /^nodejs_active_handles\{type="[^"]+"\} \d+$/m, `${name}: the handles by type stay`);
      const lint = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      assert.equal(lint.status, 0, `${name}: ${lint.stdout}${lint.stderr}`);
      assert.equal(`${lint.stdout}${lint.stderr}`.trim(), '', name);
    }
  });

  it('decision B72: /health/ready lists what is down (503), while spec 2 /health stays 200 {"status":"ok"}', async () => {
    const ready = await fetch(`${home}/health/ready`);
    const body = (await ready.json()) as { status: string; checks: Record<string, string>; down: string[] };
    assert.equal(ready.status, 200, JSON.stringify(body));
    assert.deepEqual(body.checks, { database: 'up', canisters: 'up', notification: 'up' });
    assert.equal((await fetch(`${home}/gateway/health/ready`)).status, 200);
    await notification.close();
    const down = await fetch(`${home}/health/ready`);
    assert.equal(down.status, 503);
    const downBody = (await down.json()) as { status: string; down: string[] };
    assert.deepEqual([downBody.status, downBody.down], ['unavailable', ['notification']]);
    const gw = await fetch(`${home}/gateway/health/ready`);
    assert.equal(gw.status, 503);
    assert.deepEqual(((await gw.json()) as { down: string[] }).down, ['notification']);
    const health = await fetch(`${home}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
  });
});
