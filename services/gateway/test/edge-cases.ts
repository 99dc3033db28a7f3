// The routing cases every edge must pass (issue 17 "Tests"), shared by the Node gateway of `npm start`
// (gateway.test.ts) and the production nginx configuration (nginx.test.ts): every route reaches its
// service, /notify without, with a wrong and with a foreign-scoped token, the prefix stripped, browser
// requests refused, POST /register end to end, a 25 MiB attachment, and the session cookie across two
// sibling hostnames.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { request, type Dispatcher } from 'undici';
import { encryptRegistration } from '@domdao/bridge-service/client-crypto';
import { FOREIGN_TOKEN, SERVICE_TOKEN, type Platform } from './harness.ts';

export interface EdgeTarget {
  /** The edge's base URL, e.g. http://127.0.0.1:3000 or https://127.0.0.1:8443. */
  base: string;
  dispatcher: Dispatcher;
  platform: Platform;
  /** Host header values (with port) of two sibling front-end hostnames under the cookie domain. */
  hosts: { app: string; gov: string };
  /** Origin of those hostnames as a browser would send it. */
  origin(host: string): string;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json(): any;
}

export async function call(t: EdgeTarget, method: string, path: string, opts: { headers?: Record<string, string>; body?: string | Buffer; host?: string } = {}): Promise<Answer> {
  const res = await request(`${t.base}${path}`, {
    method: method as Dispatcher.HttpMethod,
    headers: { ...opts.headers, ...(opts.host && { host: opts.host }) },
    ...(opts.body !== undefined && { body: opts.body }),
    dispatcher: t.dispatcher,
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, json: () => JSON.parse(text) };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const json = { 'content-type': 'application/json' };
const welcome = JSON.stringify({ type: 'welcome', to: 'ada@example.com', domain: 'domdao.example', data: { user_name: 'Ada' } });

/** A send with one 25 MiB attachment (33.4 MiB of JSON): the largest a caller may send (spec 3). */
export function bigSend(): Buffer {
  const content = randomBytes(25 * 1024 * 1024).toString('base64');
  return Buffer.from(JSON.stringify({ type: 'welcome', to: 'ada@example.com', domain: 'domdao.example', data: { user_name: 'Ada' }, attachments: [{ filename: 'minutes.pdf', content, content_type: 'application/pdf' }] }));
}

/** Log lines a service wrote for one request id (the platform flushes its logs at least every second: wait first). */
function linesOf(t: EdgeTarget, service: string, requestId: string) {
  return t.platform.logs().filter((l) => l.service === service && l.request_id === requestId);
}

export function edgeCases(target: () => EdgeTarget): void {
  it('issue 17: the bridge routes and the web app at / reach the bridge', async () => {
    const t = target();
    assert.deepEqual((await call(t, 'GET', '/health')).json(), { status: 'ok' });
    const home = await call(t, 'GET', '/');
    assert.equal(home.status, 200);
    assert.match(home.text, /<div id="app"><\/div>/, 'the member web app (issue 14)');
    assert.match((await call(t, 'GET', '/login')).text, /<form/);
    assert.equal((await call(t, 'GET', '/api/openapi.json')).json().info.title.length > 0, true);
    assert.match((await call(t, 'GET', '/api/auth/registration-key')).json().public_key, /^[A-Za-z0-9_-]+$/);
    assert.equal((await call(t, 'GET', '/api/governance/settings')).status, 200);
    const missing = await call(t, 'GET', '/no-such-page?x=1');
    assert.equal(missing.status, 404);
    assert.equal(missing.json().error, 'NOT_FOUND', 'the bridge answers unknown paths');
  });

  it('issue 17, decision E7: a caller X-Request-Id is passed through to both services and answered', async () => {
    const t = target();
    const id = randomUUID();
    const n = await call(t, 'GET', '/notify/api/v1/health', { headers: { 'x-request-id': id } });
    assert.equal(n.status, 200);
    assert.equal(n.headers['x-request-id'], id);
    assert.deepEqual(n.json(), { status: 'ok', version: '1.5.0', request_id: id });
    const id2 = randomUUID();
    const b = await call(t, 'GET', '/no-such-page', { headers: { 'x-request-id': id2 } });
    assert.equal(b.headers['x-request-id'], id2);
    assert.equal(b.json().request_id, id2);
    // A malformed id is replaced by a fresh UUID (spec 3 correlation rule 2).
    const fresh = await call(t, 'GET', '/notify/api/v1/health', { headers: { 'x-request-id': 'not-a-uuid' } });
    assert.match(String(fresh.headers['x-request-id']), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(fresh.json().request_id, fresh.headers['x-request-id']);
  });

  it('spec 3 Endpoints: /notify/api/v1/send with the token reaches the service with the prefix stripped', async () => {
    const t = target();
    const sent = await call(t, 'POST', '/notify/api/v1/send', { headers: { ...bearer(SERVICE_TOKEN), ...json }, body: welcome });
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.json().stubbed, true);
    assert.match(sent.json().id, /^stub_/);
    // Another stripped path: the service's own openapi document, and its own 404 after auth (decision D3).
    const doc = await call(t, 'GET', '/notify/api/v1/openapi.json', { headers: bearer(SERVICE_TOKEN) });
    assert.equal(doc.status, 200);
    assert.match(doc.json().openapi, /^3\./);
    const unknown = await call(t, 'GET', '/notify/api/v1/nothing-here', { headers: bearer(SERVICE_TOKEN) });
    assert.equal(unknown.status, 404);
    assert.deepEqual(Object.keys(unknown.json()).sort(), ['error', 'request_id']);
    assert.equal(unknown.json().error, 'not_found', "the notification service's 404, not the bridge's");
  });

  it('spec 3 Authentication 1, decisions D1 and E3: /notify without, with a wrong and with a foreign-scoped token is answered at the edge', async () => {
    const t = target();
    const ids = { none: randomUUID(), wrong: randomUUID(), foreign: randomUUID(), malformed: randomUUID() };
    const none = await call(t, 'POST', '/notify/api/v1/send', { headers: { ...json, 'x-request-id': ids.none }, body: welcome });
    const wrong = await call(t, 'POST', '/notify/api/v1/send', { headers: { ...json, ...bearer('not-the-service-token-0123456789'), 'x-request-id': ids.wrong }, body: welcome });
    const foreign = await call(t, 'POST', '/notify/api/v1/send', { headers: { ...json, ...bearer(FOREIGN_TOKEN), 'x-request-id': ids.foreign }, body: welcome });
    const malformed = await call(t, 'POST', '/notify/api/v1/send', { headers: { ...json, authorization: `Basic ${Buffer.from('a:b').toString('base64')}`, 'x-request-id': ids.malformed }, body: welcome });
    assert.deepEqual([none.status, wrong.status, foreign.status, malformed.status], [401, 401, 403, 401]);
    assert.deepEqual(none.json(), { error: 'unauthorized', request_id: ids.none });
    assert.deepEqual(wrong.json(), { error: 'unauthorized', request_id: ids.wrong });
    assert.deepEqual(foreign.json(), { error: 'forbidden', request_id: ids.foreign });
    assert.deepEqual(malformed.json(), { error: 'unauthorized', request_id: ids.malformed });
    assert.match(String(none.headers['content-type']), /^application\/json/);
    // None of them reached the service: it logs auth.unauthorized for every refusal of its own, and
    // does so for a wrong token sent to it directly (the control).
    const direct = randomUUID();
    await request(`http://127.0.0.1:${t.platform.notificationPort}/api/v1/send`, { method: 'POST', headers: { ...json, ...bearer('not-the-service-token-0123456789'), 'x-request-id': direct }, body: welcome }).then((r) => r.body.dump());
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(linesOf(t, 'notification', direct).some((l) => l.event === 'auth.unauthorized'), true, 'control: the service logs its own refusals');
    for (const id of Object.values(ids)) assert.deepEqual(linesOf(t, 'notification', id), [], `request ${id} must not reach the notification service`);
  });

  it('decision E4: browser-like requests to /notify are refused even with the right token; the token never serves a browser', async () => {
    const t = target();
    const cases: Array<[string, Record<string, string>, string]> = [
      ['Origin', { origin: t.origin(t.hosts.app) }, 'Origin'],
      ['session cookie', { cookie: 'theme=dark; session=abc123' }, 'Cookie'],
      ['fetch metadata', { 'sec-fetch-mode': 'cors', 'sec-fetch-site': 'same-origin' }, 'Sec-Fetch-Mode'],
    ];
    for (const [name, headers, field] of cases) {
      const id = randomUUID();
      const r = await call(t, 'POST', '/notify/api/v1/send', { headers: { ...json, ...bearer(SERVICE_TOKEN), ...headers, 'x-request-id': id }, body: welcome });
      assert.equal(r.status, 403, name);
      assert.equal(r.json().error, 'forbidden', name);
      assert.equal(r.json().request_id, id, name);
      assert.equal(r.json().details[0].field, field, name);
    }
    // Other cookies are no mark of a browser session; they are not forwarded either.
    const ok = await call(t, 'POST', '/notify/api/v1/send', { headers: { ...json, ...bearer(SERVICE_TOKEN), cookie: 'theme=dark' }, body: welcome });
    assert.equal(ok.status, 200, ok.text);
  });

  it('spec 3 Attachments: a 25 MiB attachment passes through the edge', async () => {
    const t = target();
    const r = await call(t, 'POST', '/notify/api/v1/send', { headers: { ...json, ...bearer(SERVICE_TOKEN) }, body: bigSend() });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json().stubbed, true);
  });

  it('spec 2 Authentication 9, decision E9: POST /register end to end, then the session cookie works on two sibling hostnames', async () => {
    const t = target();
    const key = (await call(t, 'GET', '/api/auth/registration-key')).json() as { public_key: string };
    const email = `edge-${randomUUID().slice(0, 8)}@example.org`;
    const password = 'a long edge passphrase 17';
    const fields = await encryptRegistration(key.public_key, { email, name: 'Edge Tester', dob: '1990-05-01' });
    const body = JSON.stringify({ ...fields, password, tos_accepted: true });
    const created = await call(t, 'POST', '/register', { headers: json, body, host: t.hosts.app });
    assert.equal(created.status, 201, created.text);
    const { user_id } = created.json() as { user_id: string };
    assert.deepEqual(created.json(), { user_id, status: 'verification_pending', verification_email_sent: true });
    // The same errors as the bridge's registration.
    const again = await call(t, 'POST', '/register', { headers: json, body });
    assert.equal(again.status, 409);
    assert.equal(again.json().error, 'EMAIL_EXISTS');
    const bad = await call(t, 'POST', '/register', { headers: json, body: JSON.stringify({ password }) });
    assert.equal(bad.status, 400);
    assert.equal(bad.json().error, 'VALIDATION_ERROR');
    // A front end on a sibling origin may call it (CORS preflight answered by the bridge's rules, B45).
    const pre = await call(t, 'OPTIONS', '/register', { headers: { origin: t.origin(t.hosts.gov), 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' }, host: t.hosts.app });
    assert.ok(pre.status === 204 || pre.status === 200, `preflight ${pre.status} ${pre.text}`);
    assert.equal(pre.headers['access-control-allow-origin'], t.origin(t.hosts.gov));
    assert.equal(pre.headers['access-control-allow-credentials'], 'true');
    // GET /register is no endpoint.
    assert.equal((await call(t, 'GET', '/register')).status, 404);

    const link = t.platform.outbox().filter((m) => m.to === email).at(-1)?.link;
    assert.ok(link, 'the verification link was emailed');
    const verified = await call(t, 'GET', new URL(link).pathname + new URL(link).search);
    assert.equal(verified.status, 200);

    const login = await call(t, 'POST', '/auth/login', { headers: json, body: JSON.stringify({ email, password }), host: t.hosts.app });
    assert.equal(login.status, 200, login.text);
    const setCookie = ([] as string[]).concat(login.headers['set-cookie'] ?? []).find((c) => c.startsWith('session='));
    assert.ok(setCookie, 'the session cookie is set through the edge');
    assert.match(setCookie, /; Domain=\.domdao\.test(;|$)/i);
    for (const host of [t.hosts.app, t.hosts.gov]) assert.ok(host.split(':')[0]!.endsWith('.domdao.test'), `${host} domain-matches the cookie`);
    const cookie = setCookie.split(';')[0]!;
    const session = await call(t, 'GET', '/api/auth/session', { headers: { cookie }, host: t.hosts.gov });
    assert.equal(session.status, 200);
    assert.deepEqual(session.json(), { authenticated: true, user_id, email, roles: ['member'], membership_status: 'Registered' });
    // Logging out on the sibling ends the session for both (spec 2 Authentication 5).
    const out = await call(t, 'POST', '/auth/logout', { headers: { cookie, origin: t.origin(t.hosts.gov) }, host: t.hosts.gov });
    assert.equal(out.status, 200, out.text);
    assert.deepEqual((await call(t, 'GET', '/auth/session', { headers: { cookie }, host: t.hosts.app })).json(), { authenticated: false });
  });
}
