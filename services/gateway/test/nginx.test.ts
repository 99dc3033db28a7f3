// test-lane: browser (decision R17: one Chromium file at a time)
// The production edge (decisions E10–E13): deploy/nginx as committed, started by this test
// as its own process on 127.0.0.1 (startEdge of @domdao/test-helpers) with a self-signed certificate, in
// front of `npm start`'s bridge and notification service; the gateway's routing cases run through it,
// then what only the production edge adds: HTTP/2 over TLS, security headers and rate limits.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { connect as http2Connect } from 'node:http2';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Agent } from 'undici';
import { chromium } from 'playwright-core';
import { encryptRegistration } from '@domdao/registration/seal';
import { freePort, startEdge, type Edge } from '@domdao/test-helpers';
import { call, edgeCases, type EdgeTarget } from './edge-cases.ts';
import { FOREIGN_TOKEN, SERVICE_TOKEN, startPlatform, type Platform } from './harness.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT_DIR = new URL('../../../screenshots/', import.meta.url).pathname;

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i > 100) throw new Error('the log line never came');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the production edge: deploy/nginx', () => {
  let dir = '';
  let edge: Edge | undefined;
  let platform: Platform;
  let port = 0;
  let ca = '';
  let target: EdgeTarget;
  let dispatcher: Agent;

  before(async () => {
    port = await freePort();
    platform = await startPlatform(() => ({
      FRONTEND_ORIGINS: `https://app.domdao.test:${port},https://gov.domdao.test:${port}`,
    }));
    // The committed configuration, with this test's site/ files (the only part an operator edits).
    edge = await startEdge({
      bridges: [platform.bridgePort],
      notifications: [platform.notificationPort],
      tlsNames: ['app.domdao.test', 'gov.domdao.test'],
      port,
      env: { NOTIFICATION_SERVICE_TOKEN: SERVICE_TOKEN, FOREIGN_SERVICE_TOKENS: `payments=${FOREIGN_TOKEN}` },
    });
    dir = edge.dir;
    ca = edge.ca!;
    dispatcher = new Agent({ connect: { ca } });
    target = {
      base: edge.base,
      dispatcher,
      platform,
      hosts: { app: `app.domdao.test:${port}`, gov: `gov.domdao.test:${port}` },
      origin: (host) => `https://${host}`,
      caFile: edge.caFile!,
    };
  });

  after(async () => {
    await dispatcher?.close();
    // The platform is stopped whatever happened to nginx, or the file would hang until the watchdog.
    try {
      await edge?.stop();
    } finally {
      await platform?.stop();
    }
  });

  edgeCases(() => target);

  it('decision E6: the 25 MiB attachment streamed through nginx, never spooled to a temporary file', () => {
    // nginx warns "a client request body is buffered to a temporary file" whenever it holds a body
    // (the bridge's routes do, E17's large bodies among them: only /notify streams).
    const log = readFileSync(join(dir, 'error.log'), 'utf8');
    assert.match(
      log,
      /js: edge.unauthorized request_id=/,
      'the error log is the one nginx writes (it logged the edge refusals)',
    );
    assert.doesNotMatch(log, /buffered to a temporary file.*request: "POST \/notify/);
  });

  it('decision E10: TLS with HTTP/2 (ALPN h2) serves the same routes', async () => {
    const session = http2Connect(`https://127.0.0.1:${port}`, { ca });
    try {
      await new Promise<void>((resolve, reject) => {
        session.once('connect', () => resolve());
        session.once('error', reject);
      });
      assert.equal(session.alpnProtocol, 'h2');
      const get = (path: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = session.request({ ':path': path });
          let body = '';
          let status = 0;
          req.on('response', (h) => (status = Number(h[':status'])));
          req.on('data', (d) => (body += d));
          req.on('end', () => resolve({ status, body }));
          req.on('error', reject);
          req.end();
        });
      assert.deepEqual(await get('/health'), { status: 200, body: '{"status":"ok"}' });
      const n = await get('/notify/api/v1/health');
      assert.equal(n.status, 200);
      assert.equal(JSON.parse(n.body).version, '1.5.0');
    } finally {
      session.close();
    }
  });

  it("decision E11: security headers on pages, API answers and the edge's own refusals", async () => {
    for (const [path, headers] of [
      ['/', {}],
      ['/health', {}],
      ['/notify/api/v1/send', {}],
      ['/no-such-page', {}],
    ] as const) {
      const r = await call(target, path.startsWith('/notify') ? 'POST' : 'GET', path, { headers });
      assert.equal(r.headers['strict-transport-security'], 'max-age=63072000; includeSubDomains', path);
      assert.equal(r.headers['x-content-type-options'], 'nosniff', path);
      assert.equal(r.headers['x-frame-options'], 'DENY', path);
      assert.match(String(r.headers['x-request-id']), /^[0-9a-f-]{36}$/, path);
      assert.equal(r.headers.server, 'nginx', `${path}: no version disclosed`);
    }
  });

  it('decision E10: in Chromium, signing in on app.<parent> through the edge signs the browser in on gov.<parent> (one Secure, HttpOnly cookie); signing out on one signs both out (decision F5)', async () => {
    const email = `browser-${Date.now()}@example.org`;
    const password = 'a long browser passphrase';
    const key = (await call(target, 'GET', '/api/auth/registration-key')).json() as { public_key: string };
    const fields = await encryptRegistration(key.public_key, { email, name: 'Browser Tester', dob: '1991-01-01' });
    assert.equal(
      (
        await call(target, 'POST', '/register', {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...fields, password, tos_accepted: true }),
        })
      ).status,
      201,
    );
    const link = new URL(
      platform
        .outbox()
        .filter((m) => m.to === email)
        .at(-1)!.link,
    );
    assert.equal((await call(target, 'GET', link.pathname + link.search)).status, 200);
    // Decision B51: the link is confirmed with the password chosen at registration.
    assert.equal(
      (
        await call(target, 'POST', '/api/auth/verify-email', {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ token: link.searchParams.get('token'), password }),
        })
      ).status,
      200,
    );

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--host-resolver-rules=MAP *.domdao.test 127.0.0.1',
      ],
    });
    try {
      const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 900, height: 520 } });
      const page = await context.newPage();
      const app = `https://app.domdao.test:${port}`;
      const gov = `https://gov.domdao.test:${port}`;
      await page.goto(`${app}/login?returnUrl=${encodeURIComponent(`${gov}/`)}`);
      await page.fill('#email', email);
      await page.fill('#password', password);
      await Promise.all([page.waitForURL(`${gov}/`), page.click('button[type=submit]')]);
      await page.waitForSelector('text=Signed in as');
      assert.match((await page.textContent('body')) ?? '', new RegExp(`Signed in as ${email.replace('.', '\\.')}`));
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'edge-sibling-sign-in.png') });
      const cookies = await context.cookies();
      const session = cookies.find((c) => c.name === 'session');
      assert.ok(session);
      assert.deepEqual(
        { domain: session.domain, secure: session.secure, httpOnly: session.httpOnly, sameSite: session.sameSite },
        { domain: '.domdao.test', secure: true, httpOnly: true, sameSite: 'Lax' },
      );
      // The first sibling sees the same session.
      await page.goto(`${app}/`);
      await page.waitForSelector('text=Signed in as');
      assert.match((await page.textContent('body')) ?? '', /Signed in as/);
      // Spec 2 Authentication 5 (decision F5): signing out in one suite signs the other out too.
      const gov2 = await context.newPage();
      await gov2.goto(`${gov}/`);
      await gov2.waitForSelector('text=Signed in as');
      await Promise.all([page.waitForEvent('load'), page.click('#signout')]);
      await page.waitForSelector('text=You are not signed in.');
      await gov2.reload();
      await gov2.waitForSelector('text=You are not signed in.');
      assert.equal(
        await gov2.evaluate(() => localStorage.getItem('user_data')),
        null,
        'the other suite cleared its user_data',
      );
    } finally {
      await browser.close();
    }
  });

  it("decision E16: nginx continues a caller's traceparent with its own span, logs the trace id, and the services log the same one", async () => {
    const edgeLines = () =>
      readFileSync(join(dir, 'access.log'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const serviceTraces = (requestId: string) =>
      new Set(
        platform
          .logs()
          .filter((l) => l.request_id === requestId)
          .map((l) => l.trace_id),
      );
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const given = await call(target, 'GET', '/api/campaigns', {
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    assert.equal(given.status, 200, given.text);
    const givenId = String(given.headers['x-request-id']);
    await waitFor(() => platform.logs().some((l) => l.request_id === givenId && l.event === 'request.completed'));
    assert.deepEqual([...serviceTraces(givenId)], [traceId], "the bridge continued the caller's trace");
    assert.equal(edgeLines().find((l) => l.request_id === givenId)?.trace_id, traceId, 'the edge logged it');

    // None, all-zero or malformed: the edge starts a trace, and the bridge continues that one.
    const cases: Array<Record<string, string>> = [
      {},
      { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` },
      { traceparent: 'garbage' },
    ];
    for (const headers of cases) {
      const res = await call(target, 'GET', '/api/campaigns', { headers });
      const id = String(res.headers['x-request-id']);
      await waitFor(() => platform.logs().some((l) => l.request_id === id && l.event === 'request.completed'));
      const edge = edgeLines().find((l) => l.request_id === id)!;
      assert.match(String(edge.trace_id), /^[0-9a-f]{32}$/);
      assert.notEqual(edge.trace_id, '0'.repeat(32));
      assert.deepEqual([...serviceTraces(id)], [edge.trace_id], JSON.stringify(headers));
    }
  });

  it("decision E12: a client over the sign-in rate limit gets 429 from the edge in the bridge's shape", async () => {
    const answers = [];
    for (let i = 0; i < 40; i++)
      answers.push(
        await call(target, 'POST', '/auth/login', { headers: { 'content-type': 'application/json' }, body: '{}' }),
      );
    const limited = answers.filter((a) => a.status === 429);
    assert.ok(limited.length >= 10, `${limited.length} of 40 limited`);
    assert.equal(limited[0]!.json().error, 'RATE_LIMITED');
    assert.equal(limited[0]!.json().request_id, limited[0]!.headers['x-request-id']);
    assert.equal(limited[0]!.headers['retry-after'], '1');
    // Those within the burst reached the bridge, which judged them itself (earlier tests used part of it).
    assert.ok(
      answers.slice(0, 10).every((a) => a.status === 400 && a.json().error === 'VALIDATION_ERROR'),
      answers
        .slice(0, 10)
        .map((a) => a.status)
        .join(),
    );
    // Other routes have their own, wider budget.
    assert.equal((await call(target, 'GET', '/health')).status, 200);
  });
});
