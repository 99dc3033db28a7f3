// Maximum request body size and bounded memory (spec 3 Limits: "not shown"; decision D8).
import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { SMALL_BODY_BYTES } from '../src/app.ts';
import { makeService, makeServiceWithProvider, TEST_TOKEN, validBody } from './harness.ts';

describe('MAX_BODY_BYTES', () => {
  it('the default admits one 25 MiB attachment (33.4 MiB of base64)', async (t) => {
    const svc = await makeService();
    t.after(() => svc.close());
    const content = Buffer.alloc(25 * 1024 * 1024).toString('base64');
    const res = await svc.send({ ...validBody('welcome'), attachments: [{ filename: 'big.bin', content }] });
    assert.equal(res.statusCode, 200);
  });

  it('a body over the limit is 413 payload_too_large with a JSON body and request_id', async (t) => {
    const svc = await makeService({ MAX_BODY_BYTES: String(64 * 1024) });
    t.after(() => svc.close());
    const res = await svc.send({
      ...validBody('welcome'),
      attachments: [{ filename: 'a.bin', content: Buffer.alloc(60 * 1024).toString('base64') }],
    });
    assert.equal(res.statusCode, 413);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(res.json().error, 'payload_too_large');
    assert.ok(res.json().request_id);
  });

  it('decision D8: a declared Content-Length over the limit is refused before the body is read, the connection closed at once', async (t) => {
    const svc = await makeService({ MAX_BODY_BYTES: String(64 * 1024) });
    t.after(() => svc.close());
    await svc.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = svc.app.server.address() as AddressInfo;
    const started = Date.now();
    const req = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/v1/send',
      agent: false,
      headers: {
        authorization: `Bearer ${TEST_TOKEN}`,
        'content-type': 'application/json',
        'content-length': String(10 * 1024 * 1024 * 1024),
      },
    });
    t.after(() => req.destroy());
    const closed = new Promise<void>((resolve) => req.on('socket', (s) => s.on('close', () => resolve())));
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      req.on('response', resolve);
      req.on('error', reject);
      req.write('{"type":');
      // The body is never finished: the answer must come anyway.
    });
    res.resume();
    assert.equal(res.statusCode, 413);
    assert.equal(res.headers.connection, 'close');
    // Node's HTTP server ends a connection whose body was left unread rather than draining 10 GiB.
    await closed;
    // A hang guard, not a speed bound: draining the announced body would take far longer.
    assert.ok(Date.now() - started < 30_000, `closed after ${Date.now() - started} ms`);
  });

  it('decision D29 as amended by R27: a send whose body is still arriving when close() begins is read and answered, with Connection: close', async (t) => {
    const svc = await makeService();
    t.after(() => svc.close());
    await svc.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = svc.app.server.address() as AddressInfo;
    const body = JSON.stringify(validBody('welcome'));
    const req = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/v1/send',
      agent: false,
      headers: {
        authorization: `Bearer ${TEST_TOKEN}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      },
    });
    t.after(() => req.destroy());
    const answered = new Promise<IncomingMessage>((resolve, reject) => {
      req.on('response', resolve);
      req.on('error', reject);
    });
    req.write(body.slice(0, 8));
    // The service has the request (its headers and the first bytes of its body) before the close begins.
    while (svc.app.frontDoor.open.requests === 0) await new Promise((r) => setTimeout(r, 5));
    const closing = svc.app.close();
    while (svc.app.server.listening) await new Promise((r) => setTimeout(r, 5));
    req.end(body.slice(8));
    const res = await answered;
    res.resume();
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers.connection, 'close');
    await closing;
  });

  it('decision D29 as amended by R27: a body that stops arriving during close() is ended by its read deadline (D32), so it does not hold close()', async (t) => {
    const svc = await makeService({ BODY_READ_TIMEOUT_MS: '100' });
    t.after(() => svc.close());
    await svc.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = svc.app.server.address() as AddressInfo;
    const req = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/v1/send',
      agent: false,
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json', 'content-length': '1000' },
    });
    t.after(() => req.destroy());
    req.on('error', () => {});
    req.write('{"type":');
    while (svc.app.frontDoor.open.requests === 0) await new Promise((r) => setTimeout(r, 5));
    const started = Date.now();
    await svc.app.close();
    // A hang guard, not a speed bound: the unfinished body would otherwise hold close() until the grace period.
    assert.ok(Date.now() - started < 30_000, `close took ${Date.now() - started} ms`);
  });
  it('decision D29 as amended by R27: a large-lane body still arriving when close() begins has SMALL_BODY_READ_TIMEOUT_MS left, not BODY_READ_TIMEOUT_MS', async (t) => {
    const svc = await makeService();
    t.after(() => svc.close());
    await svc.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = svc.app.server.address() as AddressInfo;
    // Over SMALL_BODY_BYTES: the large lane, whose bodies have BODY_READ_TIMEOUT_MS (60 s) to arrive.
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('error', () => {});
    t.after(() => socket.destroy());
    const cut = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /api/v1/send HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${2 * SMALL_BODY_BYTES}\r\n\r\n{`,
    );
    const started = Date.now();
    await svc.app.close();
    await cut;
    // Well under BODY_READ_TIMEOUT_MS (60 s), which this close would otherwise have waited for.
    assert.ok(Date.now() - started < 30_000, `close took ${Date.now() - started} ms`);
    assert.ok(svc.logs.lines().some((l) => l.event === 'request.body_timeout'));
  });
});

describe('shutdown (decision D29)', () => {
  it('decision D29: a send whose body has arrived still completes while close() runs', async (t) => {
    const p = await makeServiceWithProvider({}, () => ({ status: 200, body: { id: 'during-close' }, delayMs: 400 }));
    t.after(() => p.close());
    await p.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = p.app.server.address() as AddressInfo;
    const pending = fetch(`http://127.0.0.1:${port}/api/v1/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(validBody('welcome')),
    });
    while (p.provider.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    const closeStarted = Date.now();
    const closing = p.app.close();
    const res = await pending;
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { id: string }).id, 'during-close');
    await closing;
    // The keep-alive connection ends with the answer instead of holding close() for its 72 s timeout.
    assert.ok(Date.now() - closeStarted < 30_000, `close took ${Date.now() - closeStarted} ms`);
  });
});

describe('INFLIGHT_BODY_BYTES', () => {
  it('requests beyond the in-flight budget wait their turn instead of failing; all complete', async (t) => {
    const body = {
      ...validBody('welcome'),
      attachments: [{ filename: 'a.bin', content: Buffer.alloc(300 * 1024).toString('base64') }],
    };
    const size = Buffer.byteLength(JSON.stringify(body));
    // Room for one such body at a time: the provider must never see two at once.
    const p = await makeServiceWithProvider({ INFLIGHT_BODY_BYTES: String(Math.floor(size * 1.5)) }, () => ({
      status: 200,
      body: { id: 'ok' },
      delayMs: 150,
    }));
    t.after(() => p.close());
    const results = await Promise.all(Array.from({ length: 4 }, () => p.send(body)));
    assert.deepEqual(
      results.map((r) => r.statusCode),
      [200, 200, 200, 200],
    );
    assert.equal(p.provider.maxConcurrent, 1);
  });

  it('small requests still run concurrently under the same budget', async (t) => {
    const p = await makeServiceWithProvider({}, () => ({ status: 200, body: { id: 'ok' }, delayMs: 150 }));
    t.after(() => p.close());
    await Promise.all(Array.from({ length: 4 }, () => p.send(validBody('welcome'))));
    assert.equal(p.provider.maxConcurrent, 4);
  });
});
