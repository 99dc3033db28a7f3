// Maximum request body size and bounded memory (spec 3 Limits: "not shown"; decision D8).
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { makeService, makeServiceWithProvider, TEST_TOKEN, validBody } from './helpers.ts';

describe('MAX_BODY_BYTES', () => {
  it('the default admits one 25 MiB attachment (33.4 MiB of base64)', async () => {
    const svc = await makeService();
    const content = Buffer.alloc(25 * 1024 * 1024).toString('base64');
    const res = await svc.send({ ...validBody('welcome'), attachments: [{ filename: 'big.bin', content }] });
    assert.equal(res.statusCode, 200);
    await svc.close();
  });

  it('a body over the limit is 413 payload_too_large with a JSON body and request_id', async () => {
    const svc = await makeService({ MAX_BODY_BYTES: String(64 * 1024) });
    const res = await svc.send({ ...validBody('welcome'), attachments: [{ filename: 'a.bin', content: Buffer.alloc(60 * 1024).toString('base64') }] });
    assert.equal(res.statusCode, 413);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(res.json().error, 'payload_too_large');
    assert.ok(res.json().request_id);
    await svc.close();
  });

  it('a declared Content-Length over the limit is refused before the body is read', async () => {
    const svc = await makeService({ MAX_BODY_BYTES: String(64 * 1024) });
    await svc.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = svc.app.server.address() as AddressInfo;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/v1/send', headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024 * 1024) } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write('{"type":');
      // The body is never finished: the answer must come anyway.
    });
    assert.equal(status, 413);
    await svc.close();
  });
});

describe('INFLIGHT_BODY_BYTES', () => {
  it('requests beyond the in-flight budget wait their turn instead of failing; all complete', async () => {
    const body = { ...validBody('welcome'), attachments: [{ filename: 'a.bin', content: Buffer.alloc(300 * 1024).toString('base64') }] };
    const size = Buffer.byteLength(JSON.stringify(body));
    // Room for one such body at a time: the provider must never see two at once.
    const p = await makeServiceWithProvider({ INFLIGHT_BODY_BYTES: String(Math.floor(size * 1.5)) }, () => ({ status: 200, body: { id: 'ok' }, delayMs: 150 }));
    const results = await Promise.all(Array.from({ length: 4 }, () => p.send(body)));
    assert.deepEqual(results.map((r) => r.statusCode), [200, 200, 200, 200]);
    assert.equal(p.provider.maxConcurrent, 1);
    await p.close();
  });

  it('small requests still run concurrently under the same budget', async () => {
    const p = await makeServiceWithProvider({}, () => ({ status: 200, body: { id: 'ok' }, delayMs: 150 }));
    await Promise.all(Array.from({ length: 4 }, () => p.send(validBody('welcome'))));
    assert.equal(p.provider.maxConcurrent, 4);
    await p.close();
  });
});
