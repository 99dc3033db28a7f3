// test-lane: browser (decision R17: one Chromium file at a time)
// The platform gateway of `npm start` (decisions E1–E9): the shared routing cases through it, then what only
// the Node gateway shows — memory while a 25 MiB attachment streams through it, upstream failures,
// limits, fail-closed /notify, the headers a service receives, and its configuration checks.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { ConfigError } from '@domdao/config';
import { captureLogs, freePort } from '@domdao/test-helpers';
import { sendWholeBody } from '@domdao/test-helpers/whole-body';
import { buildGateway } from '../src/app.ts';
import { loadGatewayConfig } from '../src/config.ts';
import { curlPost } from './clients.ts';
import { bigSend, edgeCases, type EdgeTarget } from './edge-cases.ts';
import { root, SERVICE_TOKEN, startPlatform, type Platform } from './harness.ts';

/** The gateway alone as its own process (its memory is its own), ready when /gateway/health answers. */
async function spawnGateway(env: Record<string, string>) {
  const port = await freePort();
  const gw = spawn(process.execPath, ['--import', 'tsx', 'services/gateway/src/main.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      NOTIFICATION_SERVICE_TOKEN: SERVICE_TOKEN,
      ...env,
    },
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const up = await request(`${base}/gateway/health`).then(
      (r) => r.body.text().then(() => r.statusCode),
      () => 0,
    );
    if (up === 200) break;
    if (i >= 300) {
      gw.kill('SIGKILL');
      throw new Error('the gateway did not come up in 30 s');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const kib = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${gw.pid}/status`, 'utf8'))![1]);
  return {
    base,
    /** Resets the peak resident set size (Linux clear_refs 5) and returns the current one, in bytes. */
    resetPeak: () => {
      writeFileSync(`/proc/${gw.pid}/clear_refs`, '5');
      return kib('VmRSS') * 1024;
    },
    peak: () => kib('VmHWM') * 1024,
    stop: () => gw.kill('SIGTERM'),
  };
}

describe('the gateway of npm start', () => {
  let platform: Platform;
  let target: EdgeTarget;
  const dispatcher = new Agent();
  before(async () => {
    platform = await startPlatform((p) => ({
      FRONTEND_ORIGINS: `http://app.domdao.test:${p.gateway},http://gov.domdao.test:${p.gateway}`,
    }));
    const port = platform.gatewayPort;
    target = {
      base: `http://127.0.0.1:${port}`,
      dispatcher,
      platform,
      hosts: { app: `app.domdao.test:${port}`, gov: `gov.domdao.test:${port}` },
      origin: (host) => `http://${host}`,
    };
  });
  after(async () => {
    await dispatcher.close();
    await platform?.stop();
  });

  edgeCases(() => target);

  it('decision E6: a 25 MiB attachment streams through the gateway process without being buffered', async () => {
    const gw = await spawnGateway({
      NOTIFICATION_URL: `http://127.0.0.1:${platform.notificationPort}`,
      BRIDGE_URL: `http://127.0.0.1:${platform.bridgePort}`,
    });
    try {
      const base = gw.base;
      const body = bigSend();
      const send = async (b: Buffer) => {
        const r = await request(`${base}/notify/api/v1/send`, {
          method: 'POST',
          headers: { authorization: `Bearer ${SERVICE_TOKEN}`, 'content-type': 'application/json' },
          body: b,
        });
        return { status: r.statusCode, text: await r.body.text() };
      };
      // V8 frees the chunks that passed through lazily (up to ~45 MiB of garbage before a collection),
      // so the bound is set against several bodies at once: four 25 MiB-attachment sends in flight are
      // 133.6 MiB; holding them would grow the peak past that, streaming stays under half of it.
      const warm = await send(body);
      assert.equal(warm.status, 200, warm.text);
      const before = gw.resetPeak();
      const results = await Promise.all([send(body), send(body), send(body), send(body)]);
      for (const r of results) assert.equal(r.status, 200, r.text);
      const peakGrowth = gw.peak() - before;
      // Buffering would take at least 4 × 33 MiB; 80 MiB leaves room for garbage not yet collected.
      assert.ok(
        peakGrowth < 80 << 20,
        `gateway peak RSS grew ${(peakGrowth / 2 ** 20).toFixed(1)} MiB for 4 × ${(body.length / 2 ** 20).toFixed(1)} MiB`,
      );
      console.log(
        `# gateway peak RSS growth during 4 concurrent ${(body.length / 2 ** 20).toFixed(1)} MiB sends: ${(peakGrowth / 2 ** 20).toFixed(1)} MiB`,
      );
    } finally {
      gw.stop();
    }
  });
});

/** A stand-in upstream that records what it receives. */
async function recorder(): Promise<{
  url: string;
  seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; bytes: number }>;
  server: Server;
}> {
  const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; bytes: number }> = [];
  const server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (d: Buffer) => (bytes += d.length));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, bytes });
      res.setHeader('content-type', 'application/json');
      // What the services' Node servers write on a kept connection (their keepAliveTimeout is 72 s).
      res.setHeader('keep-alive', 'timeout=72');
      res.end(JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

describe('the gateway alone', () => {
  const env = (over: Record<string, string>) =>
    loadGatewayConfig({ LOG_LEVEL: 'silent', NOTIFICATION_SERVICE_TOKEN: SERVICE_TOKEN, ...over });

  it('decision E7: the service receives the stripped path, the request id, X-Forwarded-* and no cookie', async () => {
    const up = await recorder();
    const app = await buildGateway({ config: env({ NOTIFICATION_URL: up.url, BRIDGE_URL: up.url }) });
    try {
      const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
      const r = await app.inject({
        method: 'POST',
        url: '/notify/api/v1/send?x=1',
        headers: {
          authorization: `Bearer ${SERVICE_TOKEN}`,
          'content-type': 'application/json',
          'x-request-id': id,
          'x-forwarded-for': '203.0.113.9',
          cookie: 'theme=dark',
          host: 'gw.domdao.test',
        },
        payload: '{"a":1}',
      });
      assert.equal(r.statusCode, 200);
      assert.equal(r.headers['x-request-id'], id);
      // Decision E21 (RFC 9110 §7.6.1): the service's hop-by-hop Keep-Alive hint is not relayed; the gateway's own
      // connection to the client says its own (Node writes it), or `Connection: close` while closing (R27).
      assert.equal(r.headers['keep-alive'], undefined);
      const seen = up.seen.at(-1)!;
      assert.equal(seen.url, '/api/v1/send?x=1');
      assert.equal(seen.bytes, 7);
      assert.equal(seen.headers['x-request-id'], id);
      assert.equal(seen.headers.cookie, undefined);
      assert.equal(
        seen.headers.authorization,
        `Bearer ${SERVICE_TOKEN}`,
        'the service checks the token again (spec 3 Authentication 1)',
      );
      // TRUST_PROXY=false: the client's own X-Forwarded-For is replaced by the peer address.
      assert.equal(seen.headers['x-forwarded-for'], '127.0.0.1');
      assert.equal(seen.headers['x-forwarded-host'], 'gw.domdao.test');
      assert.equal(seen.headers['x-forwarded-proto'], 'http');
      // POST /register is the bridge's registration; the bridge's paths pass unchanged.
      await app.inject({
        method: 'POST',
        url: '/register',
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      assert.equal(up.seen.at(-1)!.url, '/api/auth/register');
      await app.inject({ method: 'GET', url: '/api/auth/session?a=b' });
      assert.equal(up.seen.at(-1)!.url, '/api/auth/session?a=b');
      const count = up.seen.length;
      const refused = await app.inject({
        method: 'POST',
        url: '/notify/api/v1/send',
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      assert.equal(refused.statusCode, 401);
      assert.equal(up.seen.length, count, 'nothing was forwarded');
    } finally {
      await app.close();
      up.server.close();
    }
  });

  it('decision E6: memory does not grow with the body: 256 MiB stream through with a bounded peak', async () => {
    const up = await recorder();
    const gw = await spawnGateway({ NOTIFICATION_URL: up.url, BRIDGE_URL: up.url, MAX_BODY_BYTES: String(512 << 20) });
    try {
      const send = async (mib: number) => {
        const r = await request(`${gw.base}/notify/api/v1/send`, {
          method: 'POST',
          headers: { authorization: `Bearer ${SERVICE_TOKEN}`, 'content-type': 'application/json' },
          body: Buffer.alloc(mib << 20, 97),
        });
        await r.body.text();
        assert.equal(r.statusCode, 200);
      };
      await send(33);
      const before = gw.resetPeak();
      await send(256);
      const growth = gw.peak() - before;
      assert.equal(up.seen.at(-1)!.bytes, 256 << 20, 'every byte arrived');
      assert.ok(growth < 64 << 20, `peak RSS grew ${(growth / 2 ** 20).toFixed(1)} MiB for 256 MiB`);
      console.log(`# gateway peak RSS growth while 256 MiB streamed through: ${(growth / 2 ** 20).toFixed(1)} MiB`);
    } finally {
      gw.stop();
      up.server.close();
    }
  });

  it("decision E8: a service that is down or too slow gets a clear answer in that service's error shape", async () => {
    const port = await freePort();
    const app = await buildGateway({
      config: env({ NOTIFICATION_URL: `http://127.0.0.1:${port}`, BRIDGE_URL: `http://127.0.0.1:${port}` }),
    });
    const slow = createServer(() => undefined);
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const slowApp = await buildGateway({
      config: env({
        BRIDGE_URL: `http://127.0.0.1:${(slow.address() as AddressInfo).port}`,
        UPSTREAM_TIMEOUT_MS: '1000',
      }),
    });
    try {
      const n = await app.inject({ method: 'GET', url: '/notify/api/v1/health' });
      assert.equal(n.statusCode, 503);
      assert.deepEqual(Object.keys(n.json()).sort(), ['error', 'request_id']);
      assert.equal(n.json().error, 'service_unavailable');
      const b = await app.inject({ method: 'GET', url: '/health' });
      assert.equal(b.statusCode, 503);
      assert.equal(b.json().error, 'UPSTREAM_UNAVAILABLE');
      assert.equal(b.headers['retry-after'], '5');
      const t = await slowApp.inject({ method: 'GET', url: '/health' });
      assert.equal(t.statusCode, 504);
      assert.equal(t.json().error, 'UPSTREAM_TIMEOUT');
      assert.equal(t.json().request_id, t.headers['x-request-id']);
    } finally {
      await app.close();
      await slowApp.close();
      slow.closeAllConnections();
      slow.close();
    }
  });

  it('decision E5: bodies over MAX_BODY_BYTES are refused with 413, declared or streamed', async () => {
    const up = await recorder();
    const app = await buildGateway({
      config: env({ NOTIFICATION_URL: up.url, BRIDGE_URL: up.url, MAX_BODY_BYTES: '2048' }),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    try {
      const declared = await app.inject({
        method: 'POST',
        url: '/notify/api/v1/send',
        headers: { authorization: `Bearer ${SERVICE_TOKEN}`, 'content-type': 'application/json' },
        payload: 'x'.repeat(4096),
      });
      assert.equal(declared.statusCode, 413);
      assert.equal(declared.json().error, 'payload_too_large');
      const bridge = await app.inject({
        method: 'POST',
        url: '/api/auth/register',
        headers: { 'content-type': 'application/json' },
        payload: 'x'.repeat(4096),
      });
      assert.equal(bridge.statusCode, 413);
      assert.equal(bridge.json().error, 'PAYLOAD_TOO_LARGE');
      // Chunked (no Content-Length): counted while it streams.
      async function* chunks() {
        for (let i = 0; i < 8; i++) yield Buffer.alloc(1024, 120);
      }
      const streamed = await request(`${base}/notify/api/v1/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${SERVICE_TOKEN}`, 'content-type': 'application/json' },
        body: Readable.from(chunks()),
      }).then(
        async (r) => ({ status: r.statusCode, text: await r.body.text() }),
        (e: Error) => ({ status: 0, text: e.message }),
      );
      assert.ok(streamed.status === 413 || streamed.status === 0, `${streamed.status} ${streamed.text}`);
      assert.ok(
        up.seen.every((s) => s.bytes <= 2048),
        'no more than the limit reached a service',
      );
    } finally {
      await app.close();
      up.server.close();
    }
  });

  it("decision E17: an upstream that answers before reading the body and resets the connection is relayed as itself (status, body, headers), with curl's defaults and without Expect, at 1 MiB, 3 MiB and 40 MiB, and to a client that sends its whole body first", async () => {
    // Answers at once with `Connection: close`, the body unread: Node then closes the socket with
    // those bytes pending and the kernel resets the connection under the gateway's writes.
    const answers: Record<string, [number, Record<string, string>]> = {
      '/api/auth/register': [413, {}],
      '/api/governance/vote': [401, { 'www-authenticate': 'Cookie realm="domdao"' }],
      '/api/v1/send': [400, {}],
    };
    const early = createServer((req, res) => {
      const [status, extra] = answers[req.url!] ?? [404, {}];
      res.writeHead(status, {
        'content-type': 'application/json',
        connection: 'close',
        'x-upstream': 'early',
        ...extra,
      });
      res.end(JSON.stringify({ error: `early-${status}`, path: req.url }));
    });
    await new Promise<void>((r) => early.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(early.address() as AddressInfo).port}`;
    const app = await buildGateway({ config: env({ NOTIFICATION_URL: url, BRIDGE_URL: url }) });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const dir = mkdtempSync(join(tmpdir(), 'domdao-gw-early-'));
    try {
      const sizes = [(1 << 20) + 1, 3 << 20, 40 << 20];
      const files = sizes.map((n) => {
        const file = join(dir, `${n}.json`);
        writeFileSync(file, Buffer.alloc(n, 97));
        return file;
      });
      const routes: Array<[string, Record<string, string>, number, string]> = [
        ['/register', {}, 413, '/api/auth/register'],
        ['/api/governance/vote', {}, 401, '/api/governance/vote'],
        ['/notify/api/v1/send', { authorization: `Bearer ${SERVICE_TOKEN}` }, 400, '/api/v1/send'],
      ];
      const wrong: string[] = [];
      for (const [path, headers, status, upstreamPath] of routes) {
        for (const [i, file] of files.entries()) {
          for (const expect of ['default', false] as const) {
            const r = await curlPost(`${base}${path}`, { 'content-type': 'application/json', ...headers }, file, {
              expect,
            });
            const what = `${path}, ${sizes[i]} bytes, ${expect === 'default' ? "curl's default (Expect)" : 'no Expect'}`;
            assert.equal(r.expected, expect === 'default', what);
            if (r.status !== status) {
              wrong.push(`${what}: ${r.status} ${r.text.slice(0, 80)}`);
              continue;
            }
            assert.deepEqual(JSON.parse(r.text), { error: `early-${status}`, path: upstreamPath }, what);
            assert.equal(r.headers['x-upstream'], 'early', what);
            if (status === 401) assert.equal(r.headers['www-authenticate'], 'Cookie realm="domdao"', what);
          }
        }
      }
      assert.deepEqual(wrong, [], "every early answer reached the client as the upstream's own");
      // A client that sends its whole body before reading (a proxy in front holding the body): the
      // gateway lingers on the rest too, so the answer is read and no write of the client's fails.
      const whole = await sendWholeBody(Number(new URL(base).port), '/register', 16 << 20);
      assert.equal(whole.error, undefined, 'the gateway reset the connection under the body');
      assert.match(whole.answer, /^HTTP\/1\.1 413 /);
      assert.match(whole.answer, /"error":"early-413"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await app.close();
      early.closeAllConnections();
      early.close();
    }
  });

  it('spec 3 Authentication 2: without NOTIFICATION_SERVICE_TOKEN /notify fails closed with 503; the bridge routes still work', async () => {
    const up = await recorder();
    const logs = captureLogs();
    const app = await buildGateway({
      config: loadGatewayConfig({ LOG_LEVEL: 'info', NOTIFICATION_URL: up.url, BRIDGE_URL: up.url }),
      logStream: logs.stream,
    });
    try {
      const r = await app.inject({ method: 'GET', url: '/notify/api/v1/health' });
      assert.equal(r.statusCode, 503);
      assert.equal(r.json().error, 'service_unavailable');
      assert.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
      assert.equal(up.seen.length, 1);
    } finally {
      await app.close();
      up.server.close();
    }
  });

  it('configuration: bad URLs, short tokens and malformed foreign tokens are all listed at start-up', () => {
    assert.throws(
      () =>
        loadGatewayConfig({
          BRIDGE_URL: 'ftp://x',
          NOTIFICATION_URL: 'http://a/?q=1',
          NOTIFICATION_SERVICE_TOKEN: 'short',
          FOREIGN_SERVICE_TOKENS: 'nonsense',
        }),
      (e: unknown) => e instanceof ConfigError && e.problems.length === 4,
    );
    const c = loadGatewayConfig({});
    assert.equal(c.PORT, 3000);
    assert.equal(c.BRIDGE_URL, 'http://127.0.0.1:3200');
  });
});
